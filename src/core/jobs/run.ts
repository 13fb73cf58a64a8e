/**
 * Run on Instance and Run Last Job Again, decided: which questions are asked (only those that
 * matter for this instance and this job), in what order, with what wording, what a cancel does and
 * what is remembered for the next job. ui gathers the editor's facts (the Python file, the
 * workspace folder), picks the instance, hands the answers to `JobBook.run` and shows the result.
 */
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { isInterruptible } from '../instances/outbid';
import { instanceName } from '../instances/names';
import { instancePhase } from '../instances/phase';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import type { JobMemory, LastJob } from './memory';
import { askResume, CANCELLED, type ResumeGiven, type ResumeQuestionDeps } from './resumeQuestions';
import type { ResumableStart } from './resumeScripts';
import { pythonCommand } from './scripts';

/** What Run on Instance may be given instead of asking (tests, and other commands): each one given is not asked. */
export interface RunJobGiven extends ResumeGiven {
  command?: string;
  uploadFirst?: boolean;
  /** The local folder to upload first (default: the workspace folder of the file, else the first one). */
  localDir?: string;
  /** The folder on the instance to run in. */
  cwd?: string;
  stopAtEnd?: boolean;
}

/** What the editor knows when the command starts. */
export interface RunJobFacts {
  /** The Python file to run (the one given, else the active Python editor's), relative to its workspace folder, with `/`. */
  script?: string;
  /** The folder Upload sends: the workspace folder of that file, else the first one; undefined without a workspace. */
  workspaceDir?: string;
  /** That folder holds nothing to send (no entry but .git and .vscode): upload first is not asked. */
  workspaceEmpty?: boolean;
}

export interface UploadRequest {
  /** Undefined: Upload Folder asks which folder. */
  localDir?: string;
  remoteDir?: string;
  quiet: true;
}

export interface RunJobDeps extends ResumeQuestionDeps {
  readonly ask: Ask;
  readonly memory: Pick<JobMemory, 'lastCommand' | 'setLastCommand' | 'uploadFirst' | 'setUploadFirst' | 'lastJob' | 'setLastJob'> &
    ResumeQuestionDeps['memory'];
  /** The instance's jobs, as far as this window knows (a listing is read before the last question). */
  readonly jobs: { list(instanceId: number): Promise<void>; runsJobs(instanceId: number): boolean };
  /** Uploads a folder to the instance; resolves the folder on the instance, undefined when cancelled or failed. */
  readonly upload: (instanceId: number, request: UploadRequest) => Promise<string | undefined>;
  /** Where Upload Folder puts a local folder on the instance (the transfer folder, then the folder's name). */
  readonly uploadDestination: (localDir: string) => string;
  /** The remote folder setting: where a job runs when nothing is uploaded (empty: the home folder). */
  readonly remoteFolder: string;
}

/** What the job starts with. */
export interface JobPlan {
  readonly command: string;
  readonly cwd: string;
  readonly stopAtEnd: boolean;
  /** Set for a resumable job: its checkpoint folder, resume command, policy and the on-demand price. */
  readonly resumable?: ResumableStart;
}

/**
 * Asks what is not given and matters, in this order: the command (the Python file or the last
 * command suggested); whether to upload the workspace first (the last choice on top; not asked
 * without a workspace folder or with an empty one: nothing is uploaded); whether to stop the
 * instance at the job's end (the last choice on top, keeping it on top when another job runs
 * there); then, on an interruptible instance or when the last job here was made resumable, whether
 * it is resumable and how (resumeQuestions.ts). Uploads when asked to. Resolves undefined when the
 * user cancels any question or the upload: no job starts. A plan is remembered as the last job.
 */
export async function planJob(deps: RunJobDeps, instance: Instance, facts: RunJobFacts, given: RunJobGiven): Promise<JobPlan | undefined> {
  const command = given.command ?? (await askCommand(deps, instance, facts));
  if (command === undefined) return undefined;
  await deps.memory.setLastCommand(command);

  const nothingToUpload = facts.workspaceDir === undefined || facts.workspaceEmpty === true;
  const uploadFirst = given.uploadFirst ?? (nothingToUpload ? false : await askUploadFirst(deps));
  if (uploadFirst === undefined) return undefined;
  const localDir = uploadFirst ? (given.localDir ?? facts.workspaceDir) : undefined;
  let cwd = given.cwd;
  if (uploadFirst) {
    const request: UploadRequest = localDir ? { localDir, remoteDir: deps.uploadDestination(localDir), quiet: true } : { quiet: true };
    const uploaded = await deps.upload(instance.id, request);
    if (!uploaded) return undefined;
    cwd ??= uploaded;
  }
  cwd ??= deps.remoteFolder || '~';

  const stopAtEnd = given.stopAtEnd ?? (await askStopAtEnd(deps, instance));
  if (stopAtEnd === undefined) return undefined;
  const resumable = await askResume(deps, instance, { command, cwd }, given);
  if (resumable === CANCELLED) return undefined;
  await deps.memory.setLastJob({
    instanceId: instance.id,
    command,
    uploadFirst,
    stopAtEnd,
    ...(localDir !== undefined ? { localDir } : {}),
    ...(given.cwd !== undefined ? { cwd: given.cwd } : {}),
    ...(resumable ? { resume: resumable.spec } : {}),
  });
  return resumable ? { command, cwd, stopAtEnd, resumable } : { command, cwd, stopAtEnd };
}

/**
 * The instance a job runs on without asking: the one `preferredId` names while it runs, else the
 * only running instance; undefined when the user must pick (several, or none).
 */
export function runTarget(instances: readonly Instance[], preferredId?: number): Instance | undefined {
  const running = instances.filter((i) => instancePhase(i) === 'running');
  return running.find((i) => i.id === preferredId) ?? (running.length === 1 ? running[0] : undefined);
}

/**
 * Run Last Job Again: the last job's answers, none asked again: the same command, uploaded first
 * (only what changed is sent) or not, the same end and resume (its checkpoint folder created when
 * the instance lacks it: the user confirmed that folder the last time). What this instance changes
 * is still decided: on an on-demand instance a resumable job waits (a ceiling is a bid's), and the
 * end is asked again when the job would stop an instance another job runs on. Without a last job
 * it is Run on Instance.
 */
export async function rerunJob(deps: RunJobDeps, instance: Instance, facts: RunJobFacts): Promise<JobPlan | undefined> {
  const last = deps.memory.lastJob();
  return planJob(deps, instance, facts, last ? await lastJobGiven(deps, instance, last) : {});
}

async function lastJobGiven(deps: RunJobDeps, instance: Instance, last: LastJob): Promise<RunJobGiven> {
  let stopAtEnd: boolean | undefined = last.stopAtEnd;
  if (stopAtEnd) {
    await deps.jobs.list(instance.id);
    if (deps.jobs.runsJobs(instance.id)) stopAtEnd = undefined;
  }
  const resume = last.resume;
  return {
    command: last.command,
    uploadFirst: last.uploadFirst,
    ...(last.localDir !== undefined ? { localDir: last.localDir } : {}),
    ...(last.cwd !== undefined ? { cwd: last.cwd } : {}),
    ...(stopAtEnd !== undefined ? { stopAtEnd } : {}),
    resumable: resume !== undefined,
    ...(resume
      ? {
          checkpointDir: resume.checkpointDir,
          resumeCommand: resume.resumeCommand,
          policy: isInterruptible(instance) ? resume.policy : { kind: 'wait' as const },
          createCheckpointDir: true,
        }
      : {}),
  };
}

/** The last job in a few words, as Run Last Job Again names it: "python3 train.py (upload first, stop at the end, resumable)". */
export function lastJobText(last: LastJob): string {
  const how = [
    last.uploadFirst ? l10n.t('upload first') : l10n.t('no upload'),
    last.stopAtEnd ? l10n.t('stop at the end') : l10n.t('keep running'),
    ...(last.resume ? [l10n.t('resumable')] : []),
  ];
  return l10n.t('{0} ({1})', last.command.split('\n')[0]!.trim(), how.join(', '));
}

async function askCommand(deps: RunJobDeps, instance: Instance, facts: RunJobFacts): Promise<string | undefined> {
  const value = (facts.script !== undefined ? pythonCommand(facts.script) : undefined) ?? deps.memory.lastCommand() ?? '';
  const typed = await deps.ask.input({
    title: l10n.t('GPU Rental: Run on {0}', instanceName(instance)),
    prompt: l10n.t('The command to run on the instance, detached: it keeps running with this window closed.'),
    placeholder: 'python3 train.py',
    value,
    validate: (v) => (v.trim() ? undefined : l10n.t('Type the command to run, e.g. python3 train.py')),
  });
  return typed?.trim() ? typed : undefined;
}

/** Upload first or not; the choice is remembered for this workspace and offered first next time (Run on Cluster asks it too). */
export async function askUploadFirst(deps: {
  readonly ask: Ask;
  readonly memory: Pick<JobMemory, 'uploadFirst' | 'setUploadFirst'>;
}): Promise<boolean | undefined> {
  const remembered = deps.memory.uploadFirst() ?? true;
  const items = [
    {
      label: l10n.t('Upload the workspace first'),
      detail: l10n.t('Only what changed is sent, then the job starts in the uploaded folder.'),
      value: true,
    },
    { label: l10n.t('Run without uploading'), detail: l10n.t('The job runs on what the instance already has.'), value: false },
  ];
  const picked = await deps.ask.pick({ title: l10n.t('GPU Rental: Upload before the job?'), items: remembered ? items : items.reverse() });
  if (picked !== undefined) await deps.memory.setUploadFirst(picked);
  return picked;
}

/**
 * Stop the instance at the end or keep it: the last job's choice comes first, and keeping it when
 * another job of GPU Rental runs there (stopping would end it too); the stopped disk's price is
 * said when the service gives it.
 */
async function askStopAtEnd(deps: RunJobDeps, instance: Instance): Promise<boolean | undefined> {
  await deps.jobs.list(instance.id);
  const alone = !deps.jobs.runsJobs(instance.id);
  const stopFirst = alone && deps.memory.lastJob()?.stopAtEnd !== false;
  const disk = instance.storage_total_cost;
  const items = [
    {
      label: l10n.t('Stop the instance when the job ends'),
      detail: disk
        ? l10n.t('Works with this window closed; its disk still bills {0}/h while it is stopped.', formatDollars(disk))
        : l10n.t('Works with this window closed; its disk still bills while it is stopped.'),
      value: true,
    },
    {
      label: l10n.t('Keep the instance running'),
      detail: alone ? l10n.t('It bills its full rate until you stop it.') : l10n.t('Another job of GPU Rental runs on it.'),
      value: false,
    },
  ];
  return deps.ask.pick({
    title: l10n.t('GPU Rental: When the job on {0} ends', instanceName(instance)),
    items: stopFirst ? items : items.reverse(),
  });
}
