/**
 * Run on Cluster's ports as the extension wires them: a node's shell over ssh, each node's job
 * started and stopped through the job book, a new job id from the clock. The caller hands in what
 * only it knows: the prompts, Upload Folder's flow, the settings, how ssh reaches an instance.
 * The cluster feature (clusterFeature.ts) builds its deps here, and so do the tests and benchmarks
 * that run the flow over real ssh.
 */

import type { Instance } from '../../api/instances';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import type { Progress } from '../../progress';
import type { Ask } from '../../prompts';
import { lastErrorLine, runRemote, type SshTarget } from '../../ssh/remote';
import type { JobBook } from '../book';
import { bashCommand } from '../../shell';
import { newJobId } from '../scripts';
import type { FanoutPorts } from './fanout';
import type { RunClusterDeps } from './run';

/** How long a short script on a node (reading its address) may take. */
export const NODE_SHELL_TIMEOUT_MS = 30_000;

export interface ClusterRunWiring {
  readonly ask: Ask;
  readonly memory: RunClusterDeps['memory'];
  /** Upload Folder's flow for one node, quiet; resolves the folder on the node, undefined when it did not complete. */
  readonly upload: RunClusterDeps['upload'];
  /** The folder on a node that a local folder is uploaded to (the transfer folder setting and its name). */
  readonly uploadDestination: RunClusterDeps['uploadDestination'];
  /** The remote folder setting (empty: the home folder). */
  readonly remoteFolder: string;
  /** Says how ssh reaches a running instance (ui also writes its managed SSH entry). */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  /** The job book: each node's job starts and stops there, so it is listed, followed and remembered. */
  readonly jobs: Pick<JobBook, 'run' | 'stop'>;
  /** The API base URL a node's wrapper stops its instance through. */
  readonly baseUrl: string;
  readonly logger: Logger;
  /** The clock new job ids are made from (default: Date.now). */
  readonly now?: () => number;
  /** The cancellable progress of the start on every node and of the copy from rank 0 (default: nothing shown). */
  readonly progress?: Progress;
  /**
   * Given, the workspace is uploaded once, to rank 0, and the other nodes copy it from there
   * (fanout.ts): the files an upload sends (transfer's uploadedFiles with the exclude setting).
   * Without it, every node gets its own upload.
   */
  readonly fanout?: Pick<FanoutPorts, 'files' | 'progress' | 'ports' | 'token' | 'earlyPullMs' | 'connectAfterMs'>;
}

/** How a node's short script runs: its time limit (default NODE_SHELL_TIMEOUT_MS) and Cancel. */
export interface NodeShellRun {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs a short bash script on the instance over ssh; resolves what it printed, rejects with the
 * error's last line. Run on Cluster's and Check Cluster Network's shell alike.
 */
export function nodeShell(
  sshTarget: (instance: Instance) => Promise<SshTarget>,
  timeoutMs = NODE_SHELL_TIMEOUT_MS,
): (instance: Instance, script: string, o?: NodeShellRun) => Promise<string> {
  return async (instance, script, o = {}) => {
    const result = await runRemote(await sshTarget(instance), bashCommand(script), {
      timeoutMs: o.timeoutMs ?? timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (result.code !== 0) throw new Error(lastErrorLine(result.stderr) || l10n.t('exit code {0}', result.code));
    return result.stdout;
  };
}

/** Run on Cluster's deps from the pieces above; the network check (`preflight`) is the caller's to add. */
export function clusterRunDeps(w: ClusterRunWiring): RunClusterDeps {
  const now = w.now ?? Date.now;
  return {
    ask: w.ask,
    memory: w.memory,
    upload: w.upload,
    uploadDestination: w.uploadDestination,
    remoteFolder: w.remoteFolder,
    shell: nodeShell(w.sshTarget),
    start: async (instance, o) => {
      await w.jobs.run(instance, { ...o, baseUrl: w.baseUrl });
    },
    stop: (instanceId, jobId, stopInstance) => w.jobs.stop(instanceId, jobId, stopInstance),
    newJobId: () => newJobId(now()),
    logger: w.logger,
    ...(w.progress ? { progress: w.progress } : {}),
    ...(w.fanout ? { fanout: fanoutPorts(w.fanout, w.sshTarget, w.progress) } : {}),
  };
}

/** The copy's ports: the caller's, and each script run over ssh with bash, its stdin, Cancel and time limit. */
function fanoutPorts(
  given: NonNullable<ClusterRunWiring['fanout']>,
  sshTarget: ClusterRunWiring['sshTarget'],
  progress: Progress | undefined,
): FanoutPorts {
  const shown = given.progress ?? progress;
  return {
    files: (localDir) => given.files(localDir),
    ...(shown ? { progress: shown } : {}),
    ...(given.ports ? { ports: given.ports } : {}),
    ...(given.token ? { token: given.token.bind(given) } : {}),
    ...(given.earlyPullMs !== undefined ? { earlyPullMs: given.earlyPullMs } : {}),
    ...(given.connectAfterMs !== undefined ? { connectAfterMs: given.connectAfterMs } : {}),
    remote: async (instance, script, o) =>
      runRemote(await sshTarget(instance), bashCommand(script), {
        timeoutMs: o.timeoutMs,
        ...(o.input !== undefined ? { input: o.input } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      }),
  };
}
