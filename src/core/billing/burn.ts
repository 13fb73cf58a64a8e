import type { Instance } from '../api/instances';
import { instancePhase, type InstancePhase } from '../instances/phase';
import { currentRate, instanceLabel } from '../instances/present';
import { l10n } from '../l10n';

/** One instance's part of the hourly spend. */
export interface BurnShare {
  id: number;
  name: string;
  phase: InstancePhase;
  perHour: number;
  /** `compute`: a running (or booting) instance's full rate; `storage`: a stopped or failed one's disk. */
  kind: 'compute' | 'storage';
}

export interface Burn {
  perHour: number;
  computePerHour: number;
  storagePerHour: number;
  /** Largest first. */
  shares: BurnShare[];
  /** Failed instances that never recover and still bill for their disk until destroyed. */
  failed: BurnShare[];
}

/** What the account spends per hour right now, from the instance list alone. */
export function burnRate(instances: readonly Instance[]): Burn {
  const shares: BurnShare[] = [];
  for (const i of instances) {
    const phase = instancePhase(i);
    if (phase === 'gone') continue;
    const perHour = currentRate(i, phase) ?? 0;
    const kind = phase === 'stopped' || phase === 'failed' ? 'storage' : 'compute';
    shares.push({ id: i.id, name: instanceLabel(i), phase, perHour, kind });
  }
  shares.sort((a, b) => b.perHour - a.perHour || a.id - b.id);
  const sum = (k: BurnShare['kind']) => shares.filter((s) => s.kind === k).reduce((t, s) => t + s.perHour, 0);
  const computePerHour = sum('compute');
  const storagePerHour = sum('storage');
  return {
    perHour: computePerHour + storagePerHour,
    computePerHour,
    storagePerHour,
    shares,
    failed: shares.filter((s) => s.phase === 'failed'),
  };
}

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
