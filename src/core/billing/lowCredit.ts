import { hoursLeft } from './burn';

export interface LowCreditLimits {
  /** Warn when the credit lasts fewer hours than this at the current rate (0: never). */
  hours: number;
  /** Warn when the credit drops below this many dollars (0: never). */
  amount: number;
}

export interface LowCreditWarning {
  credit: number;
  perHour: number;
  hoursLeft: number;
  /** Which limit was crossed. */
  reason: 'hours' | 'amount';
}

/**
 * Decides when to warn about low credit: once when a limit is crossed, not on every poll. It
 * re-arms only after the credit is back above both limits (a top-up). A snooze silences it until
 * a time, after which a credit still low warns again.
 */
export class LowCreditWatch {
  private armed = true;
  private snoozedUntil = 0;

  constructor(private limits: () => LowCreditLimits) {}

  /** Silences warnings until `untilMs`; a low credit then warns again. */
  snooze(untilMs: number): void {
    this.snoozedUntil = untilMs;
    this.armed = true;
  }

  get snoozeEnd(): number {
    return this.snoozedUntil;
  }

  /** Feeds the latest credit and burn rate; returns a warning to show, at most once per crossing. */
  update(credit: number, perHour: number, nowMs: number): LowCreditWarning | undefined {
    const { hours, amount } = this.limits();
    const left = hoursLeft(credit, perHour);
    const reason = amount > 0 && credit < amount ? 'amount' : hours > 0 && left < hours ? 'hours' : undefined;
    if (!reason) {
      this.armed = true;
      return undefined;
    }
    if (!this.armed || nowMs < this.snoozedUntil) return undefined;
    this.armed = false;
    return { credit, perHour, hoursLeft: left, reason };
  }
}
