/**
 * Change Bid and Move to On-Demand as core flows: what the bid box says and accepts, whether the
 * spend cap is asked, what the user is told, and which on-demand offers an outbid instance may move
 * to. `src/ui/commands/bids.ts` hands them the boxes and shows what they return.
 */
import type { Instance } from '../api/instances';
import type { Offer, SearchOffersRequest } from '../api/offers';
import { formatDollars } from '../format';
import type { ActionResult } from '../instances/actions';
import { bidOf, bidRunsAgain, changeInstanceBid, isInterruptible, isOutbid, minBidNow, outbidDiskRate } from '../instances/outbid';
import { gpuSummary, instanceName } from '../instances/names';
import { l10n } from '../l10n';
import { decimalText } from '../numbers';
import type { Notice } from '../notice';
import { parseQuery } from '../offers/search';
import type { Ask } from '../prompts';
import { BID_MIN, CHANGE_BID_MAX, checkBid, parseBid, suggestBid } from './bid';

/** A notice the bid commands show. */
export interface BidNotice extends Notice {
  readonly severity: 'info' | 'warning';
}

export interface ChangeBidDeps {
  ask: Pick<Ask, 'input'>;
  /** What the instance's machine costs on demand for its GPU part, when listed; never fails. */
  onDemandPrice(instance: Instance): Promise<number | undefined>;
  /** The spend cap check; false when it refuses (it has told the user why). */
  allowsSpend(perHour: number, reason: string): Promise<boolean>;
  instances: Parameters<typeof changeInstanceBid>[0];
}

/** What Change Bid ends with: the notice, and (once sent) whether the status bar follows a boot or the poller watches. */
export type ChangeBidEnd =
  { notice: BidNotice; sent?: undefined } | { notice: BidNotice; sent: { kind: ActionResult['kind']; follow: 'boot' | 'watch' } };

/**
 * Asks the new bid, beside the current one, the machine's minimum and the on-demand price, checks
 * what it adds against the spend cap, and sends it. Undefined when the user cancelled.
 */
export async function changeBidFlow(
  deps: ChangeBidDeps,
  instance: Instance,
  suggested: number | undefined,
): Promise<ChangeBidEnd | undefined> {
  const name = instanceName(instance);
  if (!isInterruptible(instance))
    return {
      notice: {
        severity: 'info',
        text: l10n.t('GPU Rental: {0} rents on demand; only an interruptible instance has a bid to change.', name),
      },
    };
  const bid = bidOf(instance);
  const min = minBidNow(instance);
  const outbid = isOutbid(instance);
  const onDemand = await deps.onDemandPrice(instance);
  const start = suggested ?? (outbid && min !== undefined ? suggestBid(min) : bid);
  const facts = [
    bid === undefined ? undefined : l10n.t('now {0}/h', formatDollars(bid)),
    min === undefined ? undefined : l10n.t('minimum now {0}/h', formatDollars(min)),
    onDemand === undefined ? l10n.t('on demand: not listed now') : l10n.t('on demand {0}/h', formatDollars(onDemand)),
  ].filter((f): f is string => f !== undefined);
  const bounds = { min: Math.max(min ?? BID_MIN, BID_MIN), max: CHANGE_BID_MAX };
  const answer = await deps.ask.input({
    title: l10n.t('GPU Rental: Change the bid of {0}', name),
    prompt: outbid
      ? l10n.t('Bid in $/h for the GPU part ({0}). A bid of at least the minimum runs it again.', facts.join(' · '))
      : l10n.t('Bid in $/h for the GPU part ({0}). It is stopped when someone bids more.', facts.join(' · ')),
    value: start === undefined ? '' : decimalText(start),
    validate: (v) => checkBid(v, bounds),
  });
  if (answer === undefined) return undefined;
  const price = parseBid(answer, bounds);
  // A running instance adds the difference; an outbid one starts billing its GPU again at the new bid.
  const adds = outbid ? price : Math.max(0, price - (bid ?? 0));
  if (adds > 0 && !(await deps.allowsSpend(adds, l10n.t('changed: the bid of {0} would be {1}/h', name, formatDollars(price)))))
    return undefined;
  const result = await changeInstanceBid(deps.instances, instance, price);
  return {
    notice: { severity: result.kind === 'done' ? 'info' : 'warning', text: l10n.t('GPU Rental: {0}', result.message) },
    sent: { kind: result.kind, follow: result.kind === 'done' && bidRunsAgain(instance, price) ? 'boot' : 'watch' },
  };
}

/** The offer filters for the same GPU model and count as `instance`. */
function sameGpus(instance: Instance): Record<string, { eq: string | number }> {
  return {
    ...(instance.gpu_name ? { gpu_name: { eq: instance.gpu_name } } : {}),
    ...(instance.num_gpus ? { num_gpus: { eq: instance.num_gpus } } : {}),
  };
}

/** The cheapest on-demand offer of the instance's own machine and GPUs: its on-demand price, when listed. */
export function sameMachineOnDemand(instance: Instance): SearchOffersRequest | undefined {
  if (instance.machine_id === undefined || instance.machine_id === null) return undefined;
  return {
    query: {
      filters: { machine_id: { eq: instance.machine_id }, ...sameGpus(instance) },
      order: [['dph_total', 'asc']],
      type: 'on-demand',
    },
    limit: 1,
  };
}

/** On-demand offers for the same GPU model and count, cheapest first, with the default filters. */
export function onDemandAlternatives(instance: Instance): SearchOffersRequest {
  const defaults = parseQuery('');
  return {
    query: { ...defaults, filters: { ...defaults.filters, ...sameGpus(instance) }, order: [['dph_total', 'asc']], type: 'on-demand' },
    limit: 20,
  };
}

/**
 * Move to On-Demand's pick of `offers`: its title, and a hint that the outbid instance stays, billing
 * its disk, until destroyed. None listed: a notice saying what to do instead.
 */
export function moveToOnDemandQuestion(
  instance: Instance,
  offers: readonly Offer[],
): { notice: BidNotice } | { title: string; placeholder: string } {
  const gpus = gpuSummary(instance);
  if (offers.length === 0)
    return {
      notice: {
        severity: 'info',
        text: l10n.t(
          'GPU Rental: no on-demand {0} offer is listed now. Search the Offers view with other filters, or raise the bid (Change Bid…).',
          gpus,
        ),
      },
    };
  const disk = outbidDiskRate(instance);
  return {
    title: l10n.t('GPU Rental: Move {0} to an on-demand {1}', instanceName(instance), gpus),
    placeholder:
      disk === undefined
        ? l10n.t('The outbid instance is kept, billing its disk, until you destroy it. Copy Folder to Another Instance moves its data.')
        : l10n.t(
            'The outbid instance is kept, billing its disk {0}/h, until you destroy it. Copy Folder to Another Instance moves its data.',
            formatDollars(disk),
          ),
  };
}
