import { lastErrorLine, RemoteCommandError, runRemote, type RunRemoteOptions, type SshTarget } from '../ssh/remote';
import { bashCommand } from '../shell';
import { folderExistsScript, runResumeScript, setPolicyScript, type ResumeOutcome } from './resumeScripts';
import type { OutbidPolicy } from './resumable';
import { jobDir, listScript, readLogScript, startScript, STATUS_MARK, stopScript, type StartOptions } from './scripts';
import { parseStatusLines, type JobStatus } from './status';
import { l10n } from '../l10n';

/** What the jobs' ssh calls share: a jobs folder other than `~/.gpu-rental/jobs` (tests), and runRemote's options. */
export interface JobsAt {
  jobsDir?: string;
  /** The ssh binary (tests). */
  ssh?: string;
  signal?: AbortSignal;
}

function remoteOptions(at: JobsAt, extra: RunRemoteOptions = {}): RunRemoteOptions {
  return { ...extra, ...(at.ssh ? { ssh: at.ssh } : {}), ...(at.signal ? { signal: at.signal } : {}) };
}

function failed(what: string, target: SshTarget, result: { code: number; stderr: string }): RemoteCommandError {
  const why = lastErrorLine(result.stderr) || l10n.t('exit code {0}', result.code);
  const message =
    result.code === 255
      ? l10n.t('Could not reach instance #{0} over ssh to {1} ({2}). Check that it runs, then try again.', target.instanceId, what, why)
      : l10n.t('Could not {0} on instance #{1}: {2}', what, target.instanceId, why);
  return new RemoteCommandError(message, { ...result, stdout: '' });
}

/** How the job was started: in tmux, or with setsid (or plain nohup) where tmux is missing. */
export type StartedWith = 'tmux' | 'setsid' | 'nohup';

/**
 * Starts the job detached on the instance; the command text (after the Notify Me URL's line, when
 * there is one) goes over ssh's stdin. Resolves once the wrapper runs (it wrote its pid), with how
 * it was started. A connection that fails (an sshd that has just come up refuses a moment) is
 * tried again with the same job id, which never starts the job twice.
 */
export async function startJob(
  target: SshTarget,
  command: string,
  options: StartOptions & JobsAt & { retryDelaysMs?: readonly number[] },
): Promise<StartedWith> {
  if (!command.trim()) throw new Error(l10n.t('The job has no command. Type the command to run, e.g. python3 train.py.'));
  const delays = options.retryDelaysMs ?? [1_000, 2_000, 4_000];
  const script = bashCommand(startScript(options));
  // The Notify Me URL travels as stdin's first line (startScript checked it is one line), never in the script.
  const input = options.notifyUrl === undefined ? command : `${options.notifyUrl}\n${command}`;
  for (let attempt = 0; ; attempt++) {
    const result = await runRemote(target, script, remoteOptions(options, { input, timeoutMs: 30_000 }));
    if (result.code === 255 && attempt < delays.length && !options.signal?.aborted) {
      await new Promise((r) => setTimeout(r, delays[attempt]));
      continue;
    }
    if (result.code !== 0) throw failed(l10n.t('start the job'), target, result);
    const how = /started (tmux|setsid|nohup)/.exec(result.stdout)?.[1] as StartedWith | undefined;
    return how ?? 'setsid';
  }
}

/** Every job on the instance, the oldest first, in one ssh call. */
export async function listJobs(target: SshTarget, at: JobsAt = {}): Promise<JobStatus[]> {
  const result = await runRemote(target, bashCommand(listScript(at.jobsDir)), remoteOptions(at, { timeoutMs: 30_000 }));
  if (result.code !== 0) throw failed(l10n.t('list its jobs'), target, result);
  return parseStatusLines(result.stdout);
}

/** The job's folder is not on the instance (destroyed and re-rented, or removed by hand). */
export class JobMissing extends Error {
  constructor(
    readonly jobId: string,
    readonly instanceId: number,
  ) {
    super(l10n.t('Job {0} is not on instance #{1} any more (its folder ~/.gpu-rental/jobs/{2} is gone).', jobId, instanceId, jobId));
    this.name = 'JobMissing';
  }
}

/**
 * Stops the job's command (its whole process group). With `stopInstance` false the wrapper will
 * not stop the instance at the end even when the job asked for it. Resolves false when it had
 * already ended.
 */
export async function stopJob(target: SshTarget, jobId: string, stopInstance: boolean, at: JobsAt = {}): Promise<boolean> {
  const result = await runRemote(
    target,
    bashCommand(stopScript(jobId, stopInstance, at.jobsDir)),
    remoteOptions(at, { timeoutMs: 30_000 }),
  );
  if (result.code === 3 && result.stderr.includes(`${STATUS_MARK}-MISSING`)) throw new JobMissing(jobId, target.instanceId);
  if (result.code !== 0) throw failed(l10n.t('stop the job'), target, result);
  return result.stdout.includes('stopped');
}

/** The job's log from byte `offset`, as text (at most `maxBytes`, 4 MiB by default). */
export async function readLog(target: SshTarget, jobId: string, offset = 0, at: JobsAt & { maxBytes?: number } = {}): Promise<string> {
  const result = await runRemote(
    target,
    bashCommand(readLogScript(jobId, offset, at.jobsDir)),
    remoteOptions(at, { timeoutMs: 60_000, maxOutputBytes: at.maxBytes ?? 4 * 1024 * 1024 }),
  );
  if (result.code === 3 && result.stderr.includes(`${STATUS_MARK}-MISSING`)) throw new JobMissing(jobId, target.instanceId);
  if (result.code !== 0) throw failed(l10n.t("read the job's log"), target, result);
  return result.stdout;
}

/**
 * Runs the resumable job's `resume` on the instance (`movedFrom`: it moved there from that
 * instance; `checkpoint`: the name of the entry of its checkpoint folder to resume from, which must
 * be there, instead of the newest); idempotent: resolves what it found (resumed, or ended,
 * cancelled, running, busy).
 */
export async function resumeJob(
  target: SshTarget,
  jobId: string,
  at: JobsAt & { movedFrom?: number; checkpoint?: string } = {},
): Promise<ResumeOutcome> {
  const result = await runRemote(
    target,
    bashCommand(runResumeScript(jobDir(jobId, at.jobsDir), at.movedFrom, at.checkpoint)),
    remoteOptions(at, { timeoutMs: 30_000 }),
  );
  if (result.code === 3 && result.stderr.includes('GPU-RENTAL-JOB-NOT-RESUMABLE'))
    throw new Error(
      l10n.t('Job {0} on instance #{1} is not resumable: it was started without a checkpoint folder.', jobId, target.instanceId),
    );
  if (result.code !== 0) throw failed(l10n.t('resume the job'), target, result);
  const said = /^(resumed|ended|cancelled|running|busy)$/m.exec(result.stdout)?.[1] as ResumeOutcome | undefined;
  return said ?? 'resumed';
}

/** Whether the folder `dir` (as typed; relative to the job's folder `cwd`) exists on the instance. */
export async function folderExists(target: SshTarget, cwd: string, dir: string, at: JobsAt = {}): Promise<boolean> {
  const result = await runRemote(target, bashCommand(folderExistsScript(cwd, dir)), remoteOptions(at, { timeoutMs: 30_000 }));
  if (result.code !== 0) throw failed(l10n.t('look for the checkpoint folder'), target, result);
  return /^yes$/m.test(result.stdout);
}

/** Changes a resumable job's outbid policy on the instance (its `policy` file). */
export async function setJobPolicy(target: SshTarget, jobId: string, policy: OutbidPolicy, at: JobsAt = {}): Promise<void> {
  const result = await runRemote(
    target,
    bashCommand(setPolicyScript(jobDir(jobId, at.jobsDir), policy)),
    remoteOptions(at, { timeoutMs: 30_000 }),
  );
  if (result.code === 3 && result.stderr.includes('GPU-RENTAL-JOB-NOT-RESUMABLE'))
    throw new Error(
      l10n.t('Job {0} on instance #{1} is not resumable: it was started without a checkpoint folder.', jobId, target.instanceId),
    );
  if (result.code !== 0) throw failed(l10n.t('change the outbid policy'), target, result);
}
