/** What the account's burn rate (`burnRate`, src/core/instances/rates.ts) means for its credit and for the spend cap. */
import { l10n } from '../l10n';

/** Hours until `credit` runs out at `perHour`; Infinity when nothing bills. */
export function hoursLeft(credit: number, perHour: number): number {
  if (perHour <= 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, credit) / perHour;
}

/** "3 d 4 h", "5 h 12 min", "40 min", "under a minute". */
export function formatHours(hours: number): string {
  if (!Number.isFinite(hours)) return 'indefinitely';
  const minutes = Math.floor(hours * 60);
  if (minutes < 1) return l10n.t('under a minute');
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return h ? `${d} d ${h} h` : `${d} d`;
  if (h > 0) return m ? `${h} h ${m} min` : `${h} h`;
  return `${m} min`;
}

/** A rent or start refused by the `gpuRental.maxHourlySpend` cap. */
export interface CapCheck {
  allowed: boolean;
  /** The total after the change. */
  total: number;
}

/** Whether adding `addPerHour` to what already burns stays within `cap` (no cap: always). */
export function checkSpendCap(currentPerHour: number, addPerHour: number, cap: number | undefined): CapCheck {
  const total = currentPerHour + addPerHour;
  return { allowed: cap === undefined || cap <= 0 || total <= cap + 1e-9, total };
}
