/**
 * Accept or Reject a host's price increase: confirmed with the numbers, sent with exactly the body
 * the service accepts, and told as the service answers. A row no longer pending (accepted, rejected
 * or expired meanwhile: 404 `no_pending_price_increase`, 409 on older servers) reads "nothing
 * pending any more". An answer not seen is never taken as nothing done: the listing is read again
 * and says whether the increase is still pending.
 */
import type { ContractsApi } from '../api/contracts';
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { outcomeUnseen } from '../instances/actions';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import type { Notice } from '../notice';
import type { Ask } from '../prompts';
import { increaseDetail, totals, utcDate, type PriceIncrease } from './increase';

export interface AnswerIncreaseDeps {
  ask: Pick<Ask, 'confirm'>;
  contracts: Pick<ContractsApi, 'acceptIncrease' | 'rejectIncrease' | 'pendingIncreases'>;
}

/** How an answer ended, for the caller to refresh what it shows. */
export interface AnswerEnd {
  readonly notice: Notice;
  /** Whether the service may have changed the contract (the rows must be read again). */
  readonly sent: boolean;
}

export async function answerIncreaseFlow(
  deps: AnswerIncreaseDeps,
  how: 'accept' | 'reject',
  inc: PriceIncrease,
  instance: Instance | undefined,
): Promise<AnswerEnd | undefined> {
  const name = instance ? instanceName(instance) : l10n.t('instance #{0}', inc.instanceId);
  const { old, next } = totals(inc);
  const prices = old !== undefined && next !== undefined ? `${formatDollars(old)}/h → ${formatDollars(next)}/h` : undefined;
  const from = inc.startsAt === undefined ? undefined : utcDate(inc.startsAt);
  const question =
    how === 'accept'
      ? prices
        ? l10n.t('Accept the higher price for {0} ({1})?', name, prices)
        : l10n.t('Accept the higher price for {0}?', name)
      : prices
        ? l10n.t('Reject the higher price for {0} ({1})?', name, prices)
        : l10n.t('Reject the higher price for {0}?', name);
  const detail = [
    increaseDetail(inc),
    '',
    how === 'accept'
      ? from
        ? l10n.t('From {0} the instance bills at the new price.', from)
        : l10n.t('The instance bills at the new price once its contract ends.')
      : from
        ? l10n.t('Nothing changes on the contract: it still ends on {0}.', from)
        : l10n.t('Nothing changes on the contract.'),
  ].join('\n');
  const button = how === 'accept' ? l10n.t('Accept Increase') : l10n.t('Reject Increase');
  if (!(await deps.ask.confirm(question, detail, button))) return undefined;
  try {
    const answer = how === 'accept' ? await deps.contracts.acceptIncrease(inc.id) : await deps.contracts.rejectIncrease(inc.id);
    if (answer.kind === 'notPending')
      return {
        sent: true,
        notice: {
          severity: 'info',
          text: l10n.t(
            'GPU Rental: nothing pending any more on {0}: the increase was answered or expired meanwhile. The row shows what the service says now.',
            name,
          ),
        },
      };
    return {
      sent: true,
      notice: {
        severity: 'info',
        text:
          how === 'accept'
            ? from && next !== undefined
              ? l10n.t('GPU Rental: accepted. {0} bills {1}/h from {2}.', name, formatDollars(next), from)
              : l10n.t('GPU Rental: accepted the higher price for {0}.', name)
            : from
              ? l10n.t('GPU Rental: rejected. {0} keeps its price; its contract still ends on {1}.', name, from)
              : l10n.t('GPU Rental: rejected. {0} keeps its price.', name),
      },
    };
  } catch (error) {
    if (!outcomeUnseen(error)) throw error;
    return { sent: true, notice: await unseen(deps, inc, name, error) };
  }
}

/** The answer was not seen: the listing says whether the increase is still pending. */
async function unseen(deps: AnswerIncreaseDeps, inc: PriceIncrease, name: string, error: unknown): Promise<Notice> {
  const short = error instanceof Error ? error.message : String(error);
  const listed = await deps.contracts.pendingIncreases().catch(() => undefined);
  if (!listed)
    return {
      severity: 'warning',
      text: l10n.t(
        "GPU Rental: it is not known whether the service took your answer on {0}: the answer was lost ({1}) and the hosts' price increases could not be listed. Refresh the Instances view to see whether it is still pending.",
        name,
        short,
      ),
    };
  const still = listed.rows.some((r) => r.pending_price_increase_id === inc.id);
  return {
    severity: 'warning',
    text: still
      ? l10n.t(
          'GPU Rental: the answer on {0} was lost ({1}) and the increase is still pending: your answer was not taken. Answer it again.',
          name,
          short,
        )
      : l10n.t(
          'GPU Rental: the answer on {0} was lost ({1}), but the increase is no longer pending: the service has an answer for it. The row shows what the service says now.',
          name,
          short,
        ),
  };
}
