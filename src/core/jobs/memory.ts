import { parsePolicy, policyText, type OutbidPolicy } from './resumable';
import { isJobId } from './scripts';

/** A job started from this workspace, kept so the window re-attaches to it after a reload or the next day. */
export interface RememberedJob {
  readonly jobId: string;
  readonly instanceId: number;
  readonly label: string;
  /** When it was started, in ms. */
  readonly startedAtMs: number;
  /** Its terminal was open when the window last saw it: re-attaching opens it again. */
  readonly terminalOpen: boolean;
  /** Its end was seen (and told); it stays for the tree and Show Output but is not followed again. */
  readonly ended: boolean;
}

/** Per-workspace storage (VS Code's workspaceState). */
export interface WorkspaceMemento {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

export const JOB_MEMORY_KEYS = {
  jobs: 'gpuRental.jobs.remembered',
  lastCommand: 'gpuRental.jobs.lastCommand',
  uploadFirst: 'gpuRental.jobs.uploadFirst',
  /** Run on Instance's last answer to "Resumable?", and the checkpoint folder it was given. */
  resumable: 'gpuRental.jobs.resumable',
  checkpointDir: 'gpuRental.jobs.checkpointDir',
  /** The answers of the last Run on Instance started here: what Run Last Job Again repeats. */
  lastJob: 'gpuRental.jobs.last',
  /** The cluster jobs started here, as cluster/clusterJobStore.ts writes and reads them. */
  clusterJobs: 'gpuRental.jobs.clusters',
} as const;

/** The answers of the last Run on Instance in this workspace: Run Last Job Again runs them again without asking. */
export interface LastJob {
  /** The instance it ran on: the rerun's instance while it runs. */
  readonly instanceId?: number;
  readonly command: string;
  readonly uploadFirst: boolean;
  /** The local folder it uploaded first, when known. */
  readonly localDir?: string;
  /** The folder on the instance it was told to run in; undefined: the uploaded folder, else the remote folder setting. */
  readonly cwd?: string;
  readonly stopAtEnd: boolean;
  /** Set for a resumable job. */
  readonly resume?: { readonly checkpointDir: string; readonly resumeCommand: string; readonly policy: OutbidPolicy };
}

/** A text kept in the memory: not empty, at most `max` characters. */
function text(value: unknown, max = 4000): string | undefined {
  return typeof value === 'string' && value.trim() && value.length <= max ? value : undefined;
}

function readLastJob(value: unknown): LastJob | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const command = text(v['command']);
  if (command === undefined || typeof v['uploadFirst'] !== 'boolean' || typeof v['stopAtEnd'] !== 'boolean') return undefined;
  const id = v['instanceId'];
  const instanceId = typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined;
  const localDir = text(v['localDir'], 1000);
  const cwd = text(v['cwd'], 1000);
  const r = typeof v['resume'] === 'object' && v['resume'] !== null ? (v['resume'] as Record<string, unknown>) : undefined;
  const checkpointDir = text(r?.['checkpointDir'], 1000);
  const resumeCommand = text(r?.['resumeCommand']);
  const policy = typeof r?.['policy'] === 'string' ? parsePolicy(r['policy']) : undefined;
  // A resumable job read back without all of its answers is not run again as one that runs once.
  if (r && (checkpointDir === undefined || resumeCommand === undefined || policy === undefined)) return undefined;
  return {
    command,
    uploadFirst: v['uploadFirst'],
    stopAtEnd: v['stopAtEnd'],
    ...(instanceId !== undefined ? { instanceId } : {}),
    ...(localDir !== undefined ? { localDir } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(checkpointDir !== undefined && resumeCommand !== undefined && policy ? { resume: { checkpointDir, resumeCommand, policy } } : {}),
  };
}

/** At most this many jobs are remembered per workspace, the newest kept. */
export const MAX_REMEMBERED_JOBS = 50;

function readJob(value: unknown): RememberedJob | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const { jobId, instanceId, label, startedAtMs } = v;
  if (typeof jobId !== 'string' || !isJobId(jobId)) return undefined;
  if (typeof instanceId !== 'number' || !Number.isSafeInteger(instanceId) || instanceId <= 0) return undefined;
  return {
    jobId,
    instanceId,
    label: typeof label === 'string' ? label.slice(0, 200) : jobId,
    startedAtMs: typeof startedAtMs === 'number' && Number.isFinite(startedAtMs) ? startedAtMs : 0,
    terminalOpen: v['terminalOpen'] === true,
    ended: v['ended'] === true,
  };
}

function same(j: RememberedJob, jobId: string, instanceId: number | undefined): boolean {
  return j.jobId === jobId && (instanceId === undefined || j.instanceId === instanceId);
}

/**
 * What a workspace remembers about its jobs: the jobs themselves, the last command typed and
 * whether to upload first. An unreadable value reads as nothing remembered, never as an error.
 */
export class JobMemory {
  /** The last stored value read and what it held: the tree asks once per instance row, the store changes rarely. */
  private read: { value: unknown; jobs: readonly RememberedJob[]; instances: ReadonlySet<number> } | undefined;

  constructor(private readonly memento: WorkspaceMemento) {}

  jobs(): RememberedJob[] {
    return [...this.current().jobs];
  }

  /** Whether a job on this instance is remembered. */
  hasJobsOn(instanceId: number): boolean {
    return this.current().instances.has(instanceId);
  }

  private current(): { jobs: readonly RememberedJob[]; instances: ReadonlySet<number> } {
    const value = this.memento.get(JOB_MEMORY_KEYS.jobs);
    // The same stored value reads the same: read again only when another one was stored.
    if (this.read && this.read.value === value && value !== undefined) return this.read;
    const jobs = Array.isArray(value) ? value.map(readJob).filter((j): j is RememberedJob => j !== undefined) : [];
    this.read = { value, jobs, instances: new Set(jobs.map((j) => j.instanceId)) };
    return this.read;
  }

  /** The job `jobId` (on `instanceId` when given: a cluster job has one id on each of its nodes). */
  job(jobId: string, instanceId?: number): RememberedJob | undefined {
    return this.jobs().find((j) => same(j, jobId, instanceId));
  }

  async remember(job: RememberedJob): Promise<void> {
    const others = this.jobs().filter((j) => !same(j, job.jobId, job.instanceId));
    await this.memento.update(JOB_MEMORY_KEYS.jobs, [...others, job].slice(-MAX_REMEMBERED_JOBS));
  }

  /** Changes the job `jobId` (on `instanceId` when given, else on every instance). */
  async change(jobId: string, patch: Partial<Pick<RememberedJob, 'terminalOpen' | 'ended'>>, instanceId?: number): Promise<void> {
    const jobs = this.jobs();
    if (!jobs.some((j) => same(j, jobId, instanceId))) return;
    await this.memento.update(
      JOB_MEMORY_KEYS.jobs,
      jobs.map((j) => (same(j, jobId, instanceId) ? { ...j, ...patch } : j)),
    );
  }

  /** A job moved from one instance to another (an outbid's move): it is remembered on the new one, not yet ended. */
  async moveJob(jobId: string, fromId: number, toId: number): Promise<void> {
    const jobs = this.jobs();
    const moving = jobs.find((j) => same(j, jobId, fromId));
    if (!moving) return;
    const others = jobs.filter((j) => !same(j, jobId, fromId) && !same(j, jobId, toId));
    await this.memento.update(JOB_MEMORY_KEYS.jobs, [...others, { ...moving, instanceId: toId, ended: false }].slice(-MAX_REMEMBERED_JOBS));
  }

  lastCommand(): string | undefined {
    const value = this.memento.get(JOB_MEMORY_KEYS.lastCommand);
    return typeof value === 'string' && value.trim() ? value : undefined;
  }

  setLastCommand(command: string): Thenable<void> {
    return this.memento.update(JOB_MEMORY_KEYS.lastCommand, command);
  }

  /** Whether the workspace uploads itself before a job; undefined until the user chose once. */
  uploadFirst(): boolean | undefined {
    const value = this.memento.get(JOB_MEMORY_KEYS.uploadFirst);
    return typeof value === 'boolean' ? value : undefined;
  }

  setUploadFirst(value: boolean): Thenable<void> {
    return this.memento.update(JOB_MEMORY_KEYS.uploadFirst, value);
  }

  /** Whether the last job started here was resumable; undefined until the user chose once. */
  resumable(): boolean | undefined {
    const value = this.memento.get(JOB_MEMORY_KEYS.resumable);
    return typeof value === 'boolean' ? value : undefined;
  }

  setResumable(value: boolean): Thenable<void> {
    return this.memento.update(JOB_MEMORY_KEYS.resumable, value);
  }

  /** The checkpoint folder the last resumable job was given. */
  lastCheckpointDir(): string | undefined {
    const value = this.memento.get(JOB_MEMORY_KEYS.checkpointDir);
    return typeof value === 'string' && value.trim() && value.length <= 1000 ? value : undefined;
  }

  setLastCheckpointDir(dir: string): Thenable<void> {
    return this.memento.update(JOB_MEMORY_KEYS.checkpointDir, dir);
  }

  /** The answers of the last Run on Instance here; undefined before the first one, or when unreadable. */
  lastJob(): LastJob | undefined {
    return readLastJob(this.memento.get(JOB_MEMORY_KEYS.lastJob));
  }

  setLastJob(job: LastJob): Thenable<void> {
    const { resume, ...rest } = job;
    return this.memento.update(
      JOB_MEMORY_KEYS.lastJob,
      resume ? { ...rest, resume: { ...resume, policy: policyText(resume.policy) } } : rest,
    );
  }

  /** The cluster jobs' records as stored, unread (cluster/clusterJobStore.ts reads and checks them). */
  clusterRecords(): unknown {
    return this.memento.get(JOB_MEMORY_KEYS.clusterJobs);
  }

  setClusterRecords(records: readonly unknown[]): Thenable<void> {
    return this.memento.update(JOB_MEMORY_KEYS.clusterJobs, records);
  }
}
