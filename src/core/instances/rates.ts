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
