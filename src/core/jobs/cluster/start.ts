/**
 * The start of a cluster job: one detached job per node, with one job id, under one cancellable
 * progress. A start that fails on one node, or the user's Cancel while the nodes start, stops the
 * job on every node it already started on (each keeps its instance running), so none waits burning
 * for a peer that never comes. A start already under way when Cancel is pressed is let finish (a
 * start cut short over ssh could leave a job nobody knows of), then stopped with the others.
 */

import type { Instance } from '../../api/instances';
import { instanceName } from '../../instances/names';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import type { Notice } from '../../notice';
import { silentProgress, type Progress } from '../../progress';
import type { ClusterJob, ClusterJobAction } from './clusterJob';

/** A cluster as the flow takes it: how it is named, and its nodes in rank order (rank 0 first). */
export interface ClusterTarget {
  readonly label: string;
  readonly nodes: readonly Instance[];
}

/** What a node's job starts with (the book's run, given the shared id). */
export interface NodeStart {
  readonly command: string;
  readonly cwd: string;
  readonly stopAtEnd: boolean;
  readonly jobId: string;
  readonly label: string;
  /** Rank 0's terminal opens; the others are followed quietly. */
  readonly show: boolean;
}

/** Nothing started (or, cancelled, nothing runs any more): why, and what to do. */
export interface RunClusterFailed {
  readonly kind: 'refused' | 'failed' | 'cancelled';
  readonly notice: Notice;
}

export type RunClusterOutcome =
  { readonly kind: 'started'; readonly job: ClusterJob; readonly notice: Notice<ClusterJobAction> } | RunClusterFailed;

/** The start's ports (Run on Cluster's deps hold them). */
export interface StartPorts {
  /** Starts the node's job detached (the job book's run). */
  readonly start: (instance: Instance, o: NodeStart) => Promise<void>;
  /** Stops a node's job (after a failed start on another node, or Cancel). */
  readonly stop: (instanceId: number, jobId: string, stopInstance: boolean) => Promise<boolean>;
  readonly logger: Logger;
  /** The start's cancellable progress; its Cancel stops the job on every node it started on. Default: nothing shown. */
  readonly progress?: Progress;
}

/** What every node starts with: the shared id and words, each rank's command and folder. */
export interface ClusterStart {
  readonly jobId: string;
  readonly label: string;
  readonly stopAtEnd: boolean;
  readonly commands: readonly string[];
  cwdOf(rank: number): string;
}

export const rankName = (instance: Instance, rank: number) => l10n.t('rank {0} ({1})', rank, instanceName(instance));

export function failedWith(text: string): RunClusterFailed {
  return { kind: 'failed', notice: { severity: 'error', text } };
}

/** Starts the job on every node at once; what came of it (started, failed on a node, or cancelled), every node left consistent. */
export function startAll(deps: StartPorts, cluster: ClusterTarget, o: ClusterStart): Promise<RunClusterOutcome> {
  const progress = deps.progress ?? silentProgress();
  const title = l10n.t('starting {0} on the {1} nodes of {2}', o.label, cluster.nodes.length, cluster.label);
  return progress(title, async (task) => {
    const started = await Promise.allSettled(
      cluster.nodes.map(async (n, rank) => {
        await deps.start(n, {
          command: o.commands[rank]!,
          cwd: o.cwdOf(rank),
          stopAtEnd: o.stopAtEnd,
          jobId: o.jobId,
          label: o.label,
          show: rank === 0,
        });
        task.report({ message: l10n.t('started on {0}', rankName(n, rank)), increment: 100 / cluster.nodes.length });
      }),
    );
    const ok = cluster.nodes.filter((_, rank) => started[rank]!.status === 'fulfilled');
    const failed = cluster.nodes.map((n, rank) => ({ n, rank, r: started[rank]! })).filter(({ r }) => r.status === 'rejected');
    if (task.signal.aborted) return cancelled(deps, cluster, o, ok);
    if (failed.length === 0) return startedOn(deps, cluster, o);
    // The nodes that started wait for peers that never come: end their jobs (each keeps its instance running).
    await Promise.allSettled(ok.map((n) => deps.stop(n.id, o.jobId, false)));
    const why = (failed[0]!.r as PromiseRejectedResult).reason;
    deps.logger.warn(
      `Cluster job ${o.jobId}: the start failed on ${failed.map(({ n }) => `#${n.id}`).join(', ')}; stopped it on ${ok.length} node(s).`,
    );
    return failedWith(
      l10n.t(
        'GPU Rental: the job could not start on {0} ({1}); it was stopped on the other nodes, which keep running. Run the job again.',
        failed.map(({ n, rank }) => rankName(n, rank)).join(', '),
        why instanceof Error ? why.message : String(why),
      ),
    );
  });
}

function startedOn(deps: Pick<StartPorts, 'logger'>, cluster: ClusterTarget, o: ClusterStart): RunClusterOutcome {
  const job: ClusterJob = {
    jobId: o.jobId,
    label: o.label,
    cluster: cluster.label,
    nodes: cluster.nodes.map((n) => n.id),
    stopAtEnd: o.stopAtEnd,
  };
  deps.logger.info(`Cluster job ${o.jobId} started on ${cluster.nodes.length} node(s) of ${cluster.label}.`);
  return {
    kind: 'started',
    job,
    notice: {
      severity: 'info',
      text: l10n.t(
        "GPU Rental: {0} started on the {1} nodes of {2}. Rank 0's output is in the job's terminal; Switch Rank shows another node's.",
        o.label,
        cluster.nodes.length,
        cluster.label,
      ),
      actions: ['switchRank'],
    },
  };
}

/** Cancel while the nodes started: the job is stopped on each node it started on; a stop that failed is named. */
async function cancelled(
  deps: Pick<StartPorts, 'stop' | 'logger'>,
  cluster: ClusterTarget,
  o: ClusterStart,
  ok: readonly Instance[],
): Promise<RunClusterFailed> {
  const stops = await Promise.allSettled(ok.map((n) => deps.stop(n.id, o.jobId, false)));
  const left = ok.map((n) => ({ n, rank: cluster.nodes.indexOf(n) })).filter((_, at) => stops[at]!.status === 'rejected');
  deps.logger.warn(
    `Cluster job ${o.jobId}: cancelled while it started; stopped it on ${ok.length - left.length} of ${ok.length} node(s) it had started on.`,
  );
  if (left.length === 0)
    return {
      kind: 'cancelled',
      notice: {
        severity: 'warning',
        text: l10n.t(
          'GPU Rental: you cancelled {0} while it started on {1}; it runs on no node now, and the nodes keep running. Run the job again when you are ready.',
          o.label,
          cluster.label,
        ),
      },
    };
  return {
    kind: 'cancelled',
    notice: {
      severity: 'error',
      text: l10n.t(
        'GPU Rental: you cancelled {0} while it started on {1}, but it could not be stopped on {2}. Stop it there from the Instances view.',
        o.label,
        cluster.label,
        left.map(({ n, rank }) => rankName(n, rank)).join(', '),
      ),
    },
  };
}
