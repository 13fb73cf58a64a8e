import { formatDollars } from '../format';
import { l10n, sentences } from '../l10n';
import type { Notice } from '../notice';
import { checkSpendCap, formatHours } from './burn';
import type { LowCreditWarning } from './lowCredit';

/*
 * What the money safeguards tell the user: the spend cap's refusal and the low-credit warnings,
 * with their buttons as ids. The ui (src/ui/guards/spendGuard.ts) shows them and runs what was picked.
 */

/** A button of a money notice: the ui runs what each id names. */
export type SpendButton = 'Open Settings' | 'Show Instances' | 'Snooze 1 Hour' | 'Snooze 1 Day';

/** A notice to show: its severity, text and buttons. */
export interface SpendNotice extends Notice<SpendButton> {
  readonly severity: 'error' | 'warning';
  readonly actions: readonly SpendButton[];
}

/** How long each snooze button silences the low-credit warning. */
export const SNOOZE_MS: Partial<Record<SpendButton, number>> = { 'Snooze 1 Hour': 3_600_000, 'Snooze 1 Day': 86_400_000 };

/** What a button says, in the display language. */
export function spendButtonLabel(button: SpendButton): string {
  switch (button) {
    case 'Open Settings':
      return l10n.t('Open Settings');
    case 'Show Instances':
      return l10n.t('Show Instances');
    case 'Snooze 1 Hour':
      return l10n.t('Snooze 1 Hour');
    case 'Snooze 1 Day':
      return l10n.t('Snooze 1 Day');
  }
}

/**
 * The refusal when `addPerHour` more would go over `gpuRental.maxHourlySpend` (`cap`), counted
 * against `nowPerHour`; undefined when it fits (or there is no cap). `what` is what was not done.
 */
export function spendCapRefusal(nowPerHour: number, addPerHour: number, cap: number | undefined, what: string): SpendNotice | undefined {
  if (cap === undefined) return undefined;
  const check = checkSpendCap(nowPerHour, addPerHour, cap);
  if (check.allowed) return undefined;
  const text = sentences(
    l10n.t('GPU Rental: not {0}.', what),
    l10n.t(
      'It would bring the hourly spend to {0}/h ({1}/h now + {2}/h), over your cap of {3}/h set in gpuRental.maxHourlySpend.',
      formatDollars(check.total),
      formatDollars(nowPerHour),
      formatDollars(addPerHour),
      formatDollars(cap),
    ),
    l10n.t('Stop something first, or raise the cap.'),
  );
  return { severity: 'error', text, actions: ['Open Settings'] };
}

/** The warning for a low (or unknown) credit; `amountLimit` is the gpuRental.lowCredit.amount setting. */
export function lowCreditNotice(w: LowCreditWarning, amountLimit: number): SpendNotice {
  if (w.reason === 'unknown') {
    return {
      severity: 'warning',
      text: l10n.t(
        "GPU Rental: the service did not report the account's credit, so GPU Rental cannot warn when it runs low. Instances bill {0}/h now; check the credit on the service's web console.",
        formatDollars(w.perHour),
      ),
      actions: ['Show Instances'],
    };
  }
  const why =
    w.reason === 'amount'
      ? l10n.t('the credit is down to {0}, below your {1} limit', formatDollars(w.credit), formatDollars(amountLimit))
      : l10n.t('at {0}/h the credit of {1} lasts about {2}', formatDollars(w.perHour), formatDollars(w.credit), formatHours(w.hoursLeft));
  const text =
    w.perHour > 0
      ? l10n.t(
          'GPU Rental: low credit: {0}. When it runs out, running instances are stopped. Add credit, or stop what you do not need.',
          why,
        )
      : l10n.t('GPU Rental: low credit: {0}. Add credit, or stop what you do not need.', why);
  return { severity: 'warning', text, actions: ['Show Instances', 'Snooze 1 Hour', 'Snooze 1 Day'] };
}
