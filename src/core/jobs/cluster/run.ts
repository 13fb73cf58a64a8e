/**
 * Run on Cluster, decided: what is refused before asking, the questions and their order, the
 * upload to every node, reading each node's overlay address on the node, and the start of one
 * detached job per node with one job id and its own rank's script. ui picks the cluster, wires the
 * ports (Upload Folder's flow, ssh, the job book) and shows the outcome.
 *
 * Refused before asking: a node that is not running (named; it is never started without the
 * user's intent). Nothing starts when the user cancels a question, when an upload to any node did
 * not complete, or when a node's address cannot be read. With the copy from rank 0 (fanout.ts),
 * every node is looked at first (its address, its rsync), so an unusable address refuses before
 * anything is sent, and the workspace is uploaded once, to rank 0. A start that fails on one node
 * stops the job on the nodes it already started on, so none waits burning for a peer that never
 * comes.
 */

import type { Instance } from '../../api/instances';
import { formatDollars } from '../../format';
import { instanceName } from '../../instances/names';
import { instancePhase } from '../../instances/phase';
import { l10n } from '../../l10n';
import type { Ask } from '../../prompts';
import type { JobMemory } from '../memory';
import { askUploadFirst, type UploadRequest } from '../run';
import { interfaceAddressScript, parseInterfaceAddress, type ClusterLayout } from './env';
import { uploadToCluster, type FanoutPorts } from './fanout';
import { nodeProbeScript } from './fanoutScripts';
import {
  failedWith,
  rankName,
  startAll,
  type ClusterTarget,
  type RunClusterFailed,
  type RunClusterOutcome,
  type StartPorts,
} from './start';

export type { ClusterTarget, NodeStart, RunClusterFailed, RunClusterOutcome } from './start';
import { DEFAULT_PRESET, PRESET_IDS, presetDetail, presetLabel, type ClusterRun, type PresetId } from './presets';
import { rankScript, runLabel } from './rankScript';
import { scriptBoxValue, splitScriptLine } from './scriptLine';

/** What may be given instead of asking (tests, automation): each one given is not asked. */
export interface RunClusterGiven {
  preset?: PresetId;
  /** The script and its arguments, e.g. `train.py --lr 3e-4` (a preset other than custom). */
  script?: string;
  /** The custom preset's command. */
  command?: string;
  uploadFirst?: boolean;
  localDir?: string;
  /** The folder on every node to run in, when nothing is uploaded. */
  cwd?: string;
  stopAtEnd?: boolean;
  /** Rank 0's rendezvous port (default: 29500, torchrun's; 6379 for Ray). */
  masterPort?: number;
  /** Debian's torch 1.13 (see ClusterRun). */
  legacyTorch?: boolean;
}

/** What the editor knows: the Python file to suggest (relative to its workspace folder) and the folder Upload sends. */
export interface RunClusterFacts {
  script?: string;
  workspaceDir?: string;
}

export interface RunClusterDeps extends StartPorts {
  readonly ask: Ask;
  readonly memory: Pick<JobMemory, 'uploadFirst' | 'setUploadFirst'>;
  /** Uploads to one node (its own progress); resolves the folder on the node, undefined when cancelled or failed. */
  readonly upload: (instanceId: number, request: UploadRequest) => Promise<string | undefined>;
  readonly uploadDestination: (localDir: string) => string;
  /** Where a job runs when nothing is uploaded (the remote folder setting; empty: the home folder). */
  readonly remoteFolder: string;
  /** Runs a short sh script on the node over ssh; resolves what it printed, rejects when ssh failed. */
  readonly shell: (instance: Instance, script: string) => Promise<string>;
  readonly newJobId: () => string;
  /** The copy from rank 0 to the other nodes (fanout.ts); without it, every node gets its own upload. */
  readonly fanout?: FanoutPorts;
  /** The network check before the first job on this cluster (preflight.ts); undefined: nothing starts. */
  readonly preflight?: (cluster: ClusterTarget) => Promise<'go' | undefined>;
}

/** torchrun's default rendezvous port, and Ray's head port. */
export const DEFAULT_MASTER_PORT = 29500;
export const RAY_PORT = 6379;

const node = rankName;

/**
 * Asks what is not given (the preset, the script or command, upload first, stop at the end),
 * uploads, reads the addresses and starts the job on every node. Undefined when the user cancelled
 * a question: nothing happened.
 */
export async function runOnCluster(
  deps: RunClusterDeps,
  cluster: ClusterTarget,
  facts: RunClusterFacts,
  given: RunClusterGiven,
): Promise<RunClusterOutcome | undefined> {
  const refusal = refuse(cluster);
  if (refusal) return { kind: 'refused', notice: { severity: 'error', text: refusal } };

  const preset = given.preset ?? (await askPreset(deps, cluster));
  if (preset === undefined) return undefined;
  const run = await askRun(deps, cluster, facts, given, preset);
  if (run === undefined) return undefined;
  const uploadFirst = given.uploadFirst ?? (await askUploadFirst(deps));
  if (uploadFirst === undefined) return undefined;
  const stopAtEnd = given.stopAtEnd ?? (await askStopAtEnd(deps, cluster));
  if (stopAtEnd === undefined) return undefined;
  if (deps.preflight && (await deps.preflight(cluster)) !== 'go') return undefined;

  // With the copy from rank 0, each node's look (its address, its rsync) comes first: the copy needs it.
  const probes = deps.fanout ? await Promise.allSettled(cluster.nodes.map((n) => deps.shell(n, nodeProbeScript()))) : undefined;
  const known = probes ? judgeAddresses(deps, cluster, probes) : undefined;
  if (known !== undefined && !Array.isArray(known)) return known;
  const cwds = uploadFirst ? await uploadAll(deps, cluster, given.localDir ?? facts.workspaceDir, probes) : undefined;
  if (cwds !== undefined && !Array.isArray(cwds)) return cwds;
  const cwdOf = (rank: number) => cwds?.[rank] ?? given.cwd ?? (deps.remoteFolder || '~');

  const addresses = known ?? (await readAddresses(deps, cluster));
  if (!Array.isArray(addresses)) return addresses;
  const masterPort = given.masterPort ?? (preset === 'ray' ? RAY_PORT : DEFAULT_MASTER_PORT);
  const layout: ClusterLayout = { nodes: cluster.nodes.map((n, rank) => ({ address: addresses[rank]!, gpus: gpusOf(n) })), masterPort };

  const jobId = deps.newJobId();
  const label = runLabel(run);
  let commands: string[];
  try {
    commands = cluster.nodes.map((_, rank) => rankScript({ layout, rank, jobId, run }));
  } catch (error) {
    return { kind: 'refused', notice: { severity: 'error', text: error instanceof Error ? error.message : String(error) } };
  }
  return startAll(deps, cluster, { jobId, label, stopAtEnd, commands, cwdOf });
}

/** Why the cluster cannot run a job now (a node not running, named), or undefined. */
function refuse(cluster: ClusterTarget): string | undefined {
  if (cluster.nodes.length === 0)
    return l10n.t('GPU Rental: the cluster {0} has no node to run on. Rent its nodes first, then run the job again.', cluster.label);
  const idle = cluster.nodes.map((n, rank) => ({ n, rank })).filter(({ n }) => instancePhase(n) !== 'running');
  if (idle.length === 0) return undefined;
  return l10n.t(
    'GPU Rental: the cluster {0} cannot run a job: {1} is not running. Start the cluster in the Instances view, wait until every node runs, then run the job again.',
    cluster.label,
    idle.map(({ n, rank }) => node(n, rank)).join(', '),
  );
}

async function askPreset(deps: RunClusterDeps, cluster: ClusterTarget): Promise<PresetId | undefined> {
  return deps.ask.pick({
    title: l10n.t('GPU Rental: Run on the cluster {0} ({1} nodes)', cluster.label, cluster.nodes.length),
    placeholder: l10n.t('How each node starts the job'),
    items: PRESET_IDS.map((id) => ({
      label: presetLabel(id),
      description: id === DEFAULT_PRESET ? l10n.t('default') : undefined,
      detail: presetDetail(id),
      value: id,
    })),
  });
}

async function askRun(
  deps: RunClusterDeps,
  cluster: ClusterTarget,
  facts: RunClusterFacts,
  given: RunClusterGiven,
  preset: PresetId,
): Promise<ClusterRun | undefined> {
  const title = l10n.t('GPU Rental: Run on the cluster {0} ({1} nodes)', cluster.label, cluster.nodes.length);
  if (preset === 'custom') {
    const command =
      given.command ??
      (await deps.ask.input({
        title,
        prompt: l10n.t(
          'The command every node runs, detached. It can use $MASTER_ADDR, $MASTER_PORT, $NODE_RANK, $NNODES, $NPROC_PER_NODE and $GPU_RENTAL_HOSTFILE.',
        ),
        placeholder: 'torchrun --nnodes=$NNODES --node_rank=$NODE_RANK --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT train.py',
        validate: (v) => (v.trim() ? undefined : l10n.t('Type the command every node runs.')),
      }));
    return command?.trim() ? { preset, command: command.trim() } : undefined;
  }
  const typed =
    given.script ??
    (await deps.ask.input({
      title,
      prompt: l10n.t(
        'The Python script every node runs with {0}, and its arguments, in the uploaded folder. Quote a path with spaces.',
        presetLabel(preset),
      ),
      placeholder: 'train.py --epochs 3',
      value: scriptBoxValue(facts.script),
      validate: (v) => {
        const read = splitScriptLine(v);
        return 'problem' in read ? read.problem : undefined;
      },
    }));
  if (!typed?.trim()) return undefined;
  const read = splitScriptLine(typed);
  if ('problem' in read) return undefined;
  const { script, args } = read;
  if (preset === 'torchrun' || preset === 'torchrun-c10d') return { preset, script, args, legacyTorch: given.legacyTorch };
  return { preset, script, args };
}

async function askStopAtEnd(deps: RunClusterDeps, cluster: ClusterTarget): Promise<boolean | undefined> {
  const disks = cluster.nodes.map((n) => n.storage_total_cost);
  const disk = disks.every((d) => typeof d === 'number' && d > 0) ? disks.reduce<number>((t, d) => t + d!, 0) : undefined;
  return deps.ask.pick({
    title: l10n.t('GPU Rental: When the job on the cluster {0} ends', cluster.label),
    items: [
      {
        label: l10n.t('Stop the cluster when the job ends'),
        detail:
          disk === undefined
            ? l10n.t('Each node stops itself when its job ends, with this window closed too; the disks still bill while stopped.')
            : l10n.t(
                'Each node stops itself when its job ends, with this window closed too; the disks still bill {0}/h while stopped.',
                formatDollars(disk),
              ),
        value: true,
      },
      {
        label: l10n.t('Keep the cluster running'),
        detail: l10n.t('Every node bills its full rate until you stop the cluster.'),
        value: false,
      },
    ],
  });
}

/** Uploads to every node (once to rank 0 when the copy from it works); the folder on each node, or what failed (nothing starts). */
async function uploadAll(
  deps: RunClusterDeps,
  cluster: ClusterTarget,
  localDir: string | undefined,
  probes: readonly PromiseSettledResult<string>[] | undefined,
): Promise<string[] | RunClusterFailed> {
  const request: UploadRequest = localDir ? { localDir, remoteDir: deps.uploadDestination(localDir), quiet: true } : { quiet: true };
  const results = await uploadToCluster(deps, cluster.nodes, request, probes);
  const failed = cluster.nodes.map((n, rank) => ({ n, rank })).filter(({ rank }) => results[rank]!.kind === 'failed');
  if (failed.length > 0)
    return failedWith(
      l10n.t(
        'GPU Rental: the upload to {0} did not complete, so the job started on no node of {1}. Upload again, or run without uploading.',
        failed.map(({ n, rank }) => node(n, rank)).join(', '),
        cluster.label,
      ),
    );
  return results.map((r) => (r.kind === 'uploaded' ? r.dir : ''));
}

/**
 * Every node's overlay (eth0) address, read on the node. Without an eth0 on any node, nodes that
 * all share this machine's loopback (the simulator without root) take 127.0.0.1, 127.0.0.2… by
 * rank, which reach one another there; anything else is refused with what to check.
 */
async function readAddresses(deps: RunClusterDeps, cluster: ClusterTarget): Promise<string[] | RunClusterFailed> {
  const script = interfaceAddressScript();
  return judgeAddresses(deps, cluster, await Promise.allSettled(cluster.nodes.map((n) => deps.shell(n, script))));
}

/** The addresses from what each node printed (its first line, as interfaceAddressScript prints it), or why they cannot be used. */
function judgeAddresses(
  deps: RunClusterDeps,
  cluster: ClusterTarget,
  read: readonly PromiseSettledResult<string>[],
): string[] | RunClusterFailed {
  const unreachable = cluster.nodes.map((n, rank) => ({ n, rank, r: read[rank]! })).filter(({ r }) => r.status === 'rejected');
  if (unreachable.length > 0) {
    const why = (unreachable[0]!.r as PromiseRejectedResult).reason;
    return failedWith(
      l10n.t(
        'GPU Rental: could not read the overlay address of {0} over ssh ({1}). Nothing was started; check that the node runs, then try again.',
        unreachable.map(({ n, rank }) => node(n, rank)).join(', '),
        why instanceof Error ? why.message : String(why),
      ),
    );
  }
  const addresses = read.map((r) => parseInterfaceAddress((r as PromiseFulfilledResult<string>).value));
  if (addresses.every((a): a is string => a !== undefined)) return addresses;
  if (addresses.every((a) => a === undefined) && sharesLoopback(cluster.nodes)) {
    deps.logger.info(`Run on Cluster: no eth0 on the nodes of ${cluster.label}; they share this machine's loopback.`);
    return cluster.nodes.map((_, rank) => `127.0.0.${rank + 1}`);
  }
  const missing = cluster.nodes.filter((_, rank) => addresses[rank] === undefined);
  return failedWith(
    l10n.t(
      "GPU Rental: {0} has no overlay address on eth0, so its nodes cannot reach one another. Check that every node joined the cluster's network (rent the nodes with Rent Cluster), then try again.",
      missing.map((n) => instanceName(n)).join(', '),
    ),
  );
}

function sharesLoopback(nodes: readonly Instance[]): boolean {
  const hosts = new Set(nodes.map((n) => n.ssh_host ?? n.public_ipaddr ?? ''));
  const [host] = [...hosts];
  return hosts.size === 1 && host !== undefined && (/^127\./.test(host) || host === 'localhost');
}

function gpusOf(instance: Instance): number {
  const gpus = instance.num_gpus;
  return typeof gpus === 'number' && Number.isInteger(gpus) && gpus >= 1 ? gpus : 1;
}
