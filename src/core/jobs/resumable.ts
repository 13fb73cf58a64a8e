/**
 * Resumable jobs: what the user chose at launch, and what the instance says of a job that resumes.
 * The one vocabulary of the job book (which starts, lists and resumes them, core/jobs/book.ts and
 * scripts.ts) and the outbid policies (which act when the service outbids their instance,
 * core/jobs/outbidPolicy.ts).
 *
 * On the instance a resumable job's folder (`~/.gpu-rental/jobs/<jobId>/`, see scripts.ts) holds,
 * besides a plain job's files:
 *
 * | file | holds |
 * | --- | --- |
 * | `ckpt` | the checkpoint folder, as typed (`~/x`, absolute, or relative to the job's folder `cwd`) |
 * | `resume-cmd` | the resume command; `{latest}` stands for the newest entry of the checkpoint folder |
 * | `policy` | `wait`, `raise <ceiling $/h>` or `move <ceiling $/h>` |
 * | `resume` | the script the instance's start-up runs to resume it |
 * | `history` | one line per recovery: `<unix s> resumed <lost s>` or `<unix s> moved <from id> <lost s>` |
 */

import { l10n } from '../l10n';
import { visibleText } from '../text';

/** What happens when the service outbids the job's instance. */
export type OutbidPolicy =
  /** The service resumes the instance when its bid is the highest again; the job resumes with it (the default). */
  | { readonly kind: 'wait' }
  /** Raise the bid to just over the machine's minimum, never above `ceiling` ($/h for the GPU). */
  | { readonly kind: 'raise'; readonly ceiling: number }
  /** Rent the same search elsewhere at most at `ceiling` $/h, copy the checkpoints there, resume, then destroy the old one. */
  | { readonly kind: 'move'; readonly ceiling: number };

/** Where a job's policy came from (core/jobs/choices.ts). */
export type PolicySource =
  /** Chosen on this machine; the instance's copy agrees. */
  | { readonly kind: 'here' }
  /** Chosen on this machine; the instance's copy says otherwise (`onInstance`, visible text). */
  | { readonly kind: 'differs'; readonly onInstance: string }
  /** Nothing chosen on this machine: it follows "wait"; the instance's copy (`onInstance`) is not followed. */
  | { readonly kind: 'notHere'; readonly onInstance: string };

/** What the user gave at launch to make a job resumable. */
export interface ResumeSpec {
  /** The folder on the instance the job writes its checkpoints to (`~/x`, absolute, or relative to the job's folder). */
  readonly checkpointDir: string;
  /** The command that resumes the job; `{latest}` becomes the newest file or folder in `checkpointDir`, quoted. */
  readonly resumeCommand: string;
  readonly policy: OutbidPolicy;
}

/**
 * An entry of a checkpoint folder (a file or a folder), measured the same way wherever it is read
 * (the listing on the old instance, the check after a copy on the new one): by its manifest, each
 * regular file under it as its relative path and size, read with NUL separators so that any name
 * survives (see CHECKPOINT_FUNCTIONS in resumeScripts.ts).
 */
export interface CheckpointInfo {
  /** Its name inside the checkpoint folder: one path segment, as the disk has it (any character but `/`); shown through visibleText. */
  readonly name: string;
  /** The sum of its regular files' sizes (a file: its size). */
  readonly bytes: number;
  /** How many regular files it holds (a file: 1). */
  readonly files: number;
  /** sha256 (hex) of its manifest: the relative paths and sizes, sorted bytewise. */
  readonly digest: string;
  /** Unix seconds, its modification time. */
  readonly modifiedAt: number;
}

/** Whether `name` can be a checkpoint's name: one path segment (not `.` or `..`, no `/` or NUL), at most 255 bytes of UTF-8. */
export function isCheckpointName(name: string): boolean {
  if (name === '' || name === '.' || name === '..' || /[/\0]/.test(name)) return false;
  const bytes = Buffer.from(name, 'utf8');
  return bytes.length <= 255 && bytes.toString('utf8') === name;
}

/** A checkpoint's name as the scripts carry it: its UTF-8 bytes in lowercase hex (no shell quoting needed, any name survives). */
export function checkpointNameHex(name: string): string {
  if (!isCheckpointName(name)) throw new RangeError(l10n.t('"{0}" is not the name of a checkpoint.', visibleText(name, 120)));
  return Buffer.from(name, 'utf8').toString('hex');
}

/** The name a script printed in hex, or undefined when it is not one checkpoint name in UTF-8. */
export function checkpointNameOf(hex: string | undefined): string | undefined {
  if (!hex || hex.length > 510 || hex.length % 2 !== 0 || !/^[0-9a-f]+$/.test(hex)) return undefined;
  let name: string;
  try {
    name = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(hex, 'hex'));
  } catch {
    return undefined;
  }
  return isCheckpointName(name) ? name : undefined;
}

/** One recovery of a job, from its `history` file. */
export interface Recovery {
  /** Unix seconds, when it resumed. */
  readonly at: number;
  /** The instance it moved from, for a move. */
  readonly movedFrom?: number;
  /** Seconds of work lost: from the newest checkpoint (or the job's start) to the resume. */
  readonly lostSeconds: number;
}

/** A resumable job as the last listing of its instance showed it. */
export interface ResumableJob {
  readonly instanceId: number;
  readonly jobId: string;
  readonly label: string;
  /** The folder it runs in, as typed. */
  readonly cwd: string;
  readonly spec: ResumeSpec;
  /** The checkpoint folder as an absolute path, as the instance resolved it (what a copy to another instance names). */
  readonly checkpointPath: string;
  /** The job's own folder as an absolute path (`/root/.gpu-rental/jobs/<id>`). */
  readonly jobPath: string;
  /** The on-demand GPU price ($/h) recorded at launch, when it was known: what "saved" is counted against. */
  readonly onDemandPerHour: number | undefined;
  /** Its recoveries, oldest first ("resumed ×2" is their count). */
  readonly recoveries: readonly Recovery[];
  /** The newest checkpoint when it was last listed; undefined when the folder was empty or missing. */
  readonly latest: CheckpointInfo | undefined;
  /** It ended (an exit code, or Stop Job): nothing resumes it. */
  readonly ended: boolean;
  /** Where `spec.policy` came from: chosen on this machine, or "wait" because nothing was (core/jobs/choices.ts). */
  readonly policySource?: PolicySource;
}

/** The placeholder a resume command may use for the newest checkpoint. */
export const LATEST_PLACEHOLDER = '{latest}';

/** The policy as the job's `policy` file holds it. */
export function policyText(policy: OutbidPolicy): string {
  switch (policy.kind) {
    case 'wait':
      return 'wait';
    case 'raise':
    case 'move':
      return `${policy.kind} ${ceilingText(policy.ceiling)}`;
  }
}

function ceilingText(ceiling: number): string {
  if (!(Number.isFinite(ceiling) && ceiling > 0 && ceiling <= 128))
    throw new RangeError(l10n.t('{0} is not a ceiling in $/h: it must be above 0 and at most 128.', String(ceiling)));
  return String(Math.round(ceiling * 10_000) / 10_000);
}

/** Reads a `policy` file's text; undefined for anything else (an instance's text is never trusted). */
export function parsePolicy(text: string): OutbidPolicy | undefined {
  const t = text.trim();
  if (t === 'wait') return { kind: 'wait' };
  const m = /^(raise|move) (\d{1,3}(?:\.\d{1,6})?)$/.exec(t);
  if (!m) return undefined;
  const ceiling = Number(m[2]);
  if (!(ceiling > 0 && ceiling <= 128)) return undefined;
  return { kind: m[1] as 'raise' | 'move', ceiling };
}
