/**
 * The hostfile of a cluster job, as DeepSpeed and MPI read it: one line per node in rank order,
 * `<overlay address> slots=<GPUs>`. DeepSpeed's `--no_ssh` launch needs it on every node: it takes
 * the node count and each node's GPUs from it, and `--node_rank` must be a line of it. It lives in
 * the job's folder on each node (`<jobs>/<jobId>/hostfile`), and `GPU_RENTAL_HOSTFILE` names it.
 */

import { shellQuote } from '../../shell';
import { jobDir } from '../scripts';
import { checkLayout, type ClusterLayout } from './env';

/** The file's name in the job's folder. */
export const HOSTFILE_NAME = 'hostfile';

/** The variable that holds the hostfile's path while the job runs. */
export const HOSTFILE_VARIABLE = 'GPU_RENTAL_HOSTFILE';

/** The hostfile's lines, rank 0 first, e.g. `10.0.0.1 slots=8`. */
export function hostfileLines(layout: ClusterLayout): string[] {
  return checkLayout(layout).nodes.map((node) => `${node.address} slots=${node.gpus}`);
}

/** The hostfile's text, each line ending in a newline. */
export function hostfileText(layout: ClusterLayout): string {
  return hostfileLines(layout)
    .map((line) => `${line}\n`)
    .join('');
}

/** The shell expression of the hostfile's path on a node, in the job's folder (see jobDir). */
export function hostfilePath(jobId: string, jobsDir?: string): string {
  return `${jobDir(jobId, jobsDir)}/${HOSTFILE_NAME}`;
}

/**
 * Two lines of bash that set `GPU_RENTAL_HOSTFILE` to the hostfile's path and write the file there
 * (replacing one a retry left), before the launcher that reads it starts.
 */
export function writeHostfileLines(layout: ClusterLayout, jobId: string, jobsDir?: string): string[] {
  const lines = hostfileLines(layout).map(shellQuote).join(' ');
  return [`export ${HOSTFILE_VARIABLE}=${hostfilePath(jobId, jobsDir)}`, `printf '%s\\n' ${lines} >"$${HOSTFILE_VARIABLE}"`];
}
