import type { Instance } from '../api/instances';
import { instancePhase, isBooting, type InstancePhase } from './phase';
import { l10n } from '../l10n';
import { gpuSummary } from './names';
import { formatClock } from '../format';

/** A boot being watched; saved in global state so a window reload keeps watching. */
export interface BootEntry {
  id: number;
  /** When the boot began, epoch ms. */
  since: number;
}

export interface Booting {
  instance: Instance;
  phase: InstancePhase;
  since: number;
}

export interface BootUpdate {
  booting: Booting[];
  /** Instances that were booting and now run: each is announced once. */
  booted: Instance[];
  /** Watched instances that failed or vanished instead of reaching running. */
  failed: Instance[];
}

/**
 * Follows instances from rent (or start, or reboot) to running, from successive snapshots of the
 * poller. The status bar and the notifications read what `update` returns.
 */
export class BootTracker {
  private readonly entries = new Map<number, number>();
  /** Instances whose sshd answered while the service still called them booting: ready, announced once. */
  private readonly answered = new Set<number>();

  constructor(saved: readonly BootEntry[] = []) {
    for (const e of saved) if (Number.isInteger(e.id) && Number.isFinite(e.since)) this.entries.set(e.id, e.since);
  }

  /** Starts watching an instance the user just rented, started or rebooted. */
  track(id: number, nowMs: number): void {
    this.answered.delete(id);
    if (!this.entries.has(id)) this.entries.set(id, nowMs);
  }

  /**
   * The instance's sshd answered while it boots: it is ready now, whatever the service says yet. It
   * leaves the booting list and is not announced again when the service catches up. False when it
   * was not being watched (already booted, or never seen).
   */
  sshAnswered(id: number): boolean {
    if (!this.entries.delete(id)) return false;
    this.answered.add(id);
    return true;
  }

  update(instances: readonly Instance[], nowMs: number): BootUpdate {
    const result: BootUpdate = { booting: [], booted: [], failed: [] };
    const seen = new Set<number>();
    for (const instance of instances) {
      seen.add(instance.id);
      const phase = instancePhase(instance);
      if (this.answered.has(instance.id)) {
        // Ready by its sshd: the list may say loading a little longer; then it settles quietly.
        if (!isBooting(phase)) this.answered.delete(instance.id);
        continue;
      }
      const since = this.entries.get(instance.id);
      if (isBooting(phase)) {
        const start = since ?? bootStart(instance, phase, nowMs);
        this.entries.set(instance.id, start);
        result.booting.push({ instance, phase, since: start });
      } else if (since !== undefined) {
        this.entries.delete(instance.id);
        if (phase === 'running') result.booted.push(instance);
        else if (phase === 'failed') result.failed.push(instance);
      }
    }
    for (const id of [...this.answered]) if (!seen.has(id)) this.answered.delete(id);
    for (const id of [...this.entries.keys()]) {
      // A tracked instance missing from the list for long was destroyed elsewhere; a fresh one
      // may not be listed yet, so it gets a grace period.
      if (!seen.has(id) && nowMs - this.entries.get(id)! > 120_000) this.entries.delete(id);
    }
    result.booting.sort((a, b) => a.since - b.since);
    return result;
  }

  toJSON(): BootEntry[] {
    return [...this.entries].map(([id, since]) => ({ id, since }));
  }
}

function bootStart(instance: Instance, phase: InstancePhase, nowMs: number): number {
  // A first boot counts from creation; a restart or reboot from when it was first seen.
  if ((phase === 'provisioning' || phase === 'loading') && instance.start_date) {
    const created = instance.start_date * 1000;
    if (created <= nowMs && nowMs - created < 6 * 3600_000) return created;
  }
  return nowMs;
}

export interface BootStatus {
  text: string;
  /** Markdown lines, one per booting instance. */
  tooltip: string;
}

/** `$(loading~spin) RTX 4090: loading 1:20`, or a count when several boot. */
export function bootStatus(booting: readonly Booting[], nowMs: number): BootStatus | undefined {
  if (booting.length === 0) return undefined;
  const line = (b: Booting) => `${b.instance.label || gpuSummary(b.instance)}: ${b.phase} ${formatClock((nowMs - b.since) / 1000)}`;
  const first = booting[0]!;
  const text =
    booting.length === 1 ? `$(loading~spin) ${line(first)}` : l10n.t('$(loading~spin) {0} booting, {1}', booting.length, line(first));
  const tooltip = [l10n.t('**Booting**'), '', ...booting.map((b) => `- #${b.instance.id} ${line(b)}`)].join('\n');
  return { text, tooltip };
}
