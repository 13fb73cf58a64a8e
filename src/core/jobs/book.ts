import type { Instance } from '../api/instances';
import { Emitter, type Disposable } from '../events';
import { instancePhase, type InstancePhase } from '../instances/phase';
import { realTimers, type Timers } from '../instances/poller';
import { l10n } from '../l10n';
import type { SshTarget } from '../ssh/remote';
import { JobChoices, memoryChoicesState } from './choices';
import { Listings } from './listings';
import type { RememberedJob } from './memory';
import { watchStopPending, type JobNotice } from './notices';
import { sshJobs, type Following, type JobBookDeps, type JobRef, type JobRemote, type JobTerminal, type RunOptions } from './ports';
import { resumeJob, type StartedWith } from './remoteJobs';
import type { ResumableJob } from './resumable';
import { hasResumeHook, type ResumeOutcome } from './resumeScripts';
import { AutoResume, resumableJob, resumeFailedMessage, waitsToResume } from './resuming';
import { jobRows, type JobRow } from './rows';
import { jobLabel, newJobId } from './scripts';
import { jobEndMessage, jobPhase, stopsInstance, type JobStatus } from './status';

export type { Following, JobBookDeps, JobRef, JobRemote, JobTerminal, RunOptions } from './ports';

/** A job's key in this window: a cluster job has one id on several instances. */
const jobKey = (instanceId: number, jobId: string): string => `${instanceId}/${jobId}`;

/** An instance in these phases runs no process: a job its last listing showed running died with it. */
const STOPPED_PHASES: ReadonlySet<InstancePhase> = new Set(['stopped', 'starting', 'rebooting', 'failed', 'gone']);

/** A job re-attached quietly starts this far before the end of its log; the rest is in the log file. */
const REATTACH_TAIL_BYTES = 256 * 1024;

/**
 * The jobs of this window: starts them, follows their output into terminals, lists them per
 * instance for the tree, and re-attaches to the ones this workspace started when their instance
 * runs (after a reload, a lost connection or the next day). Lists an instance's jobs over ssh
 * when the instance starts running, after a job changes and when asked, never on every poll.
 */
export class JobBook implements Disposable {
  private readonly followers = new Map<string, Following>();
  private readonly outputs = new Map<string, JobTerminal>();
  private readonly running = new Set<number>();
  private readonly changed = new Emitter<void>();
  private readonly notices = new Emitter<JobNotice>();
  /** The rows changed: the tree redraws. */
  readonly onDidChange = this.changed.event;
  /** Something to tell the user (a job ended, its instance stopped). */
  readonly onDidNotify = this.notices.event;
  private readonly subscription: Disposable;
  /** Stops this window is waiting to see (undone at dispose). */
  private readonly pending = new Set<() => void>();
  /** Who tells some node jobs' end and stop for them (a cluster job's watches, as one notice). */
  private readonly claims = new Set<(instanceId: number, jobId: string) => boolean>();
  private readonly remote: JobRemote;
  private readonly timers: Timers;
  private readonly resumeAt = new Map<string, number>(); // the log byte a resumable job's output goes on from
  private readonly autoResume: AutoResume;
  /** What the user chose for each job, kept on this machine (choices.ts): followed over the instance's copies. */
  readonly choices: JobChoices;
  private readonly listings: Listings;
  /** An absolute folder on the instance instead of `~/.gpu-rental/jobs` (integration tests). */
  jobsDir: string | undefined;

  constructor(private readonly deps: JobBookDeps) {
    this.remote = deps.remote ?? sshJobs;
    this.timers = deps.timers ?? realTimers;
    this.autoResume = new AutoResume(this.timers, deps.logger, this);
    this.choices = deps.choices ?? new JobChoices(memoryChoicesState(), () => this.timers.now());
    this.listings = new Listings({
      read: async (id) => this.remote.list(await this.target(id), { jobsDir: this.jobsDir }),
      choices: this.choices,
      logger: deps.logger,
      now: () => this.timers.now(),
      changed: () => this.changed.fire(),
    });
    this.subscription = deps.poller.onDidUpdate((snapshot) => this.followInstances(snapshot.instances));
    this.keepPolling();
  }

  /** Whether the instance has jobs to show (its row then expands). */
  hasJobs(instanceId: number): boolean {
    return this.listings.of(instanceId).length > 0 || this.deps.memory.hasJobsOn(instanceId);
  }

  /** The rows under an instance: the jobs its last listing showed, and the ones started here that it did not show yet. */
  rows(instanceId: number): JobRow[] {
    const listed = this.listings.of(instanceId);
    return jobRows(instanceId, listed, this.deps.memory.jobs(), this.running.has(instanceId), this.timers.now());
  }

  /** The tree shows the instance's jobs: a listing older than a minute is read again, in the background. */
  opened(instanceId: number): void {
    if (this.running.has(instanceId)) this.listings.opened(instanceId);
  }

  /** Whether the instance runs, as the last poll showed it. */
  instanceRuns(instanceId: number): boolean {
    return this.running.has(instanceId);
  }

  /** The last listing of an instance's jobs. */
  statusesOf(instanceId: number): readonly JobStatus[] {
    return this.listings.of(instanceId);
  }

  /** Lists the instance's jobs over ssh (one call) and redraws; a failure is logged and keeps the last list. */
  list(instanceId: number): Promise<void> {
    return this.listings.list(instanceId);
  }

  /** Starts a job detached on the instance, remembers it for this workspace, and follows it in a terminal. */
  async run(instance: Instance, o: RunOptions): Promise<{ jobId: string; startedWith: StartedWith }> {
    if (instancePhase(instance) !== 'running') {
      throw new Error(l10n.t('Instance #{0} is not running, so no job can start on it. Start it, then run the job again.', instance.id));
    }
    const jobId = o.jobId ?? newJobId(this.timers.now());
    const label = o.label ?? jobLabel(o.command);
    const target = await this.deps.sshTarget(instance);
    const startedWith = await this.remote.start(target, o.command, {
      jobId,
      cwd: o.cwd,
      label,
      stopAtEnd: o.stopAtEnd,
      baseUrl: o.stopAtEnd ? o.baseUrl : undefined,
      notifyUrl: o.notifyUrl,
      jobsDir: this.jobsDir,
      resumable: o.resumable,
    });
    this.deps.logger.info(
      `Job ${jobId} started on #${instance.id} with ${startedWith} in ${o.cwd}${o.stopAtEnd ? '; it stops the instance at its end' : ''}.`,
    );
    // Unrecorded, the job follows "wait" (safe): only logged.
    const chose = this.choices.chose(instance.id, jobId, { policy: o.resumable?.spec.policy, stopAtEnd: o.stopAtEnd });
    await chose.catch((e: unknown) => this.deps.logger.warn(`The choices of job ${jobId} could not be kept: ${String(e)}`));
    const show = o.show ?? true;
    const job: RememberedJob = { jobId, instanceId: instance.id, label, startedAtMs: this.timers.now(), terminalOpen: show, ended: false };
    this.running.add(instance.id);
    await this.deps.memory.remember(job);
    this.keepPolling();
    this.follow(job, 0, show);
    // A listing already on its way began before the job's wrapper wrote its pid, and would show the
    // job as interrupted until the next one: list again once it is done.
    void this.listings
      .pending(instance.id)
      ?.then(() => this.list(instance.id))
      .catch(() => {});
    void this.list(instance.id);
    return { jobId, startedWith };
  }

  /**
   * The jobs `owns` answers true for are told by their owner (a cluster job, once for all its
   * nodes): the book shows neither their end nor their instance's stop. Until disposed.
   */
  claimNotices(owns: (instanceId: number, jobId: string) => boolean): Disposable {
    this.claims.add(owns);
    return { dispose: () => void this.claims.delete(owns) };
  }

  /** Whether a job of this extension runs on the instance now, as far as this window knows. */
  runsJobs(instanceId: number): boolean {
    return this.listings.of(instanceId).some((s) => jobPhase(s) === 'running');
  }

  /** Opens the job's terminal: its output so far and, while it runs, what comes. */
  showOutput(job: JobRef): void {
    const key = jobKey(job.instanceId, job.jobId);
    const fresh = !this.outputs.has(key);
    this.output(job).show();
    // A job followed before keeps what it read; one never followed here reads its log from the start.
    if (fresh && !this.followers.has(key)) this.follow({ ...job, startedAtMs: 0, terminalOpen: true, ended: true }, 0, false);
  }

  /** The resumable jobs of the instance's last listing (kept while it is stopped: the outbid policies read them). */
  resumableJobs(instanceId: number): ResumableJob[] {
    return this.statusesOf(instanceId).flatMap((s) => resumableJob(instanceId, s) ?? []);
  }

  /**
   * Runs the job's `resume` (idempotent), from its checkpoint entry `checkpoint` when given; a job
   * moved from `movedFrom` (an outbid's move) is then carried here; then lists and follows it.
   */
  async resume(instanceId: number, jobId: string, opts: { movedFrom?: number; checkpoint?: string } = {}): Promise<ResumeOutcome> {
    const outcome = await (this.remote.resume ?? resumeJob)(await this.target(instanceId), jobId, { jobsDir: this.jobsDir, ...opts });
    if (opts.movedFrom !== undefined && opts.movedFrom !== instanceId) await this.carry(opts.movedFrom, instanceId, jobId);
    // Listed at once (not after a running listing): the resume just wrote the job's new wrapper.
    await this.list(instanceId);
    this.reattachOn(instanceId);
    return outcome;
  }

  /** A job moved from `fromId` to `toId`: the workspace's record, the choices, the terminal and its place in the log go with it. */
  private async carry(fromId: number, toId: number, jobId: string): Promise<void> {
    const from = jobKey(fromId, jobId);
    const to = jobKey(toId, jobId);
    const follower = this.followers.get(from);
    const offset = this.resumeAt.get(from) ?? follower?.offset;
    follower?.dispose();
    this.followers.delete(from);
    if (this.resumeAt.delete(from) || offset !== undefined) this.resumeAt.set(to, offset ?? 0);
    const output = this.outputs.get(from);
    if (output && this.outputs.delete(from)) this.outputs.set(to, output);
    output?.note(l10n.t('moved from #{0} to #{1}: following the job there', fromId, toId));
    await this.choices.moved(fromId, toId, jobId);
    await this.deps.memory.moveJob(jobId, fromId, toId);
    this.deps.logger.info(`Job ${jobId} moved from #${fromId} to #${toId}; its output goes on from byte ${offset ?? 0}.`);
    this.keepPolling();
  }

  /** Stops the job's command; with `stopInstance` the wrapper still stops the instance afterwards, else it never does. */
  async stop(instanceId: number, jobId: string, stopInstance: boolean): Promise<boolean> {
    const stopped = await this.remote.stop(await this.target(instanceId), jobId, stopInstance, { jobsDir: this.jobsDir });
    await this.list(instanceId);
    return stopped;
  }

  /** Whether the job's terminal is open (on `instanceId`, else on the first instance that has it). */
  terminalOpen(jobId: string, instanceId?: number): boolean {
    return this.outputOf(jobId, instanceId)?.isOpen ?? false;
  }

  /** What a job's terminal holds (on `instanceId`, else on the first instance that has it); undefined when it has none. */
  outputText(jobId: string, instanceId?: number): string | undefined {
    return this.outputOf(jobId, instanceId)?.text;
  }

  private outputOf(jobId: string, instanceId: number | undefined): JobTerminal | undefined {
    if (instanceId !== undefined) return this.outputs.get(jobKey(instanceId, jobId));
    for (const [key, output] of this.outputs) if (key.endsWith(`/${jobId}`)) return output;
    return undefined;
  }

  /**
   * Forgets everything this window holds about jobs (followers, terminals, listings), as a reload
   * does, then re-attaches from what the workspace remembers, as activation does.
   */
  reattach(): void {
    this.stopFollowing();
    this.listings.clear();
    this.running.clear();
    this.followInstances(this.deps.poller.snapshot?.instances ?? []);
  }

  dispose(): void {
    this.subscription.dispose();
    this.autoResume.dispose();
    for (const done of [...this.pending]) done();
    this.stopFollowing();
    this.changed.dispose();
    this.notices.dispose();
  }

  /** The account no longer lists the instance (destroyed, or another profile's): its followers stop waiting for it. */
  private stopFollowingOn(instanceId: number, remembered: readonly RememberedJob[]): void {
    for (const j of remembered) {
      const key = jobKey(j.instanceId, j.jobId);
      const follower = j.instanceId === instanceId ? this.followers.get(key) : undefined;
      if (!follower) continue;
      follower.dispose();
      this.followers.delete(key);
      this.outputs.get(key)?.note(l10n.t('#{0} is not listed by the account any more: no longer following this job', instanceId));
    }
  }

  private stopFollowing(): void {
    for (const f of this.followers.values()) f.dispose();
    this.followers.clear();
    for (const o of this.outputs.values()) o.dispose();
    this.outputs.clear();
  }

  /**
   * Follows the poll: an instance with jobs remembered here that starts running is listed and its
   * unfinished jobs re-attached; followers waiting for it try again at once. Jobs of instances not
   * listed stay remembered (another profile's account may list them again); at most 50 are kept.
   */
  private followInstances(instances: readonly Instance[]): void {
    this.keepPolling();
    const remembered = this.deps.memory.jobs();
    const byId = new Map<number, Instance>();
    for (const i of instances) byId.set(i.id, i);
    const ids = new Set([...remembered.map((j) => j.instanceId), ...this.listings.instances()]);
    let interrupted = false;
    for (const id of ids) {
      const instance = byId.get(id);
      if (!instance || instance.actual_status === 'destroyed') this.stopFollowingOn(id, remembered);
      if (instance && STOPPED_PHASES.has(instancePhase(instance))) interrupted = this.listings.interrupted(id) || interrupted;
      const running = instance !== undefined && instancePhase(instance) === 'running';
      const wasRunning = this.running.has(id);
      if (running) this.running.add(id);
      else this.running.delete(id);
      if (!running || wasRunning) continue;
      void this.list(id).then(() => {
        this.reattachOn(id);
        this.autoResume.cameBack(id, hasResumeHook(instance.onstart));
      });
      for (const j of remembered) if (j.instanceId === id) this.followers.get(jobKey(id, j.jobId))?.poke();
    }
    if (interrupted) this.changed.fire();
  }

  /**
   * While a job of this workspace has not ended, the poller keeps polling (even with no view open),
   * so the window re-attaches when its instance runs and sees when it stops.
   */
  private keepPolling(): void {
    // Jobs of instances the account does not list (destroyed, or another profile's) keep nothing polling.
    const listed = this.deps.poller.snapshot?.instances;
    const waiting = (j: RememberedJob) =>
      !j.ended && (!listed || listed.some((i) => i.id === j.instanceId && i.actual_status !== 'destroyed'));
    this.deps.poller.setInterest('jobs', this.deps.memory.jobs().some(waiting));
  }

  /** Follows again this workspace's unfinished jobs of the instance's last listing (a job waiting to resume: once it does). */
  reattachOn(instanceId: number): void {
    const listed = this.listings.of(instanceId);
    for (const job of this.deps.memory.jobs()) {
      if (job.instanceId !== instanceId || job.ended || this.followers.has(jobKey(instanceId, job.jobId))) continue;
      const status = listed.find((s) => s.jobId === job.jobId);
      if (!status || waitsToResume(status)) continue;
      const key = jobKey(instanceId, job.jobId);
      const at = this.resumeAt.get(key);
      this.resumeAt.delete(key);
      const from = at ?? (job.terminalOpen ? 0 : Math.max(0, (status.logBytes ?? 0) - REATTACH_TAIL_BYTES));
      this.deps.logger.info(`Re-attaching to job ${job.jobId} on #${instanceId} from byte ${from}.`);
      this.follow(job, from, job.terminalOpen);
    }
  }

  private output(job: JobRef): JobTerminal {
    const key = jobKey(job.instanceId, job.jobId);
    let output = this.outputs.get(key);
    if (!output) {
      output = this.deps.terminal(job, (open) => void this.deps.memory.change(job.jobId, { terminalOpen: open }, job.instanceId));
      this.outputs.set(key, output);
    }
    return output;
  }

  private follow(job: RememberedJob, offset: number, show: boolean): void {
    const output = this.output(job);
    // A terminal that already shows the bytes before `offset` (a resume, a move) is not told where they are.
    if (offset > 0 && !output.text)
      output.note(l10n.t('the first {0} bytes of the output are in ~/.gpu-rental/jobs/{1}/log on the instance', offset, job.jobId));
    if (show) output.show(true);
    let announced = false;
    const follower = this.remote.follow({
      target: () => this.target(job.instanceId),
      jobId: job.jobId,
      jobsDir: this.jobsDir,
      offset,
      onData: (chunk) => {
        announced = false;
        output.append(chunk);
        this.listings.freshen(job.instanceId);
      },
      onRetry: (error, delayMs) => {
        if (!announced) output.note(l10n.t('lost the connection ({0}); trying again in {1} s', error.message, Math.round(delayMs / 1000)));
        announced = true;
      },
      onEnd: (status) => this.ended(job, status, output),
      onMissing: () => {
        output.note(l10n.t("the job's folder ~/.gpu-rental/jobs/{0} is not on the instance any more", job.jobId));
        void this.deps.memory.change(job.jobId, { ended: true }, job.instanceId);
      },
    });
    const key = jobKey(job.instanceId, job.jobId);
    this.followers.set(key, follower);
    void follower.start().finally(() => {
      if (this.followers.get(key) === follower) this.followers.delete(key);
    });
  }

  private ended(job: RememberedJob, status: JobStatus, output: JobTerminal): void {
    const key = jobKey(job.instanceId, job.jobId);
    if (waitsToResume(status)) {
      // Not its end: it resumes when the instance runs again, and its output goes on from here.
      this.resumeAt.set(key, this.followers.get(key)?.offset ?? status.logBytes ?? 0);
      output.note(l10n.t('interrupted: the instance stopped; the job resumes from its newest checkpoint when the instance runs again'));
      void this.list(job.instanceId);
      return;
    }
    const message = resumeFailedMessage(status, job.instanceId) ?? jobEndMessage(status, job.instanceId);
    output.note(message.replace(/^GPU Rental: /, ''));
    void this.list(job.instanceId);
    // Told once: a job whose end this workspace saw before (or that another workspace started) is not announced again.
    if (this.deps.memory.job(job.jobId, job.instanceId)?.ended !== false) return;
    void this.deps.memory.change(job.jobId, { ended: true }, job.instanceId).then(() => this.keepPolling());
    if ([...this.claims].some((owns) => owns(job.instanceId, job.jobId))) return;
    const failed = jobPhase(status) === 'interrupted' || status.exitCode !== 0;
    const ref = { instanceId: job.instanceId, jobId: job.jobId, label: job.label };
    this.notices.fire({ severity: failed ? 'warning' : 'info', text: message, actions: ['showOutput'], job: ref });
    if (stopsInstance(status))
      watchStopPending({ poller: this.deps.poller, timers: this.timers }, this.pending, job.instanceId, (n) => this.notices.fire(n));
  }

  private async target(instanceId: number): Promise<SshTarget> {
    const instance = this.deps.poller.snapshot?.instances.find((i) => i.id === instanceId);
    if (!instance || instancePhase(instance) !== 'running') throw new Error(l10n.t('instance #{0} is not running', instanceId));
    return this.deps.sshTarget(instance);
  }
}
