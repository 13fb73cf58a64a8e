/**
 * Check Cluster Network, decided: before the first job on a cluster, and as a command of its own.
 *
 * 1. Every node's overlay (eth0) address is read on the node (env.ts's snippet, checked as an IPv4
 *    address). A node without one is refused by name; nodes that all share this machine's loopback
 *    (the simulator without root) take 127.0.0.1, 127.0.0.2… as Run on Cluster does.
 * 2. Reachability: every node listens on its overlay address and port, and dials every other one
 *    (preflightScripts.ts): each ordered pair i → j is seen from i's side. Failed pairs are named by
 *    rank and address, and nothing is measured.
 * 3. Bandwidth: node 1, 2… in turn sends up to 64 MiB to node 0 over TCP (at most 10 s), timed on
 *    node 0: "node 0 ↔ node 1: 9.4 Gbit/s". One link at a time, so none shares node 0's network.
 * 4. All-reduce: when every node's python3 imports torch, a short all-reduce across every node with
 *    torch.distributed measures the bus bandwidth (preflightAllReduce.ts): "all-reduce across 3
 *    nodes (gloo): 4.1 Gbit/s". A node without torch skips it with a line, never a failure.
 * 5. The verdict, from the slowest link, the all-reduce and the cluster's total $/h
 *    (preflightVerdict.ts: the rule, `requiredGbits`).
 *
 * Every remote command has its own timeout, and the probe ends by itself on the node (an alarm);
 * the all-reduce's processes run under `timeout`. A Cancel (the AbortSignal) ends what runs, the
 * all-reduce's processes on the nodes too, and resolves undefined.
 */

import type { Instance } from '../../api/instances';
import { instancePhase } from '../../instances/phase';
import { currentRate } from '../../instances/rates';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import { silentProgress, type Progress } from '../../progress';
import type { Ask } from '../../prompts';
import { checkMasterPort, interfaceAddressScript, isIpv4, parseInterfaceAddress } from './env';
import { allReduce, allReduceLine, stopScript } from './preflightAllReduce';
import { parseProbe, probeScript, type ProbeLine } from './preflightScripts';
import { gbitsText, pair, verdictOf, type Link, type PreflightOutcome, type PreflightVerdict } from './preflightVerdict';

export {
  DATA_CENTRE_GBITS,
  DATA_CENTRE_GPU,
  FLOOR_GBITS,
  requiredGbits,
  type Link,
  type PreflightOutcome,
  type PreflightVerdict,
} from './preflightVerdict';

/** A cluster as the check takes it: its name and its nodes in rank order. */
export interface PreflightCluster {
  readonly label: string;
  readonly nodes: readonly Instance[];
}

export interface PreflightDeps {
  /**
   * Runs a short sh script on the node over ssh, killed after `timeoutMs` or when `signal` aborts;
   * resolves what it printed, rejects when ssh failed, timed out or was cancelled.
   */
  readonly shell: (instance: Instance, script: string, o: { timeoutMs: number; signal?: AbortSignal }) => Promise<string>;
  readonly logger: Logger;
  /**
   * The check's cancellable progress (ui: a notification saying what it does now); its Cancel ends
   * what runs, and the check resolves undefined. Default: nothing shown, nothing to cancel.
   */
  readonly progress?: Progress;
}

/** What the steps below are handed: the deps' shell and logger, the progress's line and Cancel. */
interface Checking extends Pick<PreflightDeps, 'shell' | 'logger'> {
  readonly signal: AbortSignal;
  say(message: string): void;
}

export interface PreflightOptions {
  /** The port every node listens on, above 1000 (default 29400, beside torchrun's 29500). */
  readonly port?: number;
  /** What each node sends node 0 (default 64 MiB). */
  readonly bytes?: number;
  /** How long a node waits for its peers, in whole seconds from 1 to 60 (default 20). */
  readonly waitSeconds?: number;
}

export const PREFLIGHT_PORT = 29400;
export const PREFLIGHT_BYTES = 64 * 1024 * 1024;
/** How long a node waits for its peers by default, and how long a node sends to node 0 at most (seconds). */
const WAIT_S = 20;
const SEND_LIMIT_S = 10;

/** Checks that every node reaches every other and measures the links, under the deps' progress; undefined when cancelled. */
export function checkCluster(
  deps: PreflightDeps,
  cluster: PreflightCluster,
  options: PreflightOptions = {},
): Promise<PreflightOutcome | undefined> {
  const progress = deps.progress ?? silentProgress();
  return progress(l10n.t('checking the network of {0}', cluster.label), (task) =>
    check({ shell: deps.shell, logger: deps.logger, signal: task.signal, say: (message) => task.report({ message }) }, cluster, options),
  );
}

async function check(deps: Checking, cluster: PreflightCluster, options: PreflightOptions): Promise<PreflightOutcome | undefined> {
  const port = checkMasterPort(options.port ?? PREFLIGHT_PORT);
  const bytes = options.bytes ?? PREFLIGHT_BYTES;
  const w = options.waitSeconds;
  const wait = w !== undefined && Number.isInteger(w) && w >= 1 && w <= 60 ? w : WAIT_S;
  const perHour = cluster.nodes.reduce((t, n) => t + (currentRate(n, 'running') ?? 0), 0);
  const done = (verdict: PreflightVerdict, text: string, lines: readonly string[] = [], links: readonly Link[] = []): PreflightOutcome => ({
    verdict,
    notice: { severity: verdict === 'fast' ? 'info' : verdict === 'slow' ? 'warning' : 'error', text },
    lines,
    links,
    perHour,
  });
  const refusal = refuse(cluster);
  if (refusal) return done('failed', refusal);
  if (cluster.nodes.length === 1)
    return done('fast', l10n.t('GPU Rental: {0} has one node, so there is no network between nodes to check.', cluster.label));
  const cancelled = () => deps.signal.aborted;

  deps.say(l10n.t('Reading the overlay address of each node…'));
  const addresses = await readAddresses(deps, cluster);
  if (cancelled()) return undefined;
  if (!Array.isArray(addresses)) return done('failed', addresses);

  deps.say(l10n.t('Checking that every node reaches every other…'));
  const reach = await reachability(deps, cluster, addresses, { port, wait });
  if (cancelled()) return undefined;
  if (reach) return done('failed', reach.text, reach.lines);

  const links: Link[] = [];
  const lines: string[] = [];
  for (let rank = 1; rank < cluster.nodes.length; rank++) {
    deps.say(l10n.t('Measuring the bandwidth of {0}…', pair(0, rank)));
    const measured = await measure(deps, cluster, addresses, rank, { port, bytes, wait });
    if (cancelled()) return undefined;
    if (typeof measured === 'string') return done('failed', measured, lines, links);
    links.push({ rank, gbits: measured });
    lines.push(l10n.t('{0}: {1} Gbit/s', pair(0, rank), gbitsText(measured)));
    deps.logger.info(`Cluster check of ${cluster.label}: node 0 <-> node ${rank}: ${gbitsText(measured)} Gbit/s.`);
  }

  deps.say(l10n.t('Measuring an all-reduce across the {0} nodes with torch.distributed…', cluster.nodes.length));
  const loopback = addresses[0]!.startsWith('127.');
  const on = (ranks: readonly number[], script: (rank: number) => string, timeoutMs: number) =>
    onEvery(deps, cluster, ranks, script, timeoutMs);
  const collective = await allReduce(on, checked(addresses), { port, wait, iface: loopback ? 'lo' : undefined });
  if (cancelled() || typeof collective === 'string') await stopAllReduce(deps, cluster, port);
  if (cancelled()) return undefined;
  if (typeof collective === 'string') return done('failed', collective, lines, links);
  lines.push(allReduceLine(collective));
  deps.logger.info(
    `Cluster check of ${cluster.label}: ${
      collective.kind === 'measured'
        ? `all-reduce across ${collective.nodes} nodes (${collective.backend}): ${gbitsText(collective.gbits)} Gbit/s`
        : collective.kind === 'failed'
          ? `all-reduce across ${collective.nodes} nodes (${collective.backend}) did not finish: ${collective.why}`
          : `all-reduce skipped: rank(s) ${collective.ranks.join(', ')} have no torch`
    }.`,
  );
  const judged = verdictOf(cluster, links, collective, lines, perHour);
  const outcome = { ...done(judged.verdict, judged.text, lines, links), allReduce: collective };
  if (!loopback) return outcome;
  const note = l10n.t(
    "The nodes share this machine's loopback (the local simulator without root), so these numbers say nothing about a real network.",
  );
  return { ...outcome, notice: { ...outcome.notice, text: `${outcome.notice.text} ${note}` } };
}

/** Ends the all-reduce's processes on every node (a Cancel, or ssh lost): they would end at their timeout, this ends them now. */
async function stopAllReduce(deps: Checking, cluster: PreflightCluster, port: number): Promise<void> {
  const stopped = await Promise.allSettled(
    cluster.nodes.map((node, rank) => deps.shell(node, stopScript(port, rank), { timeoutMs: 15_000 })),
  );
  const failed = cluster.nodes.filter((_, rank) => stopped[rank]!.status === 'rejected').map((n) => `#${n.id}`);
  if (failed.length > 0)
    deps.logger.warn(`Cluster check of ${cluster.label}: could not stop the all-reduce on ${failed.join(', ')}; it ends at its timeout.`);
}

const nodeName = (cluster: PreflightCluster, rank: number) => l10n.t('node {0} (#{1})', rank, cluster.nodes[rank]!.id);

function refuse(cluster: PreflightCluster): string | undefined {
  if (cluster.nodes.length === 0)
    return l10n.t('GPU Rental: the cluster {0} has no node to check. Rent its nodes first, then check it again.', cluster.label);
  const idle = cluster.nodes.map((_, rank) => rank).filter((rank) => instancePhase(cluster.nodes[rank]!) !== 'running');
  if (idle.length === 0) return undefined;
  return l10n.t(
    'GPU Rental: the network of {0} cannot be checked: {1} is not running. Start the cluster in the Instances view, wait until every node runs, then check it again.',
    cluster.label,
    idle.map((rank) => nodeName(cluster, rank)).join(', '),
  );
}

const errorText = (why: unknown) => (why instanceof Error ? why.message : String(why));

/** Runs `script` on every node at once; what each printed, or the notice text naming the nodes ssh failed on. */
async function onEvery(
  deps: Checking,
  cluster: PreflightCluster,
  ranks: readonly number[],
  script: (rank: number) => string,
  timeoutMs: number,
): Promise<Map<number, string> | string> {
  const results = await Promise.allSettled(
    ranks.map((rank) => deps.shell(cluster.nodes[rank]!, script(rank), { timeoutMs, signal: deps.signal })),
  );
  const failed = ranks.filter((_, i) => results[i]!.status === 'rejected');
  if (failed.length > 0) {
    const why = (results[ranks.indexOf(failed[0]!)] as PromiseRejectedResult).reason;
    deps.logger.warn(`Cluster check of ${cluster.label}: ssh failed on rank(s) ${failed.join(', ')}: ${errorText(why)}`);
    return l10n.t(
      'GPU Rental: the network check could not run on {0} ({1}). Check that the node runs and that ssh reaches it, then check again.',
      failed.map((rank) => nodeName(cluster, rank)).join(', '),
      errorText(why),
    );
  }
  return new Map(ranks.map((rank, i) => [rank, (results[i] as PromiseFulfilledResult<string>).value]));
}

async function readAddresses(deps: Checking, cluster: PreflightCluster): Promise<string[] | string> {
  const ranks = cluster.nodes.map((_, rank) => rank);
  const read = await onEvery(deps, cluster, ranks, () => interfaceAddressScript(), 30_000);
  if (typeof read === 'string') return read;
  const addresses = ranks.map((rank) => parseInterfaceAddress(read.get(rank)!));
  if (addresses.every((a): a is string => a !== undefined)) {
    const twice = addresses.find((a, i) => addresses.indexOf(a) !== i);
    if (twice === undefined) return addresses;
    return l10n.t('GPU Rental: two nodes have the overlay address {0}. Each node needs its own address on the cluster network.', twice);
  }
  if (addresses.every((a) => a === undefined) && sharesLoopback(cluster.nodes)) {
    deps.logger.info(`Cluster check of ${cluster.label}: no eth0 on the nodes; they share this machine's loopback.`);
    return ranks.map((rank) => `127.0.0.${rank + 1}`);
  }
  return l10n.t(
    "GPU Rental: {0} has no overlay address on eth0, so the nodes of {1} cannot reach one another. Check that every node joined the cluster's network (rent the nodes with Rent Cluster), then check again.",
    ranks
      .filter((rank) => addresses[rank] === undefined)
      .map((rank) => nodeName(cluster, rank))
      .join(', '),
    cluster.label,
  );
}

function sharesLoopback(nodes: readonly Instance[]): boolean {
  const hosts = new Set(nodes.map((n) => n.ssh_host ?? n.public_ipaddr ?? ''));
  const [host] = [...hosts];
  return hosts.size === 1 && host !== undefined && (/^127\./.test(host) || host === 'localhost');
}

const noPython = (cluster: PreflightCluster, ranks: readonly number[]) =>
  l10n.t(
    'GPU Rental: the network check needs python3 on every node, and {0} has none. Install it there (apt-get install -y python3), or use an image that has it, then check again.',
    ranks.map((rank) => nodeName(cluster, rank)).join(', '),
  );

/** Undefined when every ordered pair connected; else the notice's text and the failed pairs' lines. */
async function reachability(
  deps: Checking,
  cluster: PreflightCluster,
  addresses: readonly string[],
  { port, wait }: { port: number; wait: number },
): Promise<{ text: string; lines: string[] } | undefined> {
  const n = cluster.nodes.length;
  if (n < 2) return undefined;
  const ranks = addresses.map((_, rank) => rank);
  const words = (rank: number) => ['reach', rank, port, wait, ...checked(addresses)];
  const out = await onEvery(deps, cluster, ranks, (rank) => probeScript(words(rank)), (wait + 30) * 1000);
  if (typeof out === 'string') return { text: out, lines: [] };
  const parsed = new Map(ranks.map((rank) => [rank, parseProbe(out.get(rank)!)]));
  const missing = ranks.filter((rank) => parsed.get(rank)!.some((l) => l.kind === 'no-python3'));
  if (missing.length > 0) return { text: noPython(cluster, missing), lines: [] };

  const lines: string[] = [];
  let failures = 0;
  for (const from of ranks) {
    const said = parsed.get(from)!;
    const listen = said.find((l): l is Extract<ProbeLine, { why: string }> => l.kind === 'listen-failed');
    if (listen) {
      deps.logger.warn(`Cluster check of ${cluster.label}: rank ${from} could not listen on ${addresses[from]}:${port}: ${listen.why}.`);
      lines.push(l10n.t('node {0} ({1}) could not listen on port {2}; another program may hold it', from, addresses[from]!, port));
    }
    for (const to of ranks) {
      if (to === from) continue;
      const result = said.find((l): l is Extract<ProbeLine, { kind: 'reach' }> => l.kind === 'reach' && l.peer === to)?.result;
      if (result === 'ok') continue;
      failures++;
      deps.logger.warn(
        `Cluster check of ${cluster.label}: rank ${from} -> rank ${to} (${addresses[to]}:${port}): ${result ?? 'no answer'}.`,
      );
      lines.push(l10n.t('node {0} ({1}) cannot reach node {2} ({3})', from, addresses[from]!, to, addresses[to]!));
    }
  }
  if (lines.length === 0) return undefined;
  return {
    text: l10n.t(
      "GPU Rental: {0} of the {1} connections between the nodes of {2} failed: {3}. A job across these nodes would hang; check that every node joined the cluster's network, or replace the nodes that cannot be reached.",
      failures,
      n * (n - 1),
      cluster.label,
      lines.join('; '),
    ),
    lines,
  };
}

/** Node `rank` sends to node 0: the link's Gbit/s, or the notice's text when it could not be measured. */
async function measure(
  deps: Checking,
  cluster: PreflightCluster,
  addresses: readonly string[],
  rank: number,
  o: { port: number; bytes: number; wait: number },
): Promise<number | string> {
  const master = checked(addresses)[0]!;
  const size = Number.isInteger(o.bytes) && o.bytes >= 1024 * 1024 && o.bytes <= 1024 ** 3 ? o.bytes : PREFLIGHT_BYTES;
  const scripts = new Map([
    [0, probeScript(['recv', o.port, o.wait, rank, master])],
    [rank, probeScript(['send', o.port, o.wait, rank, master, size, SEND_LIMIT_S])],
  ]);
  const timeoutMs = (o.wait * 2 + SEND_LIMIT_S + 30) * 1000;
  const out = await onEvery(deps, cluster, [0, rank], (r) => scripts.get(r)!, timeoutMs);
  if (typeof out === 'string') return out;
  const got = parseProbe(out.get(0)!);
  const sent = parseProbe(out.get(rank)!);
  const missing = [0, rank].filter((r) => (r === 0 ? got : sent).some((l) => l.kind === 'no-python3'));
  if (missing.length > 0) return noPython(cluster, missing);
  const recv = got.find((l): l is Extract<ProbeLine, { kind: 'recv' }> => l.kind === 'recv');
  if (recv && recv.bytes >= 1024 * 1024 && recv.seconds > 0) return (recv.bytes * 8) / recv.seconds / 1e9;
  const why = [...got, ...sent].map((l) => ('why' in l ? `${l.kind} ${l.why}` : l.kind)).join(', ') || l10n.t('no answer');
  deps.logger.warn(`Cluster check of ${cluster.label}: node ${rank} -> node 0 could not be measured: ${why}.`);
  return l10n.t(
    'GPU Rental: the bandwidth of {0} could not be measured ({1}). Check that both nodes run, then check again.',
    pair(0, rank),
    why,
  );
}

/** The addresses, each an IPv4 address (they reach a shell as words). */
function checked(addresses: readonly string[]): string[] {
  for (const a of addresses) if (!isIpv4(a)) throw new RangeError(l10n.t('GPU Rental: "{0}" is not an IPv4 address.', a));
  return [...addresses];
}

/** How Run on Cluster's gate ends: go on with the job, stop (undefined: the user cancelled or chose not to run). */
export type PreflightGate = 'go' | undefined;

/**
 * The check before the first job on a cluster: a fast cluster goes on without a word; anything
 * else is shown in a modal whose Run Anyway goes on (the user may know better, e.g. a node without
 * python3). A Cancel, or the modal dismissed, starts nothing.
 */
export async function preflightBeforeJob(
  deps: PreflightDeps & { readonly ask: Pick<Ask, 'choose'> },
  cluster: PreflightCluster,
  options: PreflightOptions = {},
): Promise<PreflightGate> {
  return gateOn(deps.ask, await checkCluster(deps, cluster, options));
}

/** preflightBeforeJob's question, for a check already run (ui runs it under its progress, then asks). */
export async function gateOn(ask: Pick<Ask, 'choose'>, outcome: PreflightOutcome | undefined): Promise<PreflightGate> {
  if (!outcome) return undefined;
  if (outcome.verdict === 'fast') return 'go';
  const runAnyway = l10n.t('Run Anyway');
  const answer = await ask.choose(
    outcome.notice.text,
    l10n.t('The job has not started. Run it anyway, or close this and fix the cluster first.'),
    [runAnyway],
  );
  return answer === runAnyway ? 'go' : undefined;
}
