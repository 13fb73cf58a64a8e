import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import { formatDollars } from '../../core/format';
import type { InstancePoller } from '../../core/instances/poller';
import { instancePhase } from '../../core/instances/phase';
import { JobFollower } from '../../core/jobs/follower';
import type { JobMemory, RememberedJob } from '../../core/jobs/memory';
import { listJobs, startJob, stopJob, type StartedWith } from '../../core/jobs/remoteJobs';
import { jobLabel, newJobId, STOP_GRACE_SECONDS } from '../../core/jobs/scripts';
import { describeJob, jobEndMessage, jobPhase, stopsInstance, type JobPhase, type JobStatus } from '../../core/jobs/status';
import type { Logger } from '../../core/log';
import type { SshTarget } from '../../core/ssh/remote';
import { JobOutput } from './jobOutput';

/** A job's row under its instance in the Instances view. */
export class JobItem extends vscode.TreeItem {
  constructor(
    readonly instanceId: number,
    readonly jobId: string,
    readonly phase: JobPhase | 'starting',
    label: string,
    description: string,
    readonly cwd: string | undefined,
  ) {
    super(label, vscode.TreeItemCollapsibleState.None);
    this.id = `job-${jobId}`;
    this.description = description;
    this.tooltip = [
      label,
      description,
      vscode.l10n.t('Job {0} on #{1}; its files are in ~/.gpu-rental/jobs/{0} on the instance.', jobId, instanceId),
    ].join('\n');
    this.contextValue = phase === 'running' || phase === 'starting' ? 'job-running' : 'job-ended';
    const icon =
      phase === 'running' || phase === 'starting'
        ? new vscode.ThemeIcon('sync~spin')
        : phase === 'interrupted'
          ? new vscode.ThemeIcon('debug-disconnect', new vscode.ThemeColor('problemsWarningIcon.foreground'))
          : description.startsWith('exited 0')
            ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
            : new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    this.iconPath = icon;
    // The icon says how it ended; a screen reader is told in words.
    const state =
      phase === 'running' || phase === 'starting'
        ? phase
        : phase === 'interrupted'
          ? 'interrupted'
          : description.startsWith('exited 0')
            ? 'succeeded'
            : 'failed';
    this.accessibilityInformation = { label: vscode.l10n.t('Job {0} on instance {1}, {2}, {3}', label, instanceId, state, description) };
    this.command = { command: 'gpuRental.showJobOutput', title: vscode.l10n.t('Show Output'), arguments: [this] };
  }
}

export interface JobsDeps {
  readonly poller: InstancePoller;
  /** Writes the instance's SSH entry and says how ssh reaches it (the instance must be running). */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly memory: JobMemory;
  readonly logger: Logger;
  /** Terminals on instances that keep the in-window idle stop away (IdleGuard's); a job's terminal joins while open. */
  readonly terminals?: Map<vscode.Terminal, number>;
}

export interface RunOptions {
  command: string;
  /** The folder on the instance it runs in. */
  cwd: string;
  stopAtEnd: boolean;
  /** The API base URL the wrapper stops the instance through. */
  baseUrl: string;
}

/** How long after a job's end its instance should be seen stopped, when the job was to stop it. */
const STOP_SEEN_MS = 3 * 60_000;

/** How long an instance's listing is shown without reading it again when the tree opens the instance. */
const LISTING_FRESH_MS = 60_000;

/** A job re-attached quietly starts this far before the end of its log; the rest is in the log file. */
const REATTACH_TAIL_BYTES = 256 * 1024;

/**
 * The jobs of this window: starts them, follows their output into terminals, lists them per
 * instance for the tree, and re-attaches to the ones this workspace started when their instance
 * runs (after a reload, a lost connection or the next day). Lists an instance's jobs over ssh
 * when the instance starts running, after a job changes and when asked, never on every poll.
 */
export class Jobs implements vscode.Disposable {
  private readonly statuses = new Map<number, JobStatus[]>();
  private readonly followers = new Map<string, JobFollower>();
  private readonly outputs = new Map<string, JobOutput>();
  private readonly running = new Set<number>();
  private readonly listing = new Map<number, Promise<void>>();
  private readonly listedAt = new Map<number, number>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** The rows changed: the tree redraws. */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;
  /** Stops this window is waiting to see (undone at dispose). */
  private readonly pending = new Set<() => void>();
  /**
   * An absolute folder on the instance instead of `~/.gpu-rental/jobs`. Only integration tests set
   * it (testApi): a simulator without containers runs its instances in this machine's home.
   */
  jobsDir: string | undefined;

  constructor(private readonly deps: JobsDeps) {
    this.subscription = deps.poller.onDidUpdate((snapshot) => this.followInstances(snapshot.instances));
    this.keepPolling();
  }

  /** Whether the instance has jobs to show (its row then expands). */
  hasJobs(instanceId: number): boolean {
    return (this.statuses.get(instanceId)?.length ?? 0) > 0 || this.deps.memory.jobs().some((j) => j.instanceId === instanceId);
  }

  /** The rows under an instance: the jobs its last listing showed, and the ones started here that it did not show yet. */
  rows(instanceId: number, nowMs = Date.now()): JobItem[] {
    const listed = this.statuses.get(instanceId) ?? [];
    const up = this.running.has(instanceId);
    const rows = listed.map((s) => {
      // A stop or a reboot kills every process of the instance: what ran then was interrupted.
      const shown = !up && jobPhase(s) === 'running' ? { ...s, alive: false } : s;
      return new JobItem(instanceId, s.jobId, jobPhase(shown), s.label, describeJob(shown, nowMs), s.cwd || undefined);
    });
    for (const j of this.deps.memory.jobs()) {
      if (j.instanceId !== instanceId || listed.some((s) => s.jobId === j.jobId)) continue;
      const running = this.running.has(instanceId);
      rows.push(
        new JobItem(
          instanceId,
          j.jobId,
          'starting',
          j.label,
          running ? vscode.l10n.t('not listed yet') : vscode.l10n.t('waiting for the instance to run'),
          undefined,
        ),
      );
    }
    return rows;
  }

  /** The tree shows the instance's jobs: a listing older than a minute is read again, in the background. */
  opened(instanceId: number): void {
    if (!this.running.has(instanceId) || this.listing.has(instanceId)) return;
    if (Date.now() - (this.listedAt.get(instanceId) ?? 0) > LISTING_FRESH_MS) void this.list(instanceId);
  }

  /** The last listing of an instance's jobs. */
  statusesOf(instanceId: number): readonly JobStatus[] {
    return this.statuses.get(instanceId) ?? [];
  }

  /** Lists the instance's jobs over ssh (one call) and redraws; a failure is logged and keeps the last list. */
  list(instanceId: number): Promise<void> {
    const inFlight = this.listing.get(instanceId);
    if (inFlight) return inFlight;
    const run = (async () => {
      try {
        const statuses = await listJobs(await this.target(instanceId), { jobsDir: this.jobsDir });
        this.statuses.set(instanceId, statuses);
        this.listedAt.set(instanceId, Date.now());
        this.changed.fire();
      } catch (error) {
        this.deps.logger.warn(`Jobs of #${instanceId} could not be listed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        this.listing.delete(instanceId);
      }
    })();
    this.listing.set(instanceId, run);
    return run;
  }

  /** Starts a job detached on the instance, remembers it for this workspace, and follows it in a terminal. */
  async run(instance: Instance, o: RunOptions): Promise<{ jobId: string; startedWith: StartedWith }> {
    if (instancePhase(instance) !== 'running') {
      throw new Error(
        vscode.l10n.t('Instance #{0} is not running, so no job can start on it. Start it, then run the job again.', instance.id),
      );
    }
    const jobId = newJobId(Date.now());
    const label = jobLabel(o.command);
    const target = await this.deps.sshTarget(instance);
    const startedWith = await startJob(target, o.command, {
      jobId,
      cwd: o.cwd,
      label,
      stopAtEnd: o.stopAtEnd,
      baseUrl: o.stopAtEnd ? o.baseUrl : undefined,
      jobsDir: this.jobsDir,
    });
    this.deps.logger.info(
      `Job ${jobId} started on #${instance.id} with ${startedWith} in ${o.cwd}${o.stopAtEnd ? '; it stops the instance at its end' : ''}.`,
    );
    const job: RememberedJob = { jobId, instanceId: instance.id, label, startedAtMs: Date.now(), terminalOpen: true, ended: false };
    this.running.add(instance.id);
    await this.deps.memory.remember(job);
    this.keepPolling();
    this.follow(job, 0, true);
    // A listing already on its way began before the job's wrapper wrote its pid, and would show the
    // job as interrupted until the next one: list again once it is done.
    void this.listing
      .get(instance.id)
      ?.then(() => this.list(instance.id))
      .catch(() => {});
    void this.list(instance.id);
    return { jobId, startedWith };
  }

  /** Whether a job of this extension runs on the instance now, as far as this window knows. */
  runsJobs(instanceId: number): boolean {
    return (this.statuses.get(instanceId) ?? []).some((s) => jobPhase(s) === 'running');
  }

  /** Opens the job's terminal: its output so far and, while it runs, what comes. */
  showOutput(instanceId: number, jobId: string, label: string): JobOutput {
    const fresh = !this.outputs.has(jobId);
    const output = this.output(instanceId, jobId, label);
    output.show();
    // A job followed before keeps what it read; one never followed here reads its log from the start.
    if (fresh && !this.followers.has(jobId))
      this.follow({ jobId, instanceId, label, startedAtMs: 0, terminalOpen: true, ended: true }, 0, false);
    return output;
  }

  /** Stops the job's command; with `stopInstance` the wrapper still stops the instance afterwards, else it never does. */
  async stop(instanceId: number, jobId: string, stopInstance: boolean): Promise<boolean> {
    const stopped = await stopJob(await this.target(instanceId), jobId, stopInstance, { jobsDir: this.jobsDir });
    await this.list(instanceId);
    return stopped;
  }

  /** Whether the job's terminal is open. */
  terminalOpen(jobId: string): boolean {
    return this.outputs.get(jobId)?.isOpen ?? false;
  }

  /** What a job's terminal holds (tests read it); undefined when it has none. */
  outputText(jobId: string): string | undefined {
    return this.outputs.get(jobId)?.text;
  }

  /**
   * Forgets everything this window holds about jobs (followers, terminals, listings), as a reload
   * does, then re-attaches from what the workspace remembers, as activation does.
   */
  reattach(): void {
    this.stopFollowing();
    this.statuses.clear();
    this.listedAt.clear();
    this.running.clear();
    this.followInstances(this.deps.poller.snapshot?.instances ?? []);
  }

  dispose(): void {
    this.subscription.dispose();
    for (const done of [...this.pending]) done();
    this.stopFollowing();
    this.changed.dispose();
  }

  /** The account no longer lists the instance (destroyed, or another profile's): its followers stop waiting for it. */
  private stopFollowingOn(instanceId: number, remembered: readonly RememberedJob[]): void {
    for (const j of remembered) {
      if (j.instanceId !== instanceId) continue;
      const follower = this.followers.get(j.jobId);
      if (!follower) continue;
      follower.dispose();
      this.followers.delete(j.jobId);
      this.outputs
        .get(j.jobId)
        ?.note(vscode.l10n.t('#{0} is not listed by the account any more: no longer following this job', instanceId));
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
    const byId = new Map(instances.map((i) => [i.id, i]));
    const ids = new Set([...remembered.map((j) => j.instanceId), ...this.statuses.keys()]);
    for (const id of ids) {
      const instance = byId.get(id);
      if (!instance || instance.actual_status === 'destroyed') this.stopFollowingOn(id, remembered);
      const running = instance !== undefined && instancePhase(instance) === 'running';
      const wasRunning = this.running.has(id);
      if (running) this.running.add(id);
      else this.running.delete(id);
      if (!running || wasRunning) continue;
      void this.list(id).then(() => this.reattachOn(id));
      for (const j of remembered) if (j.instanceId === id) this.followers.get(j.jobId)?.poke();
    }
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

  private reattachOn(instanceId: number): void {
    const listed = this.statuses.get(instanceId) ?? [];
    for (const job of this.deps.memory.jobs()) {
      if (job.instanceId !== instanceId || job.ended || this.followers.has(job.jobId)) continue;
      const status = listed.find((s) => s.jobId === job.jobId);
      if (!status) continue;
      const from = job.terminalOpen ? 0 : Math.max(0, (status.logBytes ?? 0) - REATTACH_TAIL_BYTES);
      this.deps.logger.info(`Re-attaching to job ${job.jobId} on #${instanceId} from byte ${from}.`);
      this.follow(job, from, job.terminalOpen);
    }
  }

  private output(instanceId: number, jobId: string, label: string): JobOutput {
    let output = this.outputs.get(jobId);
    if (!output) {
      output = new JobOutput(vscode.l10n.t('GPU Rental job: {0} (#{1})', label, instanceId));
      const opened = output;
      output.onDidChangeOpen((open) => {
        const terminal = opened.openTerminal;
        if (open && terminal) this.deps.terminals?.set(terminal, instanceId);
        void this.deps.memory.change(jobId, { terminalOpen: open });
      });
      this.outputs.set(jobId, output);
    }
    return output;
  }

  private follow(job: RememberedJob, offset: number, show: boolean): void {
    const output = this.output(job.instanceId, job.jobId, job.label);
    if (offset > 0)
      output.note(vscode.l10n.t('the first {0} bytes of the output are in ~/.gpu-rental/jobs/{1}/log on the instance', offset, job.jobId));
    if (show) output.show(true);
    let announced = false;
    const follower = new JobFollower({
      target: () => this.target(job.instanceId),
      jobId: job.jobId,
      jobsDir: this.jobsDir,
      offset,
      onData: (chunk) => {
        announced = false;
        output.append(chunk);
      },
      onRetry: (error, delayMs) => {
        if (!announced)
          output.note(vscode.l10n.t('lost the connection ({0}); trying again in {1} s', error.message, Math.round(delayMs / 1000)));
        announced = true;
      },
      onEnd: (status) => this.ended(job, status, output),
      onMissing: () => {
        output.note(vscode.l10n.t("the job's folder ~/.gpu-rental/jobs/{0} is not on the instance any more", job.jobId));
        void this.deps.memory.change(job.jobId, { ended: true });
      },
    });
    this.followers.set(job.jobId, follower);
    void follower.start().finally(() => {
      if (this.followers.get(job.jobId) === follower) this.followers.delete(job.jobId);
    });
  }

  private ended(job: RememberedJob, status: JobStatus, output: JobOutput): void {
    const message = jobEndMessage(status, job.instanceId);
    output.note(message.replace(/^GPU Rental: /, ''));
    void this.list(job.instanceId);
    // Told once: a job whose end this workspace saw before (or that another workspace started) is not announced again.
    if (this.deps.memory.job(job.jobId)?.ended !== false) return;
    void this.deps.memory.change(job.jobId, { ended: true }).then(() => this.keepPolling());
    const failed = jobPhase(status) === 'interrupted' || status.exitCode !== 0;
    const show = failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(message, vscode.l10n.t('Show Output')).then((choice) => choice && output.show());
    if (stopsInstance(status)) this.followStop(job.instanceId);
  }

  /**
   * The wrapper asks the service to stop the instance a moment after the job ended. Says so once the
   * poll shows it stopped, with what the disk still bills; when it is not seen stopped in three
   * minutes, says it may still bill its full rate, to check.
   */
  private followStop(instanceId: number): void {
    this.deps.poller.watch(instanceId);
    const done = () => {
      clearTimeout(timer);
      subscription.dispose();
      this.pending.delete(done);
    };
    const subscription = this.deps.poller.onDidUpdate((snapshot) => {
      const instance = snapshot.instances.find((i) => i.id === instanceId);
      const phase = instance ? instancePhase(instance) : 'gone';
      if (phase !== 'stopped' && phase !== 'gone') return;
      done();
      const disk = instance?.storage_total_cost;
      const bills =
        phase === 'gone'
          ? vscode.l10n.t('it is gone')
          : disk
            ? vscode.l10n.t('its disk still bills {0}/h until you destroy it', formatDollars(disk))
            : vscode.l10n.t('its disk still bills until you destroy it');
      void vscode.window.showInformationMessage(
        vscode.l10n.t("GPU Rental: #{0} was stopped by the job's end; {1}. Download the outputs before you destroy it.", instanceId, bills),
      );
    });
    const timer = setTimeout(() => {
      done();
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'GPU Rental: the job on #{0} asked the service to stop the instance, but it is not seen stopped after {1} minutes, so it may still bill its full rate. Check it in the Instances view and stop it yourself if it runs.',
          instanceId,
          STOP_SEEN_MS / 60_000,
        ),
      );
    }, STOP_SEEN_MS);
    this.pending.add(done);
    // The wrapper waits STOP_GRACE_SECONDS before it asks: poll just after.
    setTimeout(() => void this.deps.poller.refresh(), (STOP_GRACE_SECONDS + 1) * 1000);
  }

  private async target(instanceId: number): Promise<SshTarget> {
    const instance = this.deps.poller.snapshot?.instances.find((i) => i.id === instanceId);
    if (!instance || instancePhase(instance) !== 'running') throw new Error(vscode.l10n.t('instance #{0} is not running', instanceId));
    return this.deps.sshTarget(instance);
  }
}
