import { rentConfirmation } from '../confirmation';
import type { RentPlan } from '../plan';
import { BACK, CANCEL } from '../steps';
import { bidStep } from './bid';
import { envStep } from './env';
import type { StepMove, WizardState } from './state';
import { volumeStep } from './volume';

const STEP = 6;

/**
 * Step 6: the confirmation with the full price (see `rentConfirmation`). Its rows change the bid,
 * the idle stop, the variables or the volume and come back here; its first row rents.
 */
export async function confirmStep(state: WizardState): Promise<StepMove> {
  const { input, ports } = state;
  const plan = state.plan as RentPlan;
  const ctx = state.ctx(STEP);
  const volumes = input.volumeChoices;
  const confirmation = rentConfirmation({
    offer: input.offer,
    plan,
    credit: input.credit,
    templateMode: plan.template ? await state.modeOf(plan.template) : undefined,
    priceStats: input.priceStats,
    bidSearch: input.bidSearch,
    failover: input.failover?.(plan),
    volume: volumes ? (state.volume ?? 'none') : undefined,
    clusterNodes: input.clusterNodes,
  });
  const r = await ports.steps.pick(ctx, { placeholder: confirmation.placeholder, items: confirmation.rows });
  switch (r) {
    case BACK:
    case CANCEL:
      return r;
    case 'rent':
      return 'next';
    case 'bid': {
      const chosen = await bidStep(ports.steps, ctx, input.offer, plan.bid, input.bidSearch ?? false);
      if (chosen === CANCEL) return CANCEL;
      if (chosen !== BACK) plan.bid = chosen ?? undefined;
      return 'again';
    }
    case 'volume': {
      const chosen = await volumeStep(ports.steps, ctx, volumes ? await volumes() : []);
      if (chosen === CANCEL) return CANCEL;
      if (chosen !== BACK) {
        plan.volume = chosen?.attachment;
        state.volume = chosen ?? undefined;
      }
      return 'again';
    }
    case 'env': {
      const names = await input.accountSecretNames?.().catch(() => undefined);
      plan.env = await envStep(ports.steps, ctx, plan.env ?? {}, names);
      return 'again';
    }
    case 'toggleIdle':
      // The toggle row: flip it and show the confirmation again.
      plan.idleStopMinutes = plan.idleStopMinutes ? 0 : input.idleStopMinutes || 30;
      return 'again';
  }
}
