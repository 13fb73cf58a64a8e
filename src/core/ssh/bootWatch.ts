import type { Instance } from '../api/instances';
import { Emitter, type Disposable } from '../events';
import { BootTracker, type BootEntry, type Booting } from '../instances/boot';
import { realTimers, type InstancePoller, type Timers } from '../instances/poller';
import { silentLogger, type Logger } from '../log';
import { SshReadyProbe, type ProbeTiming, type ReadBanner } from './bootReady';

/** How a boot ended ready: the service said running, or the instance's sshd answered first. */
export type ReadyBy = 'running' | 'sshd';

export interface BootedInstance {
  readonly instance: Instance;
  readonly by: ReadyBy;
}

/** What the boot watcher tells the status bar after each snapshot, and at once when an sshd answers. */
export interface BootChange {
  /** The latest snapshot's instances (the ui points out failed ones among them). */
  readonly instances: readonly Instance[];
  /** The boots still going, oldest first. */
  readonly booting: readonly Booting[];
  /** Instances that became ready since the last change: each is in one change only. */
  readonly booted: readonly BootedInstance[];
}

export interface BootWatchOptions {
  readonly poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'watch'>;
  /** Boots a window saved before it reloaded. */
  readonly saved?: readonly BootEntry[];
  /** Reads an SSH banner; absent, no probe runs and a boot is ready when the service says running. */
  readonly readBanner?: ReadBanner;
  readonly timers?: Timers;
  readonly logger?: Logger;
  readonly timing?: Partial<ProbeTiming>;
}

/**
 * Follows boots from rent (or start) to ready. A boot is ready at whichever comes first: a snapshot
 * in which the service says running, or a banner from the instance's sshd at the address its record
 * gives. The second needs no request: the probe reads addresses from snapshots the poller already
 * has. When it answers, the poller is asked to refresh once, so the record catches up; that is the
 * request the next poll would have made, made now, and the poller counts its next interval from it.
 */
export class BootWatch implements Disposable {
  private readonly changed = new Emitter<BootChange>();
  readonly onDidChange = this.changed.event;
  private readonly tracker: BootTracker;
  private readonly probe: SshReadyProbe | undefined;
  private readonly timers: Timers;
  private readonly subscription: Disposable;
  private instances: readonly Instance[] = [];
  private booting: readonly Booting[] = [];

  constructor(private readonly options: BootWatchOptions) {
    this.timers = options.timers ?? realTimers;
    const saved = options.saved ?? [];
    this.tracker = new BootTracker(saved);
    for (const entry of saved) options.poller.watch(entry.id);
    const logger = options.logger ?? silentLogger;
    if (options.readBanner) {
      const readBanner = options.readBanner;
      const { timers, timing } = options;
      this.probe = new SshReadyProbe({ readBanner, timers, timing, logger, onReady: (instance) => this.answered(instance) });
    }
    this.subscription = options.poller.onDidUpdate((snapshot) => this.update(snapshot.instances));
  }

  /** The boots going on now, oldest first. */
  get current(): readonly Booting[] {
    return this.booting;
  }

  /** The ids being probed now (tests, the log). */
  get probing(): number[] {
    return this.probe?.probing ?? [];
  }

  /** What to save so a reloaded window keeps watching. */
  entries(): BootEntry[] {
    return this.tracker.toJSON();
  }

  /** The user rented, started or rebooted this instance: watch it until it is ready. */
  track(id: number): void {
    this.tracker.track(id, this.timers.now());
    // A reboot or a start is a new boot: a probe of the old one (if any) starts over at the next snapshot.
    this.probe?.forget(id);
    this.options.poller.watch(id);
  }

  dispose(): void {
    this.subscription.dispose();
    this.probe?.dispose();
    this.changed.dispose();
  }

  private update(instances: readonly Instance[]): void {
    const result = this.tracker.update(instances, this.timers.now());
    this.instances = instances;
    this.booting = result.booting;
    this.probe?.follow(result.booting.map((b) => b.instance));
    this.changed.fire({ instances, booting: this.booting, booted: result.booted.map((instance) => ({ instance, by: 'running' })) });
  }

  private answered(instance: Instance): void {
    if (!this.tracker.sshAnswered(instance.id)) return;
    this.booting = this.booting.filter((b) => b.instance.id !== instance.id);
    this.changed.fire({ instances: this.instances, booting: this.booting, booted: [{ instance, by: 'sshd' }] });
    void this.options.poller.refresh();
  }
}
