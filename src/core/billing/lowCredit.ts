import { hoursLeft } from './burn';

export interface LowCreditLimits {
  /** Warn when the credit lasts fewer hours than this at the current rate (0: never). */
  hours: number;
  /** Warn when the credit drops below this many dollars (0: never). */
  amount: number;
}

export type LowCreditWarning =
  | {
      credit: number;
      perHour: number;
      hoursLeft: number;
      /** Which limit was crossed. */
      reason: 'hours' | 'amount';
    }
  | {
      /** The credit is not known while something bills: no limit can be checked, and the user is told so. */
      reason: 'unknown';
      credit: undefined;
      perHour: number;
      hoursLeft: undefined;
    };

/**
 * Decides when to warn about low credit: once when a limit is crossed, not on every poll. It
 * re-arms only after the credit is back above both limits (a top-up). A snooze silences it until
 * a time, after which a credit still low warns again.
 */
export class LowCreditWatch {
  private armed = true;
  /** Whether the "credit unknown" warning was given since the credit was last known. */
  private unknownTold = false;
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

  /**
   * Feeds the latest credit and burn rate; returns a warning to show, at most once per crossing.
   * An unknown credit (undefined) is neither 0 nor plenty: while something bills and a limit is
   * set, it warns once that the limits cannot be checked, and again only after the credit was known.
   */
  update(credit: number | undefined, perHour: number, nowMs: number): LowCreditWarning | undefined {
    const { hours, amount } = this.limits();
    if (credit === undefined) {
      if (this.unknownTold || perHour <= 0 || (hours <= 0 && amount <= 0) || nowMs < this.snoozedUntil) return undefined;
      this.unknownTold = true;
      return { reason: 'unknown', credit: undefined, perHour, hoursLeft: undefined };
    }
    this.unknownTold = false;
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
