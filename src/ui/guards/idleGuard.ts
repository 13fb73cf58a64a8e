import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { IdleTracker } from '../../core/idle/idleTracker';
import { idleCountdown, stoppedWindowNotice } from '../../core/idle/countdown';
import { COMMANDS } from '../../core/ids';
import { HEARTBEAT_MS, WindowClaims } from '../../core/idle/windowClaims';
import { config } from '../host/config';
import { progressCountdown } from '../pickers/prompts';
import type { Session } from '../../core/session/session';
import type { InstancePoller } from '../../core/instances/poller';
import type { PortForwards } from '../../core/ssh/forward';
import type { GpuRentalState } from '../../core/stored';
import type { Logger } from '../../core/log';
import type { Prompts } from '../pickers/prompts';
import { instanceIdOfAlias, windowAlias } from '../host/remote';

const CHECK_MS = 20_000;

/**
 * The editor-side idle stop. Windows connected to an instance say so every minute (in global
 * state, shared by all windows); SSH terminals and port forwards of this window count too. A
 * running instance with none of these and a GPU at or below the threshold for the idle time gets
 * a cancellable countdown ("idle for 30 min, stopping in 60 s"); cancelling keeps it running for
 * another idle period. Only one window counts down for an instance at a time.
 */
/** What the idle guard reads and acts through. */
export interface IdleGuardDeps {
  readonly session: Session;
  readonly poller: InstancePoller;
  readonly forwards: PortForwards;
  readonly state: GpuRentalState;
  /** A getter: integration tests replace the prompts (and their countdown) at run time. */
  readonly prompts: () => Prompts;
  readonly logger: Logger;
}

export class IdleGuard implements vscode.Disposable {
  private readonly tracker = new IdleTracker();
  private readonly timers: Array<ReturnType<typeof setInterval>> = [];
  private readonly disposables: vscode.Disposable[] = [];
  private counting = false;
  /** The heartbeats and the countdown claim this window shares with the others. */
  private readonly claims: WindowClaims;
  /** Terminals this window opened on instances. */
  readonly terminals = new Map<vscode.Terminal, number>();
  /** Instances stopped by a countdown here, for tests. */
  readonly stopped: number[] = [];

  constructor(private readonly s: IdleGuardDeps) {
    this.claims = new WindowClaims(s.state, vscode.env.sessionId);
    this.disposables.push(
      s.poller.onDidUpdate((snapshot) => void this.check(snapshot.instances)),
      vscode.window.onDidCloseTerminal((t) => this.terminals.delete(t)),
    );
    this.timers.push(setInterval(() => void this.check(s.poller.snapshot?.instances ?? []), CHECK_MS));
    const id = instanceIdOfAlias(windowAlias());
    if (id !== undefined) {
      this.startHeartbeat(id);
      // A reload, or Remote-SSH reconnecting, of a window on a stopped instance: explain, never start.
      const once = s.poller.onDidUpdate((snapshot) => {
        once.dispose();
        void this.explainStopped(id, snapshot.instances);
      });
      this.disposables.push(once);
    }
  }

  /**
   * Run in a window connected to instance `id`. When it is stopped, says so and offers a Start button
   * (starting takes that click); it never starts it by itself. Resolves with the phase it found.
   */
  explainStopped(id: number, instances: readonly Instance[]): Promise<string> {
    const { phase, notice } = stoppedWindowNotice(id, instances);
    if (notice)
      void vscode.window.showWarningMessage(notice, vscode.l10n.t('Start…')).then((c) => {
        if (c) void vscode.commands.executeCommand(COMMANDS.startInstance, id);
      });
    return Promise.resolve(phase);
  }

  /** This window is connected to `id`: say so now and every minute, until it closes. */
  startHeartbeat(id: number): void {
    const beat = () => void this.claims.heartbeat(id, Date.now());
    beat();
    this.timers.push(setInterval(beat, HEARTBEAT_MS));
    this.disposables.push({ dispose: () => void this.claims.disconnect(id) });
  }

  /** Ids with a connected window (any window), an SSH terminal or a forward of this window. */
  connected(nowMs: number): Set<number> {
    const ids = this.claims.connected(nowMs);
    for (const id of this.terminals.values()) ids.add(id);
    for (const f of this.s.forwards.list()) ids.add(f.instanceId);
    return ids;
  }

  /** Looks for idle instances; counts one down at a time. */
  async check(instances: readonly Instance[], nowMs = Date.now()): Promise<void> {
    if (!config.idleStopEnabled() || this.counting || this.s.session.state.kind !== 'ready') return;
    const idleMs = config.idleStopMinutes() * 60_000;
    const idle = this.tracker.update(instances, this.connected(nowMs), { nowMs, idleMs, gpuThreshold: config.idleGpuThreshold() });
    const id = idle[0];
    if (id === undefined) return;
    const instance = instances.find((i) => i.id === id);
    // One window counts down per instance: the first to write its claim.
    if (!instance || !(await this.claims.claimCountdown(id, nowMs, config.idleCountdownSeconds() * 1000))) return;
    this.counting = true;
    try {
      await this.countDown(instance, idleMs);
    } finally {
      this.counting = false;
      await this.claims.releaseCountdown();
    }
  }

  dispose(): void {
    for (const t of this.timers) clearInterval(t);
    for (const d of this.disposables) d.dispose();
  }

  private async countDown(instance: Instance, idleMs: number): Promise<void> {
    const { poller, session } = this.s;
    const ask = { countdown: this.s.prompts().countdown ?? progressCountdown };
    const deps = {
      ask,
      reread: async (id: number) => (await poller.refresh(), poller.snapshot?.instances.find((i) => i.id === id)),
      connected: (id: number) => this.connected(Date.now()).has(id),
      stop: (id: number) => session.client.instances.stop(id),
      logger: this.s.logger,
    };
    const settings = { idleMs, countdownSeconds: config.idleCountdownSeconds(), gpuThreshold: config.idleGpuThreshold() };
    const outcome = await idleCountdown(deps, instance, settings);
    if (outcome.kind === 'kept') this.tracker.touch(instance.id, Date.now());
    if (outcome.kind !== 'stopped') return;
    this.stopped.push(instance.id);
    await poller.refresh();
    void vscode.window.showInformationMessage(outcome.notice);
  }
}
