/**
 * The command one node of a cluster job runs: the text that becomes the job's `cmd` on that node
 * (see scripts.ts; the wrapper runs it with bash, in the uploaded folder). It sets the cluster's
 * variables, writes the hostfile into the job's folder, then starts the preset's launcher:
 *
 * ```sh
 * # GPU Rental cluster job 20261124-001611-k3f9q2: rank 1 of 2 nodes (torchrun).
 * export MASTER_ADDR=10.0.0.1
 * …
 * export GPU_RENTAL_HOSTFILE="${HOME:-/root}/.gpu-rental/jobs"/20261124-001611-k3f9q2/hostfile
 * printf '%s\n' '10.0.0.1 slots=8' '10.0.0.2 slots=8' >"$GPU_RENTAL_HOSTFILE"
 * torchrun --nnodes=$NNODES --node_rank=$NODE_RANK … train.py --lr 3e-4
 * ```
 *
 * Every node of one run gets the same job id, so its folder has the same name on each.
 */

import { jobLabel } from '../scripts';
import { clusterVariables, exportLines, type ClusterLayout } from './env';
import { writeHostfileLines } from './hostfile';
import { presetLines, type ClusterRun } from './presets';

export interface RankScriptOptions {
  readonly layout: ClusterLayout;
  /** The node this script is for: 0 to the node count less one. */
  readonly rank: number;
  /** The run's job id, the same on every node. */
  readonly jobId: string;
  readonly run: ClusterRun;
  /** An absolute jobs folder instead of `~/.gpu-rental/jobs` (tests). */
  readonly jobsDir?: string;
}

/** The job's command on node `rank`, ending in a newline. */
export function rankScript(o: RankScriptOptions): string {
  const lines = presetLines(o.run, o.layout, o.rank, o.jobId);
  return [
    `# GPU Rental cluster job ${o.jobId}: rank ${o.rank} of ${o.layout.nodes.length} nodes (${o.run.preset}).`,
    ...exportLines(clusterVariables(o.layout, o.rank)),
    ...writeHostfileLines(o.layout, o.jobId, o.jobsDir),
    ...lines,
    '',
  ].join('\n');
}

/** The words a row shows for the run, e.g. `torchrun train.py --lr 3e-4` (see jobLabel). */
export function runLabel(run: ClusterRun): string {
  if (run.preset === 'custom') return jobLabel(run.command);
  const launcher = run.preset === 'torchrun-c10d' ? 'torchrun' : run.preset;
  return jobLabel(`${launcher} ${run.script}${run.args?.trim() ? ` ${run.args.trim()}` : ''}`);
}
