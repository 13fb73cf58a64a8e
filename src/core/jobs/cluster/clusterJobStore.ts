/**
 * Cluster jobs outlive the window, as single jobs do. Each one started here is remembered in the
 * workspace's job memory as a small versioned record (its job id, label, cluster and each rank's
 * instance: the node job is that job id on that instance); on activation its watch is restored,
 * so a node that fails still stops the others and is told once, and Switch Rank still finds it.
 *
 * A record that does not read (damaged, another version) or whose nodes' jobs the job memory no
 * longer holds is dropped with a log line. A job whose watch ended and told what it had to say is
 * forgotten, so a reload never tells it again.
 *
 * The records are read with state/readers.ts rather than zod: they are read while the extension
 * activates, where zod must not load (test/unit/activationPath.test.ts).
 */

import type { Disposable } from '../../events';
import { l10n } from '../../l10n';
import type { Logger } from '../../log';
import { guarded, objectOf, ReadError, type Reader } from '../../state/readers';
import type { JobMemory } from '../memory';
import { isJobId } from '../scripts';
import { ClusterJobWatch, type ClusterJob, type ClusterJobWatchDeps } from './clusterJob';

/** The version of the record below; a record of another version is dropped. */
export const CLUSTER_JOB_RECORD_VERSION = 1;

/** At most this many cluster jobs are remembered per workspace, the newest kept. */
export const MAX_REMEMBERED_CLUSTER_JOBS = 20;

/** The most nodes a record may name (far above any cluster the marketplace rents). */
const MAX_NODES = 256;

/** What the store needs of the job memory: its raw cluster records, and whether a node's job is still known. */
export type ClusterJobMemory = Pick<JobMemory, 'clusterRecords' | 'setClusterRecords' | 'job'>;

/** A cluster job as stored. */
interface ClusterJobRecord extends ClusterJob {
  readonly version: typeof CLUSTER_JOB_RECORD_VERSION;
}

const version = guarded((raw): raw is typeof CLUSTER_JOB_RECORD_VERSION => raw === CLUSTER_JOB_RECORD_VERSION, 'version 1');
const jobId = guarded((raw): raw is string => typeof raw === 'string' && isJobId(raw), l10n.t('a job id'));
const text = guarded((raw): raw is string => typeof raw === 'string' && raw.length > 0 && raw.length <= 500, l10n.t('a short text'));
const flag = guarded((raw): raw is boolean => typeof raw === 'boolean', l10n.t('true or false'));
const instanceId = (raw: unknown): raw is number => typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0;

/** The instance ids in rank order: at least one, each once. */
const nodes: Reader<readonly number[]> = (raw, path = '') => {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_NODES || !raw.every(instanceId))
    throw new ReadError(path, l10n.t('expected 1 to {0} instance ids', MAX_NODES));
  if (new Set(raw).size !== raw.length) throw new ReadError(path, l10n.t('expected each instance once'));
  return raw;
};

const readRecord: Reader<ClusterJobRecord> = objectOf({ version, jobId, label: text, cluster: text, nodes, stopAtEnd: flag });

function toRecord(job: ClusterJob): ClusterJobRecord {
  const { jobId, label, cluster, nodes, stopAtEnd } = job;
  return { version: CLUSTER_JOB_RECORD_VERSION, jobId, label, cluster, nodes: [...nodes], stopAtEnd };
}

function toJob(record: ClusterJobRecord): ClusterJob {
  const { jobId, label, cluster, nodes, stopAtEnd } = record;
  return { jobId, label, cluster, nodes, stopAtEnd };
}

/** The cluster jobs this workspace remembers. An unreadable record is left out with a log line, never thrown. */
export class ClusterJobStore {
  constructor(
    private readonly memory: ClusterJobMemory,
    private readonly logger: Logger,
  ) {}

  /** The remembered cluster jobs, oldest first, and how many records did not read. */
  read(): { jobs: ClusterJob[]; dropped: number } {
    const raw = this.memory.clusterRecords();
    if (raw === undefined) return { jobs: [], dropped: 0 };
    if (!Array.isArray(raw)) {
      this.logger.warn('Cluster jobs: the remembered cluster jobs are not a list; they are forgotten.');
      return { jobs: [], dropped: 1 };
    }
    const jobs: ClusterJob[] = [];
    raw.forEach((item, i) => {
      try {
        jobs.push(toJob(readRecord(item, `[${i}]`)));
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.logger.warn(`Cluster jobs: a remembered cluster job does not read (${why}); it is forgotten.`);
      }
    });
    return { jobs, dropped: raw.length - jobs.length };
  }

  jobs(): ClusterJob[] {
    return this.read().jobs;
  }

  async remember(job: ClusterJob): Promise<void> {
    const others = this.jobs().filter((j) => j.jobId !== job.jobId);
    await this.write([...others, job].slice(-MAX_REMEMBERED_CLUSTER_JOBS));
  }

  async forget(jobIds: readonly string[]): Promise<void> {
    const { jobs, dropped } = this.read();
    const kept = jobs.filter((j) => !jobIds.includes(j.jobId));
    if (kept.length !== jobs.length || dropped > 0) await this.write(kept);
  }

  private write(jobs: readonly ClusterJob[]): Thenable<void> {
    return this.memory.setClusterRecords(jobs.map(toRecord));
  }
}

/**
 * What the watches are handed: the watch's own ports (less its end, which the watches take), the
 * poll (each watch sees its nodes stop there) and the job memory.
 */
export interface ClusterJobWatchesDeps extends Omit<ClusterJobWatchDeps, 'onEnded' | 'poller'> {
  readonly poller: NonNullable<ClusterJobWatchDeps['poller']>;
  readonly memory: ClusterJobMemory;
}

/**
 * The cluster jobs of this window, each with its watch: the ones started here and the ones restored
 * from the workspace. A job stays in the list (Switch Rank) after it ended; the store forgets it then.
 * Its node jobs' own notices are left out of the job book's (`claimNotices`): the watch tells the
 * cluster job's end once.
 */
export class ClusterJobWatches implements Disposable {
  private readonly list: ClusterJobWatch[] = [];
  private readonly store: ClusterJobStore;
  /** The store's writes, one after another, so a quick end never runs before its job was remembered. */
  private writes: Promise<void> = Promise.resolve();
  private readonly claim: Disposable | undefined;

  constructor(private readonly deps: ClusterJobWatchesDeps) {
    this.store = new ClusterJobStore(deps.memory, deps.logger);
    this.claim = deps.book.claimNotices?.((instanceId, jobId) => this.belongsToCluster(instanceId, jobId));
  }

  /** Whether the job on the instance is a node of a cluster job of this window (ended or not): its watch tells its end. */
  belongsToCluster(instanceId: number, jobId: string): boolean {
    return this.list.some((w) => w.job.jobId === jobId && w.job.nodes.includes(instanceId));
  }

  /** The watches, oldest first. */
  get all(): readonly ClusterJobWatch[] {
    return this.list;
  }

  /** Resolves once the store's writes so far are done (tests wait on it). */
  get saved(): Promise<void> {
    return this.writes;
  }

  /** Watches a job just started on the cluster, and remembers it. */
  start(job: ClusterJob): ClusterJobWatch {
    this.write(
      () => this.store.remember(job),
      (why) => this.deps.logger.warn(`Cluster jobs: could not remember ${job.jobId}: ${why}`),
    );
    return this.watch(job);
  }

  /**
   * Watches again each remembered cluster job whose nodes' jobs the job memory still holds (after a
   * reload); the others, and the records that do not read, are dropped with a log line.
   */
  restore(): readonly ClusterJobWatch[] {
    const { jobs, dropped } = this.store.read();
    const gone: string[] = [];
    const restored: ClusterJobWatch[] = [];
    for (const job of jobs) {
      if (this.list.some((w) => w.job.jobId === job.jobId)) continue;
      const unknown = job.nodes.filter((id) => this.deps.memory.job(job.jobId, id) === undefined);
      if (unknown.length > 0) {
        this.deps.logger.info(
          `Cluster job ${job.jobId} is forgotten: its job on ${unknown.map((id) => `#${id}`).join(', ')} is no longer remembered.`,
        );
        gone.push(job.jobId);
        continue;
      }
      const watch = this.watch(job);
      restored.push(watch);
      watch.check();
    }
    if (gone.length > 0 || dropped > 0)
      this.write(
        () => this.store.forget(gone),
        (why) => this.deps.logger.warn(`Cluster jobs: could not drop stale records: ${why}`),
      );
    if (restored.length > 0) this.deps.logger.info(`Restored the watch of ${restored.length} cluster job(s).`);
    return restored;
  }

  dispose(): void {
    this.claim?.dispose();
    for (const w of this.list) w.dispose();
  }

  private watch(job: ClusterJob): ClusterJobWatch {
    const watch = new ClusterJobWatch(
      {
        book: this.deps.book,
        notify: this.deps.notify,
        logger: this.deps.logger,
        poller: this.deps.poller,
        timers: this.deps.timers,
        onEnded: (ended) =>
          this.write(
            () => this.store.forget([ended.jobId]),
            (why) => this.deps.logger.warn(`Cluster jobs: could not forget ${ended.jobId}: ${why}`),
          ),
      },
      job,
    );
    this.list.push(watch);
    return watch;
  }

  /** Queues a write of the store; a failure goes to `failed` (a log line), never thrown. */
  private write(work: () => Promise<void>, failed: (why: string) => void): void {
    this.writes = this.writes.then(work).catch((error: unknown) => failed(error instanceof Error ? error.message : String(error)));
  }
}
