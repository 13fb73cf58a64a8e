import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { instanceLabel } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n } from '../l10n';
import type { Logger } from '../log';
import type { Ask } from '../prompts';

/*
 * The editor-side idle stop's decisions: what the countdown says, whether running out of it still
 * stops (a window may have connected, or the GPU woken up, meanwhile), and what the user is told.
 * The ui guard (src/ui/guards/idleGuard.ts) keeps the timers, the poller and the window claims.
 */

/** What the countdown reads and acts through. */
export interface IdleCountdownDeps {
  readonly ask: Pick<Ask, 'countdown'>;
  /** The instance as the service lists it now (after a fresh poll), or undefined when it is gone. */
  reread(id: number): Promise<Instance | undefined>;
  /** Whether a window, terminal or port forward is on the instance now. */
  connected(id: number): boolean;
  stop(id: number): Promise<void>;
  readonly logger: Logger;
}

/** The idle-stop settings the countdown reads. */
export interface IdleSettings {
  readonly idleMs: number;
  readonly countdownSeconds: number;
  readonly gpuThreshold: number;
}

/** How a countdown ended: kept (cancelled), still in use when it ran out, or stopped with what to tell the user. */
export type IdleCountdownOutcome = { kind: 'kept' } | { kind: 'inUse' } | { kind: 'stopped'; notice: string };

/** "RTX 4090 idle for 30 min, stopping in 42 s. …": in minutes, or in seconds below half a minute. */
export function idleCountdownMessage(name: string, idleMs: number, secondsLeft: number): string {
  const minutes = Math.round(idleMs / 60_000);
  return minutes > 0
    ? l10n.t('{0} idle for {1} min, stopping in {2} s. Cancel to keep it running.', name, minutes, secondsLeft)
    : l10n.t('{0} idle for {1} s, stopping in {2} s. Cancel to keep it running.', name, Math.round(idleMs / 1000), secondsLeft);
}

/**
 * Counts an idle instance down. Cancelled: it keeps running (the caller restarts its idle clock).
 * Run out: it is read again and stopped only if it still runs, with the GPU at or below the
 * threshold and nothing connected.
 */
export async function idleCountdown(deps: IdleCountdownDeps, instance: Instance, s: IdleSettings): Promise<IdleCountdownOutcome> {
  const name = instanceLabel(instance);
  const go = await deps.ask.countdown((left) => idleCountdownMessage(name, s.idleMs, left), s.countdownSeconds, l10n.t('Keep Running'));
  if (!go) {
    deps.logger.info(`Idle stop of instance #${instance.id} cancelled; it keeps running.`);
    return { kind: 'kept' };
  }
  const now = await deps.reread(instance.id);
  if (!now || instancePhase(now) !== 'running' || (now.gpu_util ?? 0) > s.gpuThreshold || deps.connected(instance.id)) {
    return { kind: 'inUse' };
  }
  await deps.stop(instance.id);
  deps.logger.info(`Stopped idle instance #${instance.id}.`);
  const notice = now.storage_total_cost
    ? l10n.t(
        'GPU Rental: stopped {0}: it was idle. Its disk still bills {1}/h until you destroy it.',
        name,
        formatDollars(now.storage_total_cost),
      )
    : l10n.t('GPU Rental: stopped {0}: it was idle.', name);
  return { kind: 'stopped', notice };
}

/**
 * What a window on instance `id` says when it loads or reconnects: the phase found, and when the
 * instance is stopped, a notice with a Start button (it is never started without that click).
 */
export function stoppedWindowNotice(id: number, instances: readonly Instance[]): { phase: string; notice?: string } {
  const instance = instances.find((i) => i.id === id);
  const phase = instance ? instancePhase(instance) : 'gone';
  if (!instance || phase !== 'stopped') return { phase };
  const name = instanceLabel(instance);
  const notice = instance.dph_total
    ? l10n.t(
        'GPU Rental: this window is on {0}, which is stopped, so it cannot reconnect. It was not started. Starting it bills {1}/h.',
        name,
        formatDollars(instance.dph_total),
      )
    : l10n.t('GPU Rental: this window is on {0}, which is stopped, so it cannot reconnect. It was not started.', name);
  return { phase, notice };
}
