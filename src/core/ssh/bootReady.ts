import type { Instance } from '../api/instances';
import type { Disposable } from '../events';
import { instancePhase, type InstancePhase } from '../instances/phase';
import { realTimers, type Timers } from '../instances/poller';
import { sshEndpoint, type SshEndpoint } from '../instances/ssh';
import { silentLogger, type Logger } from '../log';

/**
 * "Ready the moment sshd answers": while an instance boots, its SSH address is probed with a banner
 * read, so the boot watcher can say it is ready without waiting for the next poll. The probe makes
 * no API request; it reads the address from the records the poller already has.
 */

/** One banner read (core/ssh/probe.ts `readBanner`): resolves the `SSH-…` line, rejects on anything else. */
export type ReadBanner = (host: string, port: number, options: { timeoutMs: number; signal: AbortSignal }) => Promise<string>;

/** How often the probe knocks. */
export interface ProbeTiming {
  /** From the start of the first attempt to the start of the second; it doubles after each failure... */
  readonly firstDelayMs: number;
  /**
   * ...up to this. It bounds how late "ready" can be: sshd may start listening just after an
   * attempt, and is found by the next one (plus the banner's own few milliseconds).
   */
  readonly maxDelayMs: number;
  /** One attempt's limit, for an address that accepts and then says nothing. */
  readonly attemptTimeoutMs: number;
  /** An instance no snapshot has listed for this long (signed out, no polls) is no longer probed. */
  readonly staleAfterMs: number;
  /** A boot still not answering after this long (an image pull, a slow host) is knocked on at `slowDelayMs` only. */
  readonly fastForMs: number;
  readonly slowDelayMs: number;
}

/**
 * The second attempt starts 100 ms after the first, the rest 150 ms apart: sshd is found within
 * 150 ms of listening, plus the banner (10 to 20 ms from the simulator's sshd), so "ready" stays
 * under the 250 ms target with room for a busy machine (test/bench/bootReady.bench.ts; a 1 s cap
 * measured about 1 s worst). The price is under seven connection attempts a second to each
 * booting instance's SSH address, and none to the API.
 */
export const PROBE_TIMING: ProbeTiming = {
  firstDelayMs: 100,
  maxDelayMs: 150,
  attemptTimeoutMs: 1_000,
  staleAfterMs: 10 * 60_000,
  // Most boots answer within two minutes of the address appearing; a longer one (a large image) is
  // found up to 2 s late instead of knocking seven times a second on the service's SSH proxy for minutes.
  fastForMs: 120_000,
  slowDelayMs: 2_000,
};

export interface SshReadyProbeOptions {
  readonly readBanner: ReadBanner;
  /** Called once per probe, when the banner arrives, with the latest record the probe was given. */
  readonly onReady: (instance: Instance, banner: string) => void;
  readonly timers?: Timers;
  readonly logger?: Logger;
  readonly timing?: Partial<ProbeTiming>;
}

/**
 * The phases worth probing: a container on its way up whose sshd is new. Not `rebooting`: the
 * container being rebooted may still answer with its old sshd, which would say ready too early.
 */
const PROBED: ReadonlySet<InstancePhase> = new Set<InstancePhase>(['provisioning', 'loading', 'starting']);

/** Where the probe knocks for this record, or undefined: not booting, no address yet, an unusable one, or no sshd launched. */
export function probeTarget(instance: Instance): SshEndpoint | undefined {
  if (!PROBED.has(instancePhase(instance))) return undefined;
  // An `args` launch runs the image's own entry point: the service starts no sshd in it.
  const runtype = instance.image_runtype;
  if (typeof runtype === 'string' && runtype.trim() !== '' && !/ssh|jupyter/i.test(runtype)) return undefined;
  try {
    return sshEndpoint(instance);
  } catch {
    // An address that cannot reach ssh is never knocked on; Connect says what is wrong with it.
    return undefined;
  }
}

/** Why a probe ended without a banner, for the log: a new address, not booting any more, no snapshot for long, or told to. */
type EndReason = 'moved' | 'unlisted' | 'stale' | 'forgotten' | 'disposed';

interface Probe {
  instance: Instance;
  readonly endpoint: SshEndpoint;
  readonly key: string;
  /** From this attempt's start to the next one's, after a failure. */
  delayMs: number;
  /** When the attempt in flight (or the last one) started, and when the first one did. */
  startedAt: number;
  readonly begunAt: number;
  attempts: number;
  /** When a snapshot last listed it (timers' clock). */
  seenAt: number;
  timer: unknown;
  /** Set while an attempt is in flight: at most one per instance. */
  abort: AbortController | undefined;
}

/**
 * Probes the SSH address of each booting instance it is shown: at once, then with backoff, one
 * attempt in flight per instance, until the banner arrives (`onReady`, once) or the instance stops
 * being shown, its address changes (the probe starts over at the new one), `forget` or `dispose`.
 */
export class SshReadyProbe implements Disposable {
  private readonly probes = new Map<number, Probe>();
  private readonly timers: Timers;
  private readonly timing: ProbeTiming;
  private readonly logger: Logger;
  private disposed = false;

  constructor(private readonly options: SshReadyProbeOptions) {
    this.timers = options.timers ?? realTimers;
    this.timing = { ...PROBE_TIMING, ...options.timing };
    this.logger = options.logger ?? silentLogger;
  }

  /** The ids being probed now, for tests and the log. */
  get probing(): number[] {
    return [...this.probes.keys()];
  }

  /** The booting instances of the latest snapshot: new ones start, gone ones end, the rest keep their pace. */
  follow(instances: readonly Instance[]): void {
    if (this.disposed) return;
    const now = this.timers.now();
    const shown = new Set<number>();
    for (const instance of instances) {
      const endpoint = probeTarget(instance);
      if (!endpoint) continue;
      shown.add(instance.id);
      const key = `${endpoint.host}:${endpoint.port}`;
      const probe = this.probes.get(instance.id);
      if (probe?.key === key) {
        probe.instance = instance;
        probe.seenAt = now;
        continue;
      }
      if (probe) this.end(probe, 'moved');
      this.begin(instance, endpoint, key, now);
    }
    for (const probe of [...this.probes.values()]) if (!shown.has(probe.instance.id)) this.end(probe, 'unlisted');
  }

  /** Stops probing one instance now (stopped, destroyed, or its boot announced some other way). */
  forget(id: number): void {
    const probe = this.probes.get(id);
    if (probe) this.end(probe, 'forgotten');
  }

  dispose(): void {
    this.disposed = true;
    for (const probe of [...this.probes.values()]) this.end(probe, 'disposed');
  }

  private begin(instance: Instance, endpoint: SshEndpoint, key: string, now: number): void {
    const probe: Probe = {
      instance,
      endpoint,
      key,
      delayMs: this.timing.firstDelayMs,
      attempts: 0,
      startedAt: now,
      begunAt: now,
      seenAt: now,
      timer: undefined,
      abort: undefined,
    };
    this.probes.set(instance.id, probe);
    this.logger.debug(`Boot: probing SSH of #${instance.id} at ${key} (${endpoint.via}) until its sshd answers.`);
    this.attempt(probe);
  }

  private attempt(probe: Probe): void {
    probe.timer = undefined;
    if (this.probes.get(probe.instance.id) !== probe) return;
    if (this.timers.now() - probe.seenAt > this.timing.staleAfterMs) {
      this.end(probe, 'stale');
      return;
    }
    const abort = (probe.abort = new AbortController());
    probe.attempts++;
    probe.startedAt = this.timers.now();
    const { host, port } = probe.endpoint;
    this.options.readBanner(host, port, { timeoutMs: this.timing.attemptTimeoutMs, signal: abort.signal }).then(
      (banner) => {
        if (!this.current(probe, abort)) return;
        probe.abort = undefined;
        this.probes.delete(probe.instance.id);
        this.logger.info(
          `Boot: #${probe.instance.id} answers SSH at ${probe.key} after ${probe.attempts} attempt(s): ${banner.slice(0, 80)}`,
        );
        this.options.onReady(probe.instance, banner);
      },
      () => {
        if (!this.current(probe, abort)) return;
        probe.abort = undefined;
        // Counted from the attempt's start: a slow refusal (a far address) does not stretch the pace.
        const wait = Math.max(0, probe.startedAt + probe.delayMs - this.timers.now());
        probe.timer = this.timers.setTimeout(() => this.attempt(probe), wait);
        const slow = this.timers.now() - probe.begunAt >= this.timing.fastForMs;
        probe.delayMs = slow ? this.timing.slowDelayMs : Math.min(this.timing.maxDelayMs, probe.delayMs * 2);
      },
    );
  }

  /** Whether this attempt's answer still matters: the probe was not ended or replaced meanwhile. */
  private current(probe: Probe, abort: AbortController): boolean {
    return !this.disposed && this.probes.get(probe.instance.id) === probe && probe.abort === abort;
  }

  private end(probe: Probe, why: EndReason): void {
    if (this.probes.get(probe.instance.id) === probe) this.probes.delete(probe.instance.id);
    if (probe.timer !== undefined) this.timers.clearTimeout(probe.timer);
    probe.timer = undefined;
    probe.abort?.abort();
    probe.abort = undefined;
    this.logger.debug(`Boot: stopped probing SSH of #${probe.instance.id} after ${probe.attempts} attempt(s) (${why}).`);
  }
}
