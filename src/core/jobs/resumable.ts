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

/** What happens when the service outbids the job's instance. */
export type OutbidPolicy =
  /** The service resumes the instance when its bid is the highest again; the job resumes with it (the default). */
  | { readonly kind: 'wait' }
  /** Raise the bid to just over the machine's minimum, never above `ceiling` ($/h for the GPU). */
  | { readonly kind: 'raise'; readonly ceiling: number }
  /** Rent the same search elsewhere at most at `ceiling` $/h, copy the checkpoints there, resume, then destroy the old one. */
  | { readonly kind: 'move'; readonly ceiling: number };

/** What the user gave at launch to make a job resumable. */
export interface ResumeSpec {
  /** The folder on the instance the job writes its checkpoints to (`~/x`, absolute, or relative to the job's folder). */
  readonly checkpointDir: string;
  /** The command that resumes the job; `{latest}` becomes the newest file or folder in `checkpointDir`, quoted. */
  readonly resumeCommand: string;
  readonly policy: OutbidPolicy;
}

/** The newest entry of a checkpoint folder, as the instance listed it. */
export interface CheckpointInfo {
  /** Its name inside the checkpoint folder (one path segment). */
  readonly name: string;
  /** Bytes (a folder: the sum of its files). */
  readonly bytes: number;
  /** Unix seconds, its modification time. */
  readonly modifiedAt: number;
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
