/**
 * Run on Cluster's upload, sent once: the workspace goes to rank 0 by Upload Folder's flow, then
 * the other nodes copy it from rank 0 over the cluster's private network (the overlay, eth0), so
 * that a cluster costs one upload of the user's uplink, not one per node. On rank 0 an rsync
 * daemon, started once the upload has begun, serves the upload's folder read-only to the other
 * nodes' overlay addresses only, for at most 15 minutes (a fresh one after an upload longer than
 * 5). By then each other node's last pull is connected and waiting (fanoutOverlap.ts), and during a
 * long upload the nodes already pull what has arrived, so that the copy overlaps it; once the
 * upload is done each other node pulls exactly the files it sent (only what is still missing moves
 * then), never what a job wrote on rank 0, and never touches a file of its own that is not listed.
 * The daemon is stopped and its
 * folder removed at the end, after a failure and after Cancel (fanoutScripts.ts has the scripts).
 *
 * Whatever keeps the copy from working falls back to the direct upload for the nodes it concerns,
 * and says so in the log: a node without an overlay address or rsync, a daemon that does not
 * start, a pull that fails. Nodes that share this machine's loopback (the simulator without root)
 * have no eth0, so each gets its own upload, as does a cluster of one node. After Cancel nothing
 * more is sent.
 */

import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { Instance } from '../../api/instances';
import { l10n } from '../../l10n';
import { silentProgress, type ProgressTask } from '../../progress';
import type { RemoteResult } from '../../ssh/remote';
import type { UploadRequest } from '../run';
import {
  daemonConfig,
  daemonFolder,
  daemonStartScript,
  daemonStopScript,
  FANOUT_HARD_LIMIT_S,
  FANOUT_PORTS,
  parseDaemonPort,
  parseNodeProbe,
  pullScript,
  servedPath,
  waitingPullInput,
  type NodeProbe,
} from './fanoutScripts';
import { CONNECT_AFTER_MS, overlapUpload, PULL_MS, ran, underWay, type WaitingPull } from './fanoutOverlap';
import type { CopyPlan, Daemon, FanoutDeps, FanoutPorts, NodeUpload } from './fanoutPorts';

export type { CopyPlan, Daemon, FanoutDeps, FanoutPorts, NodeUpload, RemoteRun } from './fanoutPorts';

/** A place held for a node whose outcome comes later (rank 0's, and a puller's). */
const NOT_YET: Promise<NodeUpload> = Promise.resolve({ kind: 'skipped' });

/** How long after its start the daemon is still used; after a longer upload a fresh one serves the copy, with most of its time left. */
const FRESH_FOR_MS = (FANOUT_HARD_LIMIT_S - 600) * 1000;

/** How long a short script (the daemon's start and stop) may take. */
const SHORT_MS = 60_000;

/**
 * Sends the workspace to every node: once to rank 0 and from there to the others when `probes`
 * (nodeProbeScript's output on each node, in rank order) allow it, else to each node directly.
 * Resolves every node's outcome in rank order; never rejects.
 */
export async function uploadToCluster(
  deps: FanoutDeps,
  nodes: readonly Instance[],
  request: UploadRequest,
  probes?: readonly PromiseSettledResult<string>[],
): Promise<NodeUpload[]> {
  const direct = (n: Instance) => uploadDirect(deps, n, request);
  const read = probes?.map((p) => (p.status === 'fulfilled' ? parseNodeProbe(p.value) : undefined));
  const why = whyDirect(deps, nodes, request, read);
  if (why !== undefined || !deps.fanout || !read || !request.localDir) {
    if (nodes.length > 1) deps.logger.info(`Run on Cluster: uploading to each node directly: ${why ?? 'no copy from node 0 here'}.`);
    return Promise.all(nodes.map(direct));
  }
  const root = nodes[0]!;
  const rootProbe = read[0]!;
  const canPull = (rank: number) => rank > 0 && read[rank]?.address !== undefined && read[rank]!.rsync;
  for (const [rank, n] of nodes.entries())
    if (rank > 0 && !canPull(rank))
      deps.logger.info(`Run on Cluster: #${n.id} cannot copy from node 0 (${nodeProblem(read[rank])}); uploading to it directly.`);
  // The nodes that cannot copy from rank 0 get their own upload now, beside rank 0's.
  const results: Array<Promise<NodeUpload>> = nodes.map((n, rank) => (rank > 0 && !canPull(rank) ? direct(n) : NOT_YET));
  const pullers = nodes.flatMap((n, rank) => (canPull(rank) ? [{ n, rank, address: read[rank]!.address! }] : []));
  const plan = { root, rootProbe, dir: request.remoteDir!, localDir: request.localDir, pullers };
  // Beside rank 0's upload: the list is made at once, the daemon started once the upload has begun.
  const now = () => deps.fanout!.now?.() ?? Date.now();
  const startedAt = now();
  const list = listFiles(deps, deps.fanout, request.localDir);
  let copied: Copied[] = pullers.map(() => 'failed');
  let rootEnd: NodeUpload | undefined;
  const uploading = direct(root).then((outcome) => (rootEnd = outcome));
  // The copy's own connections are made once the upload has begun (connectAfterMs: at once by default).
  const started = underWay(uploading, deps.fanout.connectAfterMs ?? CONNECT_AFTER_MS);
  const ports = deps.fanout;
  let daemon = started.then(() => (rootEnd && rootEnd.kind !== 'uploaded' ? undefined : startDaemon(deps, ports, plan)));
  const overlap = overlapUpload(deps, deps.fanout, plan, daemon, list, uploading, started);
  let waiting: ReadonlyMap<number, WaitingPull> = new Map();
  try {
    const rootUpload = await uploading;
    waiting = await overlap;
    results[0] = Promise.resolve(rootUpload);
    if (rootUpload.kind !== 'uploaded') copied = pullers.map(() => 'skipped');
    else if (rootUpload.dir !== plan.dir)
      deps.logger.warn(`Run on Cluster: the upload went to ${rootUpload.dir}, not ${plan.dir}; uploading to the other nodes directly.`);
    else {
      // After a long upload the daemon may be near its time limit: a fresh one serves the copy.
      if (now() - startedAt > FRESH_FOR_MS) {
        await stopDaemon(deps, deps.fanout, root, await daemon);
        daemon = startDaemon(deps, deps.fanout, plan);
      }
      copied = await pullAll(deps, deps.fanout, plan, await daemon, await list, waiting);
    }
  } catch (error) {
    deps.logger.warn(`Run on Cluster: the copy from node 0 failed (${String(error)}); uploading to the other nodes directly.`);
  } finally {
    // A last pull still waiting was not used (the upload failed, or it waited too long).
    for (const w of waiting.values()) w.cancel();
    // Off the critical path: the jobs start while node 0's daemon stops. The stop logs its own
    // failure and never throws, and the daemon ends by itself at its time limit whatever happens.
    void stopDaemon(deps, deps.fanout, root, await daemon);
  }
  for (const [at, { n, rank }] of pullers.entries()) {
    const outcome = copied[at]!;
    if (outcome === 'failed') results[rank] = direct(n);
    else if (outcome === 'copied') results[rank] = Promise.resolve({ kind: 'uploaded', dir: plan.dir });
    else results[rank] = Promise.resolve({ kind: outcome === 'cancelled' ? 'failed' : 'skipped' });
  }
  return Promise.all(results);
}

/** What keeps a node from taking part in the copy (logged as it is). */
type NodeProblem = 'ssh did not answer' | 'no overlay address on eth0' | 'no rsync or timeout' | 'the folder ssh starts in is unknown';

/** Why no node copies from rank 0 (logged as it is). */
type WhyDirect = 'no copy from node 0 here' | 'one node' | 'no local folder given' | 'no other node can copy from node 0';

/** Why no node can copy from rank 0 (each gets its own upload), or undefined. */
function whyDirect(
  deps: FanoutDeps,
  nodes: readonly Instance[],
  request: UploadRequest,
  read: ReadonlyArray<NodeProbe | undefined> | undefined,
): WhyDirect | `node 0: ${NodeProblem}` | undefined {
  if (!deps.fanout || !read) return 'no copy from node 0 here';
  if (nodes.length < 2) return 'one node';
  if (!request.localDir || !request.remoteDir) return 'no local folder given';
  const root = read[0];
  if (root?.address === undefined || !root.rsync || root.home === undefined) return `node 0: ${nodeProblem(root)}`;
  if (!nodes.some((_, rank) => rank > 0 && read[rank]?.address !== undefined && read[rank]!.rsync))
    return 'no other node can copy from node 0';
  return undefined;
}

function nodeProblem(probe: NodeProbe | undefined): NodeProblem {
  if (!probe) return 'ssh did not answer';
  if (probe.address === undefined) return 'no overlay address on eth0';
  if (!probe.rsync) return 'no rsync or timeout';
  return 'the folder ssh starts in is unknown';
}

async function uploadDirect(deps: FanoutDeps, n: Instance, request: UploadRequest): Promise<NodeUpload> {
  try {
    const dir = await deps.upload(n.id, request);
    return dir === undefined ? { kind: 'failed' } : { kind: 'uploaded', dir };
  } catch (error) {
    deps.logger.warn(`Run on Cluster: the upload to #${n.id} failed: ${String(error)}`);
    return { kind: 'failed' };
  }
}

/** How one node fared: copied from rank 0; to be uploaded directly; not tried (rank 0's upload failed); or Cancel. */
type Copied = 'copied' | 'failed' | 'skipped' | 'cancelled';

/**
 * Starts the daemon on rank 0 (it needs no files yet: a module's folder is entered per
 * connection). Not cancellable: a start cut short would leave a daemon nobody stops before its
 * time limit; it takes a few seconds at most. Undefined when nothing was started.
 */
async function startDaemon(deps: FanoutDeps, ports: FanoutPorts, plan: CopyPlan): Promise<Daemon | undefined> {
  const { root, rootProbe, pullers } = plan;
  const path = servedPath(plan.dir, rootProbe.home!);
  const tried = ports.ports ?? FANOUT_PORTS;
  const folder = daemonFolder(ports.token?.() ?? randomBytes(6).toString('hex'));
  const config = path && daemonConfig({ path, allow: pullers.map((x) => x.address), uid: rootProbe.uid, gid: rootProbe.gid });
  const start = folder && daemonStartScript({ folder, address: rootProbe.address!, ports: tried });
  if (!folder || !config || !start) {
    deps.logger.warn(
      `Run on Cluster: no rsync daemon can serve ${JSON.stringify(plan.dir)} on node 0 (#${root.id}); uploading to the other nodes directly.`,
    );
    return undefined;
  }
  const started = await ran(ports, root, start, { input: config, timeoutMs: SHORT_MS });
  const port = started.code === 0 ? parseDaemonPort(started.stdout, tried) : undefined;
  if (port === undefined)
    deps.logger.warn(
      `Run on Cluster: the rsync daemon did not start on node 0 (#${root.id}, exit ${started.code}: ${started.stderr.trim()}); uploading to the other nodes directly.`,
    );
  else
    deps.logger.info(`Run on Cluster: node 0 (#${root.id}) serves ${path} on ${rootProbe.address}:${port} to ${pullers.length} node(s).`);
  return port === undefined ? { folder } : { folder, port };
}

/** Stops the daemon and removes its folder, whatever happened; a failure is logged (its time limit ends it). */
async function stopDaemon(deps: FanoutDeps, ports: FanoutPorts, root: Instance, daemon: Daemon | undefined): Promise<void> {
  if (!daemon) return;
  const stopped = await ran(ports, root, daemonStopScript(daemon.folder), { timeoutMs: SHORT_MS });
  if (stopped.code !== 0)
    deps.logger.warn(
      `Run on Cluster: stopping the rsync daemon on node 0 (#${root.id}) failed (${stopped.stderr.trim()}); it ends by itself within ${FANOUT_HARD_LIMIT_S / 60} minutes.`,
    );
}

/** The files the upload sends, NUL-separated, as the pulls read them; undefined (logged) when they cannot be listed. */
async function listFiles(deps: FanoutDeps, ports: FanoutPorts, localDir: string): Promise<string | undefined> {
  try {
    return (await ports.files(localDir)).map((f) => `${f}\0`).join('');
  } catch (error) {
    deps.logger.warn(`Run on Cluster: the files to send could not be listed (${String(error)}); uploading to the other nodes directly.`);
    return undefined;
  }
}

/** Every pull at once under the copy's progress; each puller's outcome. */
async function pullAll(
  deps: FanoutDeps,
  ports: FanoutPorts,
  plan: CopyPlan,
  daemon: Daemon | undefined,
  list: string | undefined,
  waiting: ReadonlyMap<number, WaitingPull>,
): Promise<Copied[]> {
  const port = daemon?.port;
  if (port === undefined || list === undefined) return plan.pullers.map(() => 'failed');
  const work = async (p: ProgressTask): Promise<Copied[]> => {
    const copying = new Set(plan.pullers.map((x) => x.rank));
    const say = () => {
      const ranks = [...copying].sort((a, b) => a - b);
      if (ranks.length === 1) p.report({ message: l10n.t('copying to node {0} from node 0', ranks[0]!) });
      else if (ranks.length > 1) p.report({ message: l10n.t('copying to nodes {0} from node 0', ranks.join(', ')) });
    };
    say();
    return Promise.all(
      plan.pullers.map(async ({ n, rank }): Promise<Copied> => {
        const o = { n, rank, address: plan.rootProbe.address!, port, dir: plan.dir, list, waiting: waiting.get(rank) };
        const outcome = await pull(deps, ports, o, p);
        copying.delete(rank);
        if (outcome === 'copied') p.report({ message: l10n.t('node {0} has the files', rank), increment: 100 / plan.pullers.length });
        say();
        return outcome;
      }),
    );
  };
  const title = l10n.t('copying {0} from node 0 to the other nodes of the cluster', basename(plan.localDir));
  return (ports.progress ?? silentProgress())(title, work);
}

async function pull(
  deps: FanoutDeps,
  ports: FanoutPorts,
  o: { n: Instance; rank: number; address: string; port: number; dir: string; list: string; waiting?: WaitingPull },
  p: ProgressTask,
): Promise<Copied> {
  const input = waitingPullInput(o.port, o.list);
  let result: RemoteResult;
  if (o.waiting && input !== undefined && o.waiting.go(input)) {
    // The pull connected while the upload ran: it begins now. Cancel ends it as it would a fresh one.
    const cancel = () => o.waiting!.cancel();
    p.signal.addEventListener('abort', cancel, { once: true });
    result = await o.waiting.result;
    p.signal.removeEventListener('abort', cancel);
  } else {
    o.waiting?.cancel();
    const script = pullScript({ address: o.address, port: o.port, remoteDir: o.dir }) ?? 'exit 2';
    result = await ran(ports, o.n, script, { input: o.list, signal: p.signal, timeoutMs: PULL_MS });
  }
  if (p.signal.aborted) return 'cancelled';
  if (result.code === 0) return 'copied';
  deps.logger.warn(
    `Run on Cluster: copying to node ${o.rank} (#${o.n.id}) from node 0 failed (exit ${result.code}: ${result.stderr.trim()}); uploading to it directly.`,
  );
  return 'failed';
}
