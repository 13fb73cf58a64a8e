import type { Offer } from '../../api/offers';
import { formatDollars } from '../../format';
import { l10n } from '../../l10n';
import { decimalText } from '../../numbers';
import { BID_MIN, RENT_BID_MAX, checkBid, minBidOf, onDemandGpuPerHour, parseBid, suggestBid } from '../bid';
import { BACK, CANCEL, type StepContext, type StepResult, type Steps } from '../steps';

/**
 * The confirmation's rental row, picked: the bid in $/hour for the GPU part, starting a little over
 * the minimum, at least the minimum and at most what the service takes, with the on-demand price
 * beside it. From a bid it first offers to rent on demand instead. Resolves the bid, null for on
 * demand, or BACK/CANCEL.
 */
export async function bidStep(
  steps: Steps,
  ctx: StepContext,
  offer: Offer,
  current: number | undefined,
  bidSearch: boolean,
): Promise<StepResult<number | null>> {
  const minBid = minBidOf(offer) ?? BID_MIN;
  const onDemand = formatDollars(onDemandGpuPerHour(offer, bidSearch));
  if (current !== undefined) {
    const choice = await steps.pick(ctx, {
      placeholder: l10n.t('Interruptible at {0}/h, or on demand at {1}/h', formatDollars(current), onDemand),
      items: [
        { label: l10n.t('$(edit) Change the bid…'), description: l10n.t('minimum now {0}/h', formatDollars(minBid)), value: 'change' },
        {
          label: l10n.t('$(vm) Rent on demand instead'),
          description: l10n.t('{0}/h for the GPU; never outbid', onDemand),
          value: 'onDemand',
        },
      ],
    });
    if (choice === BACK || choice === CANCEL) return choice;
    if (choice === 'onDemand') return null;
  }
  const bounds = { min: minBid, max: RENT_BID_MAX };
  const answer = await steps.input(ctx, {
    prompt: l10n.t(
      'Bid in $/h for the GPU part (minimum now {0}/h, on demand {1}/h). It is stopped when someone bids more; the disk still bills.',
      formatDollars(minBid),
      onDemand,
    ),
    value: decimalText(current ?? suggestBid(minBid)),
    validate: (v) => checkBid(v, bounds),
  });
  if (answer === BACK || answer === CANCEL) return answer;
  return parseBid(answer, bounds);
}
