import type { Instance } from '../api/instances';
import { instanceLabel } from './names';
import { instancePhase, type InstancePhase } from './phase';

/** What starting a stopped instance adds per hour: its whole rate less the disk, which bills while it is stopped too. */
export function startAddsPerHour(instance: Pick<Instance, 'dph_total' | 'storage_total_cost'>): number {
  return Math.max(0, (instance.dph_total ?? 0) - (instance.storage_total_cost ?? 0));
}

/** What the instance costs per hour in its current phase: everything while it runs, storage while it does not. */
export function currentRate(instance: Instance, phase = instancePhase(instance)): number | undefined {
  if (phase === 'gone') return 0;
  if (phase === 'stopped' || phase === 'failed') return instance.storage_total_cost ?? undefined;
  return instance.dph_total ?? undefined;
}

/** One instance's part of the hourly spend. */
export interface BurnShare {
  id: number;
  name: string;
  phase: InstancePhase;
  perHour: number;
  /** `compute`: a running (or booting) instance's full rate; `storage`: a stopped or failed one's disk. */
  kind: 'compute' | 'storage';
}

/** The most instances a burn names one by one (the account's tooltip lists them): the rest are summed. */
const TOP_SHARES = 10;

export interface Burn {
  perHour: number;
  computePerHour: number;
  storagePerHour: number;
  /** The instances that bill, largest first: at most TOP_SHARES. */
  shares: BurnShare[];
  /** The instances that bill and are not among `shares`: how many, and what they add up to. */
  rest: { count: number; perHour: number };
  /** Failed instances that never recover and still bill for their disk until destroyed. */
  failed: BurnShare[];
}

/**
 * What the account spends per hour right now, from the instance list alone. It runs on every
 * poll: one pass over the list, and only the largest TOP_SHARES (and the failed) are named.
 */
export function burnRate(instances: readonly Instance[]): Burn {
  let computePerHour = 0;
  let storagePerHour = 0;
  let billing = 0;
  const top: Array<{ i: Instance; phase: InstancePhase; perHour: number }> = [];
  const failed: BurnShare[] = [];
  const ahead = (a: { i: Instance; perHour: number }, b: { i: Instance; perHour: number }) =>
    a.perHour > b.perHour || (a.perHour === b.perHour && a.i.id < b.i.id);
  for (const i of instances) {
    const phase = instancePhase(i);
    if (phase === 'gone') continue;
    const perHour = currentRate(i, phase) ?? 0;
    if (phase === 'stopped' || phase === 'failed') storagePerHour += perHour;
    else computePerHour += perHour;
    if (phase === 'failed') failed.push(shareOf(i, phase, perHour));
    if (perHour <= 0) continue;
    billing++;
    const entry = { i, phase, perHour };
    if (top.length === TOP_SHARES && !ahead(entry, top[TOP_SHARES - 1]!)) continue;
    let k = Math.min(top.length, TOP_SHARES - 1);
    while (k > 0 && ahead(entry, top[k - 1]!)) k--;
    top.splice(k, 0, entry);
    if (top.length > TOP_SHARES) top.pop();
  }
  const shares = top.map((t) => shareOf(t.i, t.phase, t.perHour));
  const named = shares.reduce((sum, s) => sum + s.perHour, 0);
  return {
    perHour: computePerHour + storagePerHour,
    computePerHour,
    storagePerHour,
    shares,
    rest:
      billing > shares.length
        ? { count: billing - shares.length, perHour: Math.max(0, computePerHour + storagePerHour - named) }
        : { count: 0, perHour: 0 },
    failed: failed.sort((a, b) => b.perHour - a.perHour || a.id - b.id),
  };
}

function shareOf(i: Instance, phase: InstancePhase, perHour: number): BurnShare {
  return { id: i.id, name: instanceLabel(i), phase, perHour, kind: phase === 'stopped' || phase === 'failed' ? 'storage' : 'compute' };
}
