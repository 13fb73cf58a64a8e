/**
 * Interruptible instances: which instance was outbid, what the user is told about it (once per
 * outbid), and changing a bid with the outcome checked as for stop and destroy.
 *
 * The service stops an interruptible instance (`is_bid`) when someone bids more than it for the
 * machine; it is then `stopped`, its disk still billing, and the machine's `min_bid` is above the
 * instance's bid (`dph_base`, what its GPU bills at). A stop the user asked for sets
 * `intended_status` to `stopped`; an outbid instance still wants to run.
 */
import type { GpuRentalClient } from '../api/client';
import { ApiError } from '../api/errors';
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { outcomeUnseen, type ActionResult } from './actions';
import { gpuSummary, instanceName } from './names';
import { bidBelowMinimum } from './phase';
import { l10n, sentences } from '../l10n';

/**
 * A bid a little over the current minimum: 5% over it, at least a tenth of a cent more, rounded
 * up to the tenth of a cent, so a small rise of the minimum does not stop the instance at once.
 *
 * Change Bid suggests it, and the outbid policy "raise" bids it (core/jobs/outbidPolicy.ts).
 */
export function suggestBid(minBid: number): number {
  const over = Math.max(minBid * 1.05, minBid + 0.001);
  return Math.ceil(over * 1000 - 1e-9) / 1000;
}

/** Whether the instance is interruptible (rented as a bid). */
export function isInterruptible(instance: Pick<Instance, 'is_bid'>): boolean {
  return instance.is_bid === true;
}

/** The instance's bid, $/hour for its GPU part: an interruptible instance's `dph_base` is what its GPU bills at. */
export function bidOf(instance: Pick<Instance, 'is_bid' | 'dph_base'>): number | undefined {
  return isInterruptible(instance) && typeof instance.dph_base === 'number' ? instance.dph_base : undefined;
}

/** The machine's minimum bid now, when the service said. */
export function minBidNow(instance: Pick<Instance, 'min_bid'>): number | undefined {
  return typeof instance.min_bid === 'number' && Number.isFinite(instance.min_bid) ? instance.min_bid : undefined;
}

/**
 * Whether the service stopped this interruptible instance for a higher bid while its renter wanted
 * it running: stopped, not by the user (`intended_status` is not `stopped`), bidding under the
 * machine's minimum now. Without the minimum or the bid it cannot be told from a start waiting for
 * its GPU, and is not called outbid.
 */
export function isOutbid(instance: Instance): boolean {
  if (instance.unreadable || instance.actual_status !== 'stopped' || instance.intended_status === 'stopped') return false;
  return bidBelowMinimum(instance);
}

/** What an outbid instance still bills per hour: its disk. */
export function outbidDiskRate(instance: Pick<Instance, 'storage_total_cost'>): number | undefined {
  return typeof instance.storage_total_cost === 'number' ? instance.storage_total_cost : undefined;
}

/** How the notification names the instance: `"train" (RTX 4090)`, or `RTX 4090 #42` without a label. */
function noticeName(instance: Instance): string {
  return instance.label ? `"${instance.label}" (${gpuSummary(instance)})` : `${gpuSummary(instance)} #${instance.id}`;
}

/** The notification's text for an outbid instance. */
export function outbidNoticeText(instance: Instance): string {
  const disk = outbidDiskRate(instance);
  const bills =
    disk === undefined ? l10n.t('Its disk still bills until you destroy it.') : l10n.t('Its disk still bills {0}/h.', formatDollars(disk));
  return l10n.t('GPU Rental: {0} was outbid and stopped. {1}', noticeName(instance), bills);
}

/** The tooltip's note on an outbid instance: what happened and what to do. */
export function outbidNote(instance: Instance): string {
  const bid = bidOf(instance);
  const min = minBidNow(instance);
  const disk = outbidDiskRate(instance);
  const what =
    bid === undefined
      ? min === undefined
        ? l10n.t('outbid: the service stopped it because someone bid more for this machine.')
        : l10n.t('outbid: the service stopped it because someone bid more for this machine (the minimum is now {0}/h).', formatDollars(min))
      : min === undefined
        ? l10n.t('outbid: the service stopped it because someone bid more for this machine than your {0}/h.', formatDollars(bid))
        : l10n.t(
            'outbid: the service stopped it because someone bid more for this machine than your {0}/h (the minimum is now {1}/h).',
            formatDollars(bid),
            formatDollars(min),
          );
  return sentences(
    what,
    disk === undefined
      ? l10n.t('Its disk still bills until you destroy it.')
      : l10n.t('Its disk still bills {0}/h until you destroy it.', formatDollars(disk)),
    l10n.t('Change Bid… to at least the minimum runs it again; or rent on demand, copy its folder over, and destroy it.'),
  );
}

/** The key under which windows remember that an outbid was notified: one account's one instance. */
export function outbidKey(account: { baseUrl: string; profileId: string }, instanceId: number): string {
  return `${account.profileId}|${account.baseUrl}|${instanceId}`;
}

/**
 * Which outbid instances to notify, given what was notified already (in any window), and the record
 * to keep. An instance is notified once per outbid: its entry goes when it is seen not outbid (its
 * bid won again, or the user stopped it) or is gone from the account, so the next outbid notifies
 * again. Entries of other accounts are kept untouched: their instances are not in this list.
 */
export function outbidsToNotify(
  notified: Readonly<Record<string, number>>,
  account: { baseUrl: string; profileId: string },
  instances: readonly Instance[],
  nowMs: number,
): { notify: Instance[]; next: Record<string, number> } {
  const prefix = outbidKey(account, 0).replace(/0$/, '');
  const next: Record<string, number> = {};
  for (const [key, at] of Object.entries(notified)) if (!key.startsWith(prefix)) next[key] = at;
  const notify: Instance[] = [];
  for (const instance of instances) {
    if (!isOutbid(instance)) continue;
    const key = outbidKey(account, instance.id);
    const at = notified[key];
    if (at === undefined) notify.push(instance);
    next[key] = at ?? nowMs;
  }
  return { notify, next };
}

type Instances = Pick<GpuRentalClient['instances'], 'changeBid' | 'show'>;

/** Whether a new bid of `price` runs an outbid instance again: it reaches the machine's current minimum. */
export function bidRunsAgain(instance: Instance, price: number): boolean {
  const min = minBidNow(instance);
  return isOutbid(instance) && (min === undefined || price >= min);
}

/**
 * Changes the bid of an interruptible instance and says what happened. After an answer not seen,
 * reads the instance again: its bid says whether the change landed; when that read fails too, the
 * outcome is unknown and the user is told to check.
 */
export async function changeInstanceBid(instances: Instances, instance: Instance, price: number): Promise<ActionResult> {
  const name = instanceName(instance);
  const resumes = bidRunsAgain(instance, price);
  const done = resumes
    ? l10n.t('the bid of {0} is now {1}/h: it starts again, and its GPU bills from when it runs.', name, formatDollars(price))
    : l10n.t('the bid of {0} is now {1}/h.', name, formatDollars(price));
  try {
    await instances.changeBid(instance.id, price);
    return { kind: 'done', message: done };
  } catch (error) {
    if (!outcomeUnseen(error)) throw error;
    let seen: Instance;
    try {
      seen = await instances.show(instance.id);
    } catch (second) {
      if (second instanceof ApiError && second.kind === 'not_found')
        return { kind: 'done', message: l10n.t('{0} no longer exists; there is no bid to change.', name) };
      return {
        kind: 'unknown',
        message: l10n.t(
          'it is not known whether the bid of {0} changed to {1}/h: the answer was not seen ({2}) and a second look failed too ({3}). Refresh the Instances view to check before trying again.',
          name,
          formatDollars(price),
          describe(error),
          describe(second),
        ),
      };
    }
    const now = bidOf(seen);
    if (now !== undefined && Math.abs(now - price) < 1e-6)
      return { kind: 'done', message: sentences(done, l10n.t('(The answer was not seen, but the instance shows the new bid.)')) };
    return {
      kind: 'notDone',
      message: l10n.t(
        'the bid of {0} was not changed: the request failed ({1}), and the instance still bids {2}. Try again.',
        name,
        describe(error),
        now === undefined ? l10n.t('as before') : `${formatDollars(now)}/h`,
      ),
    };
  }
}

function describe(error: unknown): string {
  if (error instanceof ApiError)
    return error.kind === 'timeout' ? l10n.t('no answer in time') : error.kind === 'server' ? `HTTP ${error.status ?? '5xx'}` : error.kind;
  return error instanceof Error ? error.message : String(error);
}
