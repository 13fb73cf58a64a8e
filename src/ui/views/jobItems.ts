import * as vscode from 'vscode';
import type { Instance } from '../../core/api/instances';
import type { InstancePoller } from '../../core/instances/poller';
import { JobBook, type JobRef, type RunOptions } from '../../core/jobs/book';
import type { JobMemory } from '../../core/jobs/memory';
import type { JobChoices } from '../../core/jobs/choices';
import type { JobAction, JobNotice } from '../../core/jobs/notices';
import { folderExists, type StartedWith } from '../../core/jobs/remoteJobs';
import type { ResumableJob } from '../../core/jobs/resumable';
import type { ResumeOutcome } from '../../core/jobs/resumeScripts';
import { presentJobRow, type JobRow } from '../../core/jobs/rows';
import type { Logger } from '../../core/log';
import type { SshTarget } from '../../core/ssh/remote';
import { notify } from '../pickers/notify';
import { JobOutput } from '../output/jobOutput';

/** A job's row under its instance in the Instances view; core's `presentJobRow` says how it looks. */
export class JobItem extends vscode.TreeItem {
  readonly instanceId: number;
  readonly jobId: string;
  readonly cwd: string | undefined;

  /** `paidPerHour`: what the instance's GPU bills per hour now (a resumable job's tooltip counts what it saved). */
  constructor(
    readonly row: JobRow,
    paidPerHour?: number,
  ) {
    super(row.label, vscode.TreeItemCollapsibleState.None);
    const look = presentJobRow(row, paidPerHour);
    this.instanceId = row.instanceId;
    this.jobId = row.jobId;
    this.cwd = row.cwd;
    // A cluster job has one id on each of its nodes.
    this.id = `job-${row.instanceId}-${row.jobId}`;
    this.description = row.description;
    this.tooltip = look.tooltip;
    this.contextValue = look.contextValue;
    this.iconPath = new vscode.ThemeIcon(look.icon.id, look.icon.color ? new vscode.ThemeColor(look.icon.color) : undefined);
    this.accessibilityInformation = { label: look.accessibilityLabel };
    this.command = { command: 'gpuRental.showJobOutput', title: vscode.l10n.t('Show Output'), arguments: [this] };
  }
}

export interface JobsDeps {
  readonly poller: InstancePoller;
  /** Writes the instance's SSH entry and says how ssh reaches it (the instance must be running). */
  readonly sshTarget: (instance: Instance) => Promise<SshTarget>;
  readonly memory: JobMemory;
  /** What the user chose per job, kept in global state (core/jobs/choices.ts). */
  readonly choices: JobChoices;
  readonly logger: Logger;
  /** Terminals on instances that keep the in-window idle stop away (IdleGuard's); a job's terminal joins while open. */
  readonly terminals?: Map<vscode.Terminal, number>;
}

function actionLabel(action: JobAction): string {
  switch (action) {
    case 'showOutput':
      return vscode.l10n.t('Show Output');
  }
}

/**
 * The jobs of this window, for VS Code: core's `JobBook` decides (listing, polling, following,
 * re-attaching, what to tell); this gives it pseudoterminals, shows its notices and makes its rows
 * tree items.
 */
export class Jobs implements vscode.Disposable {
  readonly book: JobBook;
  readonly onDidChange: vscode.Event<void>;
  private readonly subscription: { dispose(): void };

  constructor(private readonly deps: JobsDeps) {
    this.book = new JobBook({ ...deps, terminal: (job, opened) => this.terminal(deps, job, opened) });
    this.onDidChange = this.book.onDidChange;
    this.subscription = this.book.onDidNotify((notice) => void this.tell(notice));
  }

  /** An absolute folder on the instance instead of `~/.gpu-rental/jobs`; only integration tests set it (testApi). */
  get jobsDir(): string | undefined {
    return this.book.jobsDir;
  }
  set jobsDir(folder: string | undefined) {
    this.book.jobsDir = folder;
  }

  hasJobs(instanceId: number): boolean {
    return this.book.hasJobs(instanceId);
  }

  rows(instanceId: number): JobItem[] {
    const gpu = this.deps.poller.snapshot?.instances.find((i) => i.id === instanceId)?.dph_base;
    return this.book.rows(instanceId).map((row) => new JobItem(row, typeof gpu === 'number' ? gpu : undefined));
  }

  opened(instanceId: number): void {
    this.book.opened(instanceId);
  }

  list(instanceId: number): Promise<void> {
    return this.book.list(instanceId);
  }

  runsJobs(instanceId: number): boolean {
    return this.book.runsJobs(instanceId);
  }

  run(instance: Instance, o: RunOptions): Promise<{ jobId: string; startedWith: StartedWith }> {
    return this.book.run(instance, o);
  }

  resumableJobs(instanceId: number): ResumableJob[] {
    return this.book.resumableJobs(instanceId);
  }

  resume(instanceId: number, jobId: string, opts?: { movedFrom?: number }): Promise<ResumeOutcome> {
    return this.book.resume(instanceId, jobId, opts);
  }

  /** Whether the folder `dir` (relative to the job's folder `cwd`) exists on the running instance (Run on Instance asks). */
  async folderExists(instance: Instance, cwd: string, dir: string): Promise<boolean> {
    return folderExists(await this.deps.sshTarget(instance), cwd, dir, { jobsDir: this.jobsDir });
  }

  stop(instanceId: number, jobId: string, stopInstance: boolean): Promise<boolean> {
    return this.book.stop(instanceId, jobId, stopInstance);
  }

  showOutput(job: JobRef): void {
    this.book.showOutput(job);
  }

  terminalOpen(jobId: string, instanceId?: number): boolean {
    return this.book.terminalOpen(jobId, instanceId);
  }

  outputText(jobId: string, instanceId?: number): string | undefined {
    return this.book.outputText(jobId, instanceId);
  }

  reattach(): void {
    this.book.reattach();
  }

  dispose(): void {
    this.subscription.dispose();
    this.book.dispose();
  }

  private terminal(deps: JobsDeps, job: JobRef, opened: (open: boolean) => void): JobOutput {
    const output = new JobOutput(vscode.l10n.t('GPU Rental job: {0} (#{1})', job.label, job.instanceId));
    output.onDidChangeOpen((open) => {
      const terminal = output.openTerminal;
      if (open && terminal) deps.terminals?.set(terminal, job.instanceId);
      opened(open);
    });
    return output;
  }

  private async tell(notice: JobNotice): Promise<void> {
    const action = await notify(notice, actionLabel);
    if (action === 'showOutput' && notice.job) this.book.showOutput(notice.job);
  }
}
