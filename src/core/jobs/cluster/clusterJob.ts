/**
 * A cluster job as one thing: one job id on every node, each node's own job row (the job book's
 * listing), and the state the user reads, decided here from those rows:
 *
 * - starting: some node has no row yet;
 * - running: every node runs it; "k of n exited" once some ended well and others still run;
 * - succeeded: every node ended with exit 0;
 * - failed at rank r: the first node (by its end, then by rank) whose job failed (non-zero exit,
 *   not stopped by hand) or died with its instance, with its last lines;
 * - stopped: stopped by hand, with no failure.
 *
 * When one node fails, `ClusterJobWatch` stops the job on every node still running it, so none is
 * left burning its rate waiting for a peer that is gone, and says so once. The end of a cluster job
 * is one notice, not one per node (the job book leaves its nodes' own to it): when the nodes stop
 * themselves at the end, the watch waits to see them stopped and says so in the same notice, with
 * what their disks still bill together.
 */

import type { Disposable } from '../../events';
import { formatDollars } from '../../format';
import { realTimers } from '../../instances/poller';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import type { Notice } from '../../notice';
import { visibleText } from '../../text';
import { STOP_SEEN_MS, watchStops, type StopsSeen, type StopWatch } from '../notices';
import { jobPhase, stopsInstance, type JobStatus } from '../status';

/** A button of a cluster job's notice; ui words it. */
export type ClusterJobAction = 'switchRank' | 'showOutput';

/** One run of Run on Cluster. */
export interface ClusterJob {
  readonly jobId: string;
  /** The run's words, e.g. `torchrun train.py --lr 3e-4` (see runLabel). */
  readonly label: string;
  /** How the cluster is named (its overlay's name). */
  readonly cluster: string;
  /** The nodes' instance ids in rank order (rank 0 first). */
  readonly nodes: readonly number[];
  /** Each node stops itself when its job ends. */
  readonly stopAtEnd: boolean;
}

export type ClusterJobState =
  | { readonly kind: 'starting'; readonly nodes: number }
  | { readonly kind: 'running'; readonly exited: number; readonly nodes: number }
  | { readonly kind: 'succeeded'; readonly nodes: number }
  | {
      readonly kind: 'failed';
      readonly rank: number;
      readonly instanceId: number;
      /** Undefined when it died with its instance. */
      readonly exitCode: number | undefined;
    }
  | { readonly kind: 'stopped'; readonly nodes: number };

function failedAt(s: JobStatus): boolean {
  const phase = jobPhase(s);
  return phase === 'interrupted' || (phase === 'exited' && s.exitCode !== 0 && s.cancelled === undefined);
}

/** The cluster job's state from each node's row (`statuses[rank]`, undefined when its listing does not show it yet). */
export function clusterJobState(job: Pick<ClusterJob, 'nodes'>, statuses: readonly (JobStatus | undefined)[]): ClusterJobState {
  const nodes = job.nodes.length;
  const failures = job.nodes
    .map((instanceId, rank) => ({ instanceId, rank, status: statuses[rank] }))
    .filter((n): n is { instanceId: number; rank: number; status: JobStatus } => n.status !== undefined && failedAt(n.status))
    .sort((a, b) => (a.status.endedAt ?? Infinity) - (b.status.endedAt ?? Infinity) || a.rank - b.rank);
  const first = failures[0];
  if (first) return { kind: 'failed', rank: first.rank, instanceId: first.instanceId, exitCode: first.status.exitCode };
  const rows = job.nodes.map((_, rank) => statuses[rank]);
  if (rows.some((s) => s === undefined)) return { kind: 'starting', nodes };
  const all = rows as JobStatus[];
  const exited = all.filter((s) => jobPhase(s) === 'exited');
  if (exited.length === nodes)
    return exited.some((s) => s.cancelled !== undefined) ? { kind: 'stopped', nodes } : { kind: 'succeeded', nodes };
  return { kind: 'running', exited: exited.length, nodes };
}

/** A job's output, as its terminal holds it, down to its last `count` lines of its own (no note of GPU Rental's, no escapes). */
export function lastLines(text: string, count = 5): string[] {
  return (
    text
      .split(/\r?\n|\r/)
      // GPU Rental's own notes are dimmed (ESC[2m); they are not the job's output.
      .filter((line) => !line.startsWith('\u001b[2m'))
      // eslint-disable-next-line no-control-regex -- escape sequences are what is taken out
      .map((line) => visibleText(line.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ''), 300).trim())
      .filter((line) => line !== '')
      .slice(-count)
  );
}

/** The state in words, e.g. "running on 2 nodes", "1 of 2 nodes exited", "failed at rank 1 (exit 2)". */
export function clusterStateText(state: ClusterJobState): string {
  switch (state.kind) {
    case 'starting':
      return l10n.t('starting on {0} nodes', state.nodes);
    case 'running':
      return state.exited === 0
        ? l10n.t('running on {0} nodes', state.nodes)
        : l10n.t('{0} of {1} nodes exited', state.exited, state.nodes);
    case 'succeeded':
      return l10n.t('finished on all {0} nodes', state.nodes);
    case 'stopped':
      return l10n.t('stopped by you');
    case 'failed':
      return state.exitCode === undefined
        ? l10n.t('failed at rank {0}: its instance #{1} stopped while it ran', state.rank, state.instanceId)
        : l10n.t('failed at rank {0} on #{1} (exit {2})', state.rank, state.instanceId, String(state.exitCode));
  }
}

/** What the book gives the watch: the rows, a change, a stop, and what a node's terminal holds. */
export interface ClusterJobBook {
  readonly onDidChange: (listener: () => void) => Disposable;
  statusesOf(instanceId: number): readonly JobStatus[];
  stop(instanceId: number, jobId: string, stopInstance: boolean): Promise<boolean>;
  outputText(jobId: string, instanceId?: number): string | undefined;
  /** Leaves the end and the stop of the node jobs `owns` answers true for to their cluster job (the job book's). */
  claimNotices?(owns: (instanceId: number, jobId: string) => boolean): Disposable;
}

/** A cluster job's notice; ui words its buttons. */
export type ClusterJobNotice = Notice<ClusterJobAction> & { readonly job: ClusterJob; readonly rank?: number };

export interface ClusterJobWatchDeps {
  readonly book: ClusterJobBook;
  readonly notify: (notice: ClusterJobNotice) => void;
  readonly logger: Logger;
  /**
   * The poll, to see the nodes stop after the job's end when they stop themselves. Without it the
   * end is told at once and the stop is left to the job book.
   */
  readonly poller?: StopWatch['poller'];
  readonly timers?: StopWatch['timers'];
  /** The job ended and the end was decided (the store forgets the job: a reload does not tell it again); the stop may still be told. */
  readonly onEnded?: (job: ClusterJob) => void;
}

/**
 * What is told once the nodes a cluster job's end stopped are seen stopped, or not: `finished`, the
 * node count when it finished on all of them (the notice of its end, with what the stopped disks
 * bill together); undefined after a failure or a stop by hand, which were told already, so only
 * nodes not seen stopped are worth a word.
 */
export function clusterStopNotice(job: ClusterJob, seen: StopsSeen, finished: number | undefined): ClusterJobNotice | undefined {
  if (seen.kind === 'unseen') {
    const ids = seen.unseen.map((id) => `#${id}`).join(', ');
    const minutes = STOP_SEEN_MS / 60_000;
    const text =
      finished !== undefined
        ? l10n.t(
            'GPU Rental: {0} finished on all nodes of {1}, but these nodes are not seen stopped after {2} minutes, so they may still bill their full rate: {3}. Check them in the Instances view and stop them yourself if they run.',
            job.label,
            job.cluster,
            minutes,
            ids,
          )
        : l10n.t(
            'GPU Rental: the nodes of {0} were to stop after {1} ended, but these are not seen stopped after {2} minutes, so they may still bill their full rate: {3}. Check them in the Instances view and stop them yourself if they run.',
            job.cluster,
            job.label,
            minutes,
            ids,
          );
    return { severity: 'warning', text, actions: [], job };
  }
  if (finished === undefined) return undefined;
  if (seen.stopped.length === 0) return finishedNotice(job, finished);
  const disks = seen.stopped.map((s) => s.diskPerHour);
  const total = disks.every((d) => typeof d === 'number' && d > 0) ? disks.reduce<number>((t, d) => t + d!, 0) : undefined;
  const text =
    total === undefined
      ? l10n.t(
          'GPU Rental: {0} finished on all {1} nodes of {2}, and the cluster stopped itself; its disks still bill until you destroy the nodes. Download the outputs before you destroy them.',
          job.label,
          finished,
          job.cluster,
        )
      : l10n.t(
          'GPU Rental: {0} finished on all {1} nodes of {2}, and the cluster stopped itself; its disks still bill {3}/h together until you destroy the nodes. Download the outputs before you destroy them.',
          job.label,
          finished,
          job.cluster,
          formatDollars(total),
        );
  return { severity: 'info', text, actions: ['switchRank'], job };
}

function finishedNotice(job: ClusterJob, nodes: number): ClusterJobNotice {
  return {
    severity: 'info',
    text: l10n.t('GPU Rental: {0} finished on all {1} nodes of {2}.', job.label, nodes, job.cluster),
    actions: ['switchRank'],
    job,
  };
}

/**
 * Follows one cluster job through the book's rows until it ends: when a node fails, stops the job
 * on the others (each still stops its instance at its end when the run asked for it) and tells
 * which rank failed with its last lines; when every node finished, says so once.
 */
export class ClusterJobWatch implements Disposable {
  private readonly subscription: Disposable;
  private done = false;
  /** Ends the wait to see the nodes stopped after the job's end. */
  private stopWatch: (() => void) | undefined;
  private disposed = false;
  /** Resolves once the others were asked to stop after a failure (tests wait on it). */
  stopping: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: ClusterJobWatchDeps,
    readonly job: ClusterJob,
  ) {
    this.subscription = deps.book.onDidChange(() => this.check());
  }

  /** The state now, from the book's last rows. */
  state(): ClusterJobState {
    return clusterJobState(this.job, this.statuses());
  }

  /** Whether the job ended on every node or failed (the watch is over). */
  get ended(): boolean {
    return this.done;
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    this.stopWatch?.();
  }

  private statuses(): (JobStatus | undefined)[] {
    return this.job.nodes.map((id) => this.deps.book.statusesOf(id).find((s) => s.jobId === this.job.jobId));
  }

  /** Reads the rows again (a watch restored after a reload does so at once: the book may have listed already). */
  check(): void {
    if (this.done) return;
    const statuses = this.statuses();
    const state = clusterJobState(this.job, statuses);
    if (state.kind === 'failed' || state.kind === 'succeeded' || state.kind === 'stopped') this.subscription.dispose();
    if (state.kind === 'failed') {
      this.done = true;
      this.stopping = this.failed(state, statuses);
    } else if (state.kind === 'succeeded' || state.kind === 'stopped') {
      this.done = true;
      const finished = state.kind === 'succeeded' ? state.nodes : undefined;
      const stopping = this.job.nodes.filter((_, rank) => statuses[rank] !== undefined && stopsInstance(statuses[rank]));
      if (!this.followStops(stopping, finished) && finished !== undefined) this.deps.notify(finishedNotice(this.job, finished));
      this.deps.onEnded?.(this.job);
    }
  }

  /**
   * Waits to see `nodes` stopped, then tells the end (`finished`) with the stop, or only the nodes
   * not seen stopped. False when there is nothing to wait for, or no poll to wait on.
   */
  private followStops(nodes: readonly number[], finished: number | undefined): boolean {
    const poller = this.deps.poller;
    if (!poller || nodes.length === 0 || this.disposed) return false;
    const timers = this.deps.timers ?? realTimers;
    this.stopWatch = watchStops({ poller, timers }, nodes, (seen) => {
      this.stopWatch = undefined;
      if (seen.kind === 'unseen')
        this.deps.logger.warn(`Cluster job ${this.job.jobId}: ${seen.unseen.map((id) => `#${id}`).join(', ')} not seen stopped.`);
      const notice = clusterStopNotice(this.job, seen, finished);
      if (notice) this.deps.notify(notice);
    });
    return true;
  }

  private async failed(state: Extract<ClusterJobState, { kind: 'failed' }>, statuses: readonly (JobStatus | undefined)[]): Promise<void> {
    const others = this.job.nodes.filter(
      (_, rank) => rank !== state.rank && (statuses[rank] === undefined || jobPhase(statuses[rank]) === 'running'),
    );
    const results = await Promise.allSettled(others.map((id) => this.deps.book.stop(id, this.job.jobId, this.job.stopAtEnd)));
    const unstopped = others.filter((_, i) => results[i]!.status === 'rejected');
    results.forEach((r, i) => {
      if (r.status === 'rejected')
        this.deps.logger.warn(`Cluster job ${this.job.jobId}: the job on #${others[i]} could not be stopped: ${String(r.reason)}`);
    });
    this.deps.logger.info(
      `Cluster job ${this.job.jobId} failed at rank ${state.rank}; stopped it on ${others.length - unstopped.length} other node(s).`,
    );
    const lines = lastLines(this.deps.book.outputText(this.job.jobId, state.instanceId) ?? '');
    const what = clusterStateText(state);
    const tail = lines.length > 0 ? lines.join('\n') : l10n.t('(no output)');
    const text =
      unstopped.length > 0
        ? l10n.t(
            'GPU Rental: {0} {1}. The job could not be stopped on {2}: stop it there yourself, it bills while it runs. Its last lines: {3}',
            this.job.label,
            what,
            unstopped.map((id) => `#${id}`).join(', '),
            tail,
          )
        : others.length > 0
          ? l10n.t(
              'GPU Rental: {0} {1}. The job was stopped on the other nodes, so none waits for it. Its last lines: {2}',
              this.job.label,
              what,
              tail,
            )
          : l10n.t('GPU Rental: {0} {1}. Its last lines: {2}', this.job.label, what, tail);
    this.deps.notify({ severity: 'warning', text, actions: ['showOutput', 'switchRank'], job: this.job, rank: state.rank });
    this.deps.onEnded?.(this.job);
    // Each node still stops itself when asked to: the failed one at its end, the others after their stop.
    const stopping = this.job.nodes.filter((id, rank) => {
      const s = statuses[rank];
      return others.includes(id) ? this.job.stopAtEnd && !unstopped.includes(id) : s !== undefined && stopsInstance(s);
    });
    this.followStops(stopping, undefined);
  }
}
