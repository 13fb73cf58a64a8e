/**
 * How Run on Cluster's copy from rank 0 (fanout.ts) overlaps rank 0's upload, so that a cluster
 * costs little more than one node's upload. Once the upload has begun (after connectAfterMs), each
 * other node's last pull is started, its ssh connected and waiting for the daemon's port
 * (waitingPullScript), so that once the upload is done no connection is made on the critical
 * path. A long upload is also copied while it runs: every earlyPullMs the other nodes pull what
 * has arrived (a round). Nothing here decides an outcome: what a round finds missing or changing,
 * the last pull's quick check sends.
 */

import type { Instance } from '../../api/instances';
import type { RemoteResult } from '../../ssh/remote';
import type { CopyPlan, Daemon, FanoutDeps, FanoutPorts, NodeUpload, RemoteRun } from './fanoutPorts';
import { FANOUT_HARD_LIMIT_S, pullScript, waitingPullScript } from './fanoutScripts';

/**
 * While rank 0's upload runs, the other nodes pull what has arrived every this long (after the
 * previous round ended). A round costs each node an ssh connection, and node 0 CPU while it
 * receives, so a shorter upload is copied only after it, over connections already made: 2-second
 * rounds during a 5-second upload cost more than they saved (docs/decisions/clusters-measured.md).
 */
export const EARLY_PULL_MS = 15_000;

/**
 * How long rank 0's upload runs alone before the daemon is started and the last pulls connect (or
 * until it ends, when sooner): none. On the service each connection is a few round trips to
 * another machine, which the upload hides only if they begin with it. Measured here, where every
 * node's sshd shares this machine's 2 cores (test/bench/cluster.bench.ts, 4 nodes against 1,
 * docs/decisions/clusters-measured.md): at once, 1.10x through a 100 Mbit/s uplink and 1.74x with
 * no limit; after 0.5 s, 1.07x and 2.14x; after 1.5 s, 1.06x and 2.55x.
 */
export const CONNECT_AFTER_MS = 0;

/** Resolves once `upload` ends or `ms` have passed, whichever is first. */
export function underWay(upload: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([upload.then(() => undefined), waited]).finally(() => clearTimeout(timer));
}

/** How long a pull may take once it starts: rsync's own hard limit, and a moment. */
export const PULL_MS = (FANOUT_HARD_LIMIT_S + 30) * 1000;

/** The longest a waiting pull waits and is still used; after a longer upload the last pull connects anew. */
export const WAIT_MS = (FANOUT_HARD_LIMIT_S - 600) * 1000;

/** A script's run on a node; ssh that could not run it (a timeout, Cancel) reads as exit -1 with its error. */
export async function ran(ports: FanoutPorts, instance: Instance, script: string, o: RemoteRun): Promise<RemoteResult> {
  try {
    return await ports.remote(instance, script, o);
  } catch (error) {
    return { code: -1, stdout: '', stderr: error instanceof Error ? error.message : String(error) };
  }
}

/** A node's last pull, connected before the upload ends and waiting for the port and the list. */
export interface WaitingPull {
  /** Sends the port and the list, and the pull begins; false (nothing sent) when it no longer waits or has waited past WAIT_MS. */
  go(input: string): boolean;
  /** Its end, once sent (or cancelled). */
  readonly result: Promise<RemoteResult>;
  /** Ends it: unused, or cut short (Cancel). */
  cancel(): void;
}

function startWaiting(ports: FanoutPorts, n: Instance, script: string): WaitingPull {
  const now = () => ports.now?.() ?? Date.now();
  const launched = now();
  const stop = new AbortController();
  let release!: (text: string) => void;
  const input = new Promise<string>((resolve) => (release = resolve));
  let ended = false;
  let sent = false;
  const result = ran(ports, n, script, { input, signal: stop.signal, timeoutMs: WAIT_MS + PULL_MS }).then((r) => {
    ended = true;
    return r;
  });
  return {
    go(text) {
      if (ended || sent || stop.signal.aborted || now() - launched > WAIT_MS) return false;
      sent = true;
      release(text);
      return true;
    },
    result,
    cancel() {
      // An empty stdin ends a waiting script by itself (exit 3); the abort ends its ssh at once.
      if (!sent) release('');
      stop.abort();
    },
  };
}

/**
 * Runs beside rank 0's upload and resolves once it has ended (and a round under way has finished,
 * so that no two pulls ever write a node's folder at once): each puller's waiting last pull, by
 * rank, started once `started` resolves while the upload still runs. No round starts before
 * earlyPullMs has passed, nor without a daemon that listens and the list. An upload that fails or
 * is cancelled cuts the round under way short.
 */
export async function overlapUpload(
  deps: FanoutDeps,
  ports: FanoutPorts,
  plan: CopyPlan,
  daemon: Promise<Daemon | undefined>,
  list: Promise<string | undefined>,
  uploading: Promise<NodeUpload>,
  started: Promise<void>,
): Promise<Map<number, WaitingPull>> {
  const waiting = new Map<number, WaitingPull>();
  let ended = false;
  const stop = new AbortController();
  const done = uploading.then((outcome) => {
    ended = true;
    if (outcome.kind !== 'uploaded') stop.abort();
  });
  await started;
  if (ended) return waiting;
  const waitingScript = waitingPullScript({ address: plan.rootProbe.address!, remoteDir: plan.dir });
  if (waitingScript) for (const { n, rank } of plan.pullers) waiting.set(rank, startWaiting(ports, n, waitingScript));
  const every = ports.earlyPullMs ?? EARLY_PULL_MS;
  for (let round = 0; ; round++) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, every)))]);
    clearTimeout(timer);
    if (ended) return waiting;
    const [served, files] = [await daemon, await list];
    if (ended || served?.port === undefined || files === undefined) return waiting;
    if (round === 0) deps.logger.info('Run on Cluster: the other nodes copy what has reached node 0 while the upload runs.');
    const script = pullScript({ address: plan.rootProbe.address!, port: served.port, remoteDir: plan.dir }) ?? 'exit 2';
    await Promise.all(plan.pullers.map(({ n }) => ran(ports, n, script, { input: files, signal: stop.signal, timeoutMs: PULL_MS })));
  }
}
