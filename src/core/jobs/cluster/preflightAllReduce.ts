/**
 * Check Cluster Network's all-reduce: after the TCP links are measured, a short all-reduce across
 * every node with the engine a job uses (torch.distributed), never a collective of our own.
 *
 * 1. Every node's python3 is asked whether it imports torch with torch.distributed, and whether
 *    torch.cuda is available there with NCCL. A node without is named in a line ("all-reduce
 *    skipped: node 1 has no torch"), never a failure: the links already say what the network does.
 * 2. One process per node, a static rendezvous (`tcp://` on rank 0's overlay address and the port
 *    the TCP probe used, free again once the probe ended). The backend is nccl when every node has
 *    CUDA, else gloo: every rank must use the same one.
 * 3. A tensor of 16 MiB (float32), 2 warm-up all-reduces, then 5 timed ones; the time is the
 *    slowest rank's. The figure is the bus bandwidth as nccl-tests define it: algbw = bytes / time
 *    of one all-reduce, busbw = algbw × 2(n − 1)/n, the rate each node's link carries in a ring, so
 *    it compares with one link's Gbit/s.
 *
 * Everything on a node ends: each process has coreutils' `timeout` (when the node has it) and an
 * alarm of its own, so a peer that never comes cannot leave rank 0 waiting; the rendezvous also
 * times out after the wait. Its pid is kept in /tmp while it runs, so a Cancel ends it at once
 * (`stopScript`) rather than at its timeout.
 */

import { shellAssignments, shellQuote } from '../../shell';
import { l10n } from '../../l10n';
import { OVERLAY_INTERFACE } from './env';
import PROGRAM from './remote/allreduce.py';
import RUN from './remote/allreduce-run.sh';
import STOP from './remote/allreduce-stop.sh';
import { PROBE_TAG } from './preflightScripts';

/** What the all-reduce found: a figure, the nodes without torch, or why it did not finish. */
export type AllReduceResult =
  | { readonly kind: 'measured'; readonly nodes: number; readonly backend: Backend; readonly gbits: number }
  | { readonly kind: 'skipped'; readonly ranks: readonly number[] }
  | { readonly kind: 'failed'; readonly nodes: number; readonly backend: Backend; readonly why: string };

export type Backend = 'nccl' | 'gloo';

/** Runs a script on these ranks at once: what each printed, or the notice text naming the nodes ssh failed on. */
export type OnRanks = (
  ranks: readonly number[],
  script: (rank: number) => string,
  timeoutMs: number,
) => Promise<Map<number, string> | string>;

export interface AllReduceOptions {
  /** The rendezvous port on rank 0, above 1000 (checked by the caller). */
  readonly port: number;
  /** How long the rendezvous waits for every rank, in whole seconds. */
  readonly wait: number;
  /** The tensor's size in bytes (default 16 MiB; 1 MiB to 256 MiB). */
  readonly bytes?: number;
  /** The node's interface that NCCL and gloo use: eth0 on an overlay, lo on nodes sharing a loopback. */
  readonly iface?: string;
}

export const ALLREDUCE_BYTES = 16 * 1024 * 1024;
export const WARMUP_ITERATIONS = 2;
export const TIMED_ITERATIONS = 5;
/** How long importing torch may take on a node (s). */
const TORCH_LIMIT_S = 60;
/** How long an all-reduce may take once the rendezvous is done: torch's import, CUDA, the iterations (s). */
const RUN_LIMIT_S = 60;
/** The first argv word of every process the check starts, so its stop script knows its own. */
const MARKER = 'gpu-rental-allreduce';

export const ALLREDUCE_PROGRAM = PROGRAM;

const pidFile = (mode: 'torch' | 'allreduce', port: number, rank: number) => `/tmp/${MARKER}-${mode}-${port}-${rank}.pid`;

/**
 * The sh script that runs the program on node `rank`: python3 under `timeout` (when the node has
 * it) in the background, its pid kept in /tmp until it ends.
 */
function bounded(
  mode: 'torch' | 'allreduce',
  port: number,
  rank: number,
  limit: number,
  words: ReadonlyArray<string | number>,
  env: string[],
) {
  const values = { f: pidFile(mode, port, rank), limit: limit + 5, prog: ALLREDUCE_PROGRAM };
  const argv = [MARKER, mode, limit, ...words].map((w) => shellQuote(String(w))).join(' ');
  return [...env, shellAssignments(values), `set -- ${argv}`, RUN].join('\n');
}

/** Asks node `rank` whether its python3 imports torch.distributed, and which backend it would use. */
export function torchCheckScript(port: number, rank: number): string {
  return bounded('torch', port, rank, TORCH_LIMIT_S, [], []);
}

export interface AllReduceRun {
  readonly rank: number;
  readonly world: number;
  /** Rank 0's overlay address (an IPv4 address, checked by the caller). */
  readonly master: string;
  readonly port: number;
  readonly backend: Backend;
  readonly bytes: number;
  readonly wait: number;
  readonly iface: string;
}

/** The hard limit of one all-reduce process, in seconds: the rendezvous's wait and the run. */
export const allReduceLimit = (wait: number) => wait + RUN_LIMIT_S;

/** The script node `rank` runs for the all-reduce. */
export function allReduceScript(r: AllReduceRun): string {
  const words = [r.rank, r.world, r.master, r.port, r.backend, r.bytes, WARMUP_ITERATIONS, TIMED_ITERATIONS, r.wait];
  const iface = shellQuote(r.iface);
  return bounded('allreduce', r.port, r.rank, allReduceLimit(r.wait), words, [
    `export NCCL_SOCKET_IFNAME=${iface} GLOO_SOCKET_IFNAME=${iface}`,
  ]);
}

/** Ends what the check started on node `rank` (found by its pid file and marker); nothing else. */
export function stopScript(port: number, rank: number): string {
  const files = ['set', '--', pidFile('torch', port, rank), pidFile('allreduce', port, rank)];
  return [files.join(' '), STOP].join('\n');
}

/** One line the program printed, read strictly. */
export type AllReduceLine =
  | { readonly kind: 'no-python3' | 'no-torch' }
  | { readonly kind: 'torch'; readonly backend: Backend }
  | { readonly kind: 'allreduce'; readonly bytes: number; readonly iterations: number; readonly seconds: number; readonly backend: Backend }
  | { readonly kind: 'allreduce-failed'; readonly why: string };

const PATTERNS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => AllReduceLine]> = [
  [/^(no-python3|no-torch)$/, (m) => ({ kind: m[1] as 'no-python3' | 'no-torch' })],
  [/^torch (nccl|gloo)$/, (m) => ({ kind: 'torch', backend: m[1] as Backend })],
  [
    /^allreduce (\d{1,12}) (\d{1,4}) (\d{1,6}\.\d{1,9}) (nccl|gloo)$/,
    (m) => ({ kind: 'allreduce', bytes: Number(m[1]), iterations: Number(m[2]), seconds: Number(m[3]), backend: m[4] as Backend }),
  ],
  [/^allreduce-failed ([a-z][a-z0-9]{0,31})$/, (m) => ({ kind: 'allreduce-failed', why: m[1]! })],
];

/** The program's lines in what a node printed; anything without the tag, or of another shape, is left out. */
export function parseAllReduce(output: string): AllReduceLine[] {
  const lines: AllReduceLine[] = [];
  for (const raw of output.split('\n')) {
    const text = raw.trim();
    if (!text.startsWith(`${PROBE_TAG} `)) continue;
    const rest = text.slice(PROBE_TAG.length + 1);
    const found = PATTERNS.map(([pattern, read]) => ((m) => (m ? read(m) : undefined))(pattern.exec(rest))).find((l) => l);
    if (found) lines.push(found);
  }
  return lines;
}

/**
 * The bus bandwidth in Gbit/s of `iterations` all-reduces of `bytes` across `nodes` in `seconds`,
 * as nccl-tests define it: algbw = bytes / (seconds / iterations), busbw = algbw × 2(n − 1)/n.
 */
export function busGbits(bytes: number, iterations: number, seconds: number, nodes: number): number {
  const algbw = bytes / (seconds / iterations);
  return (algbw * ((2 * (nodes - 1)) / nodes) * 8) / 1e9;
}

/** The line the notice lists for the all-reduce. */
export function allReduceLine(result: AllReduceResult): string {
  if (result.kind === 'measured')
    return l10n.t('all-reduce across {0} nodes ({1}): {2} Gbit/s', result.nodes, result.backend, result.gbits.toFixed(1));
  if (result.kind === 'failed')
    return l10n.t('all-reduce across {0} nodes ({1}) did not finish: {2}', result.nodes, result.backend, result.why);
  if (result.ranks.length === 1) return l10n.t('all-reduce skipped: node {0} has no torch', result.ranks[0]!);
  return l10n.t('all-reduce skipped: nodes {0} have no torch', result.ranks.join(', '));
}

/**
 * Runs the torch check, then the all-reduce, on every node: its result, or a string when ssh
 * failed on a node or was cancelled (the notice's text). A node without python3 or torch skips it.
 */
export async function allReduce(run: OnRanks, addresses: readonly string[], o: AllReduceOptions): Promise<AllReduceResult | string> {
  const ranks = addresses.map((_, rank) => rank);
  const torch = await run(ranks, (rank) => torchCheckScript(o.port, rank), (TORCH_LIMIT_S + 20) * 1000);
  if (typeof torch === 'string') return torch;
  const said = ranks.map((rank) => parseAllReduce(torch.get(rank)!).find((l) => l.kind === 'torch' || l.kind === 'no-torch'));
  const without = ranks.filter((rank) => said[rank]?.kind !== 'torch');
  if (without.length > 0) return { kind: 'skipped', ranks: without };
  const backend: Backend = said.every((l) => l?.kind === 'torch' && l.backend === 'nccl') ? 'nccl' : 'gloo';
  const size =
    o.bytes !== undefined && Number.isInteger(o.bytes) && o.bytes >= 1024 ** 2 && o.bytes <= 256 * 1024 ** 2 ? o.bytes : ALLREDUCE_BYTES;
  const base = { world: ranks.length, master: addresses[0]!, port: o.port, backend, bytes: size - (size % 4), wait: o.wait };
  const scripts = (rank: number) => allReduceScript({ ...base, rank, iface: o.iface ?? OVERLAY_INTERFACE });
  const out = await run(ranks, scripts, (allReduceLimit(o.wait) + 30) * 1000);
  if (typeof out === 'string') return out;
  const lines = ranks.map((rank) => parseAllReduce(out.get(rank)!));
  const done = lines[0]!.find((l): l is Extract<AllReduceLine, { kind: 'allreduce' }> => l.kind === 'allreduce');
  const nodes = ranks.length;
  if (done && done.seconds > 0 && done.iterations > 0)
    return { kind: 'measured', nodes, backend, gbits: busGbits(done.bytes, done.iterations, done.seconds, nodes) };
  const failed = lines.flat().find((l): l is Extract<AllReduceLine, { kind: 'allreduce-failed' }> => l.kind === 'allreduce-failed');
  return { kind: 'failed', nodes, backend, why: failed?.why ?? l10n.t('no answer') };
}
