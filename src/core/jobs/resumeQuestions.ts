/**
 * Run on Instance's questions about resuming (planJob asks them after the stop-at-end question, and
 * only on an interruptible instance or after a resumable job):
 * run once or resumable, the checkpoint folder, the resume command, the outbid policy, and what to
 * do when the checkpoint folder is not on the instance yet. Each one given is not asked.
 */
import type { Instance } from '../api/instances';
import { formatDollars } from '../format';
import { bidOf, isInterruptible } from '../instances/outbid';
import { instanceName } from '../instances/names';
import { l10n } from '../l10n';
import type { Ask } from '../prompts';
import type { JobMemory } from './memory';
import { LATEST_PLACEHOLDER, type OutbidPolicy, type ResumeSpec } from './resumable';
import type { ResumableStart } from './resumeScripts';

/** What Run on Instance may be given about resuming instead of asking (tests, automation). */
export interface ResumeGiven {
  /** Make the job resumable (true) or run it once (false). */
  resumable?: boolean;
  checkpointDir?: string;
  resumeCommand?: string;
  policy?: OutbidPolicy;
  /** Create the checkpoint folder when it is not on the instance (true), or start nothing (false). */
  createCheckpointDir?: boolean;
}

export interface ResumeQuestionDeps {
  readonly ask: Ask;
  readonly memory: Pick<JobMemory, 'resumable' | 'setResumable' | 'lastCheckpointDir' | 'setLastCheckpointDir' | 'lastJob'>;
  /** The same machine's on-demand price in $/h (what "saved" is counted against), undefined when unknown. */
  readonly onDemandPrice: (instance: Instance) => Promise<number | undefined>;
  /** Whether the folder `dir` (relative to `cwd`) exists on the instance, over ssh. */
  readonly folderExists: (instance: Instance, cwd: string, dir: string) => Promise<boolean>;
}

/** The default checkpoint folder, relative to the job's folder. */
export const DEFAULT_CHECKPOINT_DIR = 'checkpoints';

/** Cancelled: the user dismissed a question, and no job starts. */
export const CANCELLED = Symbol('cancelled');

// eslint-disable-next-line no-control-regex -- control characters in a folder are a typo
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Asks what is not given, in this order: run once or resumable (asked only where it matters: on an
 * interruptible instance, which offers Resumable first, or when the last job here was made
 * resumable; else the job runs once unasked), then for a resumable job the checkpoint
 * folder, the resume command and, on an interruptible instance, the outbid policy (an on-demand
 * one waits); then whether to create the checkpoint folder when the instance does not have it.
 * Resolves undefined for a job that runs once, CANCELLED when a question was dismissed.
 */
export async function askResume(
  deps: ResumeQuestionDeps,
  instance: Instance,
  job: { command: string; cwd: string },
  given: ResumeGiven,
): Promise<ResumableStart | undefined | typeof CANCELLED> {
  const matters = isInterruptible(instance) || deps.memory.resumable() === true;
  const resumable = given.resumable ?? (matters ? await askResumable(deps, instance) : false);
  if (resumable === undefined) return CANCELLED;
  if (!resumable) return undefined;

  const checkpointDir = given.checkpointDir ?? (await askCheckpointDir(deps, instance));
  if (checkpointDir === undefined) return CANCELLED;
  await deps.memory.setLastCheckpointDir(checkpointDir);
  const last = deps.memory.lastJob()?.resume;
  const resumeCommand = given.resumeCommand ?? (await askResumeCommand(deps, job.command));
  if (resumeCommand === undefined) return CANCELLED;
  const onDemandPerHour = await deps.onDemandPrice(instance);
  const policy =
    given.policy ??
    (isInterruptible(instance) ? await askPolicy(deps, instance, onDemandPerHour, last?.policy.kind) : { kind: 'wait' as const });
  if (policy === undefined) return CANCELLED;

  let createCheckpointDir = given.createCheckpointDir;
  if (createCheckpointDir === undefined && !(await deps.folderExists(instance, job.cwd, checkpointDir))) {
    const create = l10n.t('Create It and Start');
    const picked = await deps.ask.choose(
      l10n.t('GPU Rental: the folder {0} does not exist on {1} yet.', checkpointDir, instanceName(instance)),
      l10n.t('A new training run has no checkpoint folder yet; a typo would leave the job with nothing to resume from.'),
      [create, l10n.t('Cancel')],
    );
    if (picked !== create) return CANCELLED;
    createCheckpointDir = true;
  }
  if (createCheckpointDir === false) return CANCELLED;
  const spec: ResumeSpec = { checkpointDir, resumeCommand, policy };
  return { spec, ...(onDemandPerHour !== undefined ? { onDemandPerHour } : {}), ...(createCheckpointDir ? { createCheckpointDir } : {}) };
}

async function askResumable(deps: ResumeQuestionDeps, instance: Instance): Promise<boolean | undefined> {
  const first = isInterruptible(instance) || (deps.memory.resumable() ?? false);
  const once = {
    label: l10n.t('Run once'),
    detail: l10n.t('When the instance stops or is outbid, the job stays interrupted.'),
    value: false,
  };
  const resume = {
    label: l10n.t('Resumable: resume from its newest checkpoint after a stop or an outbid'),
    detail: l10n.t('The instance resumes it when it starts again, also with VS Code closed.'),
    value: true,
  };
  const picked = await deps.ask.pick({ title: l10n.t('GPU Rental: Resumable?'), items: first ? [resume, once] : [once, resume] });
  if (picked !== undefined) await deps.memory.setResumable(picked);
  return picked;
}

async function askCheckpointDir(deps: ResumeQuestionDeps, instance: Instance): Promise<string | undefined> {
  const typed = await deps.ask.input({
    title: l10n.t('GPU Rental: Checkpoints of the job on {0}', instanceName(instance)),
    prompt: l10n.t("The folder the job writes its checkpoints to, on the instance: relative to the job's folder, ~/… or absolute."),
    placeholder: DEFAULT_CHECKPOINT_DIR,
    value: deps.memory.lastCheckpointDir() ?? DEFAULT_CHECKPOINT_DIR,
    validate: (v) =>
      !v.trim()
        ? l10n.t('Type the checkpoint folder, e.g. {0}', DEFAULT_CHECKPOINT_DIR)
        : CONTROL.test(v) || v.length > 1000
          ? l10n.t('Type a folder name without control characters.')
          : undefined,
  });
  return typed?.trim() ? typed.trim() : undefined;
}

/** The resume command: the last one given for this same command, else the command with `--resume {latest}`. */
async function askResumeCommand(deps: ResumeQuestionDeps, command: string): Promise<string | undefined> {
  const last = deps.memory.lastJob();
  const typed = await deps.ask.input({
    title: l10n.t('GPU Rental: Resume command'),
    prompt: l10n.t(
      'The command that resumes the job. {0} becomes the newest file or folder in the checkpoint folder, already quoted (leave it out of quotes); without a checkpoint the job starts over with its own command.',
      LATEST_PLACEHOLDER,
    ),
    value:
      last?.resume && last.command.trim() === command.trim()
        ? last.resume.resumeCommand
        : `${command.trim()} --resume ${LATEST_PLACEHOLDER}`,
    validate: (v) =>
      v.trim() ? undefined : l10n.t('Type the command that resumes the job, e.g. python3 train.py --resume {0}', LATEST_PLACEHOLDER),
  });
  return typed?.trim() ? typed : undefined;
}

/** The outbid policy, Wait first (or `lastKind`, the last job's, first), then a ceiling for raise and move. */
export async function askPolicy(
  deps: Pick<ResumeQuestionDeps, 'ask'>,
  instance: Instance,
  onDemand: number | undefined,
  lastKind?: OutbidPolicy['kind'],
): Promise<OutbidPolicy | undefined> {
  const items = [
    {
      label: l10n.t('Wait'),
      detail: l10n.t('The service resumes it when your bid is highest again; works with VS Code closed.'),
      value: 'wait' as const,
    },
    {
      label: l10n.t('Raise the bid up to a ceiling'),
      detail: l10n.t('Acts only while a VS Code window with GPU Rental is open.'),
      value: 'raise' as const,
    },
    {
      label: l10n.t('Move to another machine up to a ceiling'),
      detail: l10n.t(
        'Copies the checkpoints to a new instance and resumes there; acts only while a VS Code window with GPU Rental is open.',
      ),
      value: 'move' as const,
    },
  ];
  const kind = await deps.ask.pick({
    title: l10n.t('GPU Rental: When {0} is outbid', instanceName(instance)),
    items: [...items.filter((i) => i.value === lastKind), ...items.filter((i) => i.value !== lastKind)],
  });
  if (kind === undefined) return undefined;
  if (kind === 'wait') return { kind };
  const bid = bidOf(instance);
  const current = bid === undefined ? l10n.t('unknown') : formatDollars(bid);
  const typed = await deps.ask.input({
    title: kind === 'raise' ? l10n.t('GPU Rental: Raise the bid up to') : l10n.t('GPU Rental: Move up to'),
    prompt:
      onDemand === undefined
        ? l10n.t('The most to pay for the GPU, in $/h. The bid now: {0}/h.', current)
        : l10n.t(
            'The most to pay for the GPU, in $/h. The bid now: {0}/h; this machine on demand: {1}/h.',
            current,
            formatDollars(onDemand),
          ),
    placeholder: bid === undefined ? '0.50' : String(Math.round(bid * 1.5 * 100) / 100),
    validate: (v) => (ceilingOf(v) === undefined ? l10n.t('Type a price in $/h above 0 and at most 128, e.g. 0.60') : undefined),
  });
  const ceiling = typed === undefined ? undefined : ceilingOf(typed);
  return ceiling === undefined ? undefined : { kind, ceiling };
}

/** A ceiling typed in $/h ("0.6", "$0.60"), undefined unless above 0 and at most 128. */
export function ceilingOf(text: string): number | undefined {
  const m = /^\s*\$?\s*(\d{1,3}(?:\.\d{1,4})?|\.\d{1,4})\s*(?:\/\s*h)?\s*$/.exec(text);
  const value = m ? Number(m[1]) : NaN;
  return value > 0 && value <= 128 ? value : undefined;
}
