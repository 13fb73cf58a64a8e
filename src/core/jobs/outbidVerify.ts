/**
 * What a move (outbidMove.ts) copies and how it checks the copy on the new instance: the folders
 * (each job's checkpoint folder and its own folder, checked, nested ones once), the script that
 * makes them and the one that measures the checkpoints there, and how that reading decides which
 * checkpoint the job resumes from. Paths come from the old instance's listing: they are checked here
 * and single-quoted in every script; checkpoint names travel in hex.
 */
import type { Instance } from '../api/instances';
import { shellQuote } from '../shell';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import { jobNames } from './outbidPorts';
import { checkpointNameHex, isCheckpointName, type CheckpointInfo, type ResumableJob } from './resumable';
import { CHECKPOINT_FUNCTIONS } from './resumeScripts';
import { readCheckpoint } from './status';

/** How long one check over ssh may take. */
export const VERIFY_TIMEOUT_MS = 120_000;

const MARK = 'gpu-rental-verify';

/** An absolute path without a trailing slash, or undefined when it is not one GPU Rental copies (relative, `..`, the root, several lines). */
export function copyablePath(path: string): string | undefined {
  if (!path.startsWith('/') || /[\0\r\n]/.test(path)) return undefined;
  const tidy = path.replace(/\/+$/, '');
  if (tidy === '' || tidy.split('/').some((part) => part === '..' || part === '.')) return undefined;
  return tidy;
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/**
 * The folder the job runs in, absolute: its `cwd` as typed (`~`, `~/x`, relative to the home folder,
 * or absolute), the home folder read from the job's own folder (`<home>/.gpu-rental/jobs/<id>`).
 * Undefined when the home folder cannot be told (a jobs folder elsewhere).
 */
export function workPath(job: Pick<ResumableJob, 'cwd' | 'jobPath' | 'jobId'>): string | undefined {
  const cwd = job.cwd.trim();
  if (cwd.startsWith('/')) return cwd;
  const suffix = `/.gpu-rental/jobs/${job.jobId}`;
  const jobPath = job.jobPath.replace(/\/+$/, '');
  if (!jobPath.endsWith(suffix)) return undefined;
  const home = jobPath.slice(0, -suffix.length) || '/';
  if (cwd === '' || cwd === '~' || cwd === '.') return home;
  const rest = cwd.startsWith('~/') ? cwd.slice(2) : cwd;
  return `${home.replace(/\/$/, '')}/${rest}`;
}

/**
 * The folders a move copies, in order: each job's working folder (its code and data: the job runs
 * there on the new instance too), its checkpoint folder (when it has a checkpoint) and its own
 * folder; one inside another is copied with it. A path that is not copyable is a problem.
 */
export function moveFolders(jobs: readonly ResumableJob[]): { paths: string[] } | { problem: string } {
  const wanted: string[] = [];
  for (const job of jobs) {
    const work = workPath(job);
    for (const given of [...(work ? [work] : []), ...(job.latest ? [job.checkpointPath, job.jobPath] : [job.jobPath])]) {
      const path = copyablePath(given);
      if (!path)
        return {
          problem: l10n.t('the folder "{0}" of {1} is not an absolute path GPU Rental can copy', visibleText(given, 200), jobNames([job])),
        };
      wanted.push(path);
    }
  }
  const unique = [...new Set(wanted)];
  return { paths: unique.filter((p) => !unique.some((other) => other !== p && inside(p, other))) };
}

/** Makes the folders on the new instance (a copy into a folder whose parent is missing fails). */
export function mkdirScript(paths: readonly string[]): string {
  return `mkdir -p -- ${paths.map(shellQuote).join(' ')}`;
}

/**
 * Reads back, on the new instance after the copy, what the move decides by (each line marked, the
 * rest of the shell's output ignored): whether the job's folder and its checkpoint folder are there;
 * the checkpoint the old instance's listing named (`job.latest`), measured as the listing measured
 * it (its manifest: bytes, files, digest; see CHECKPOINT_FUNCTIONS) with its modification time
 * there; and the newest entry of the checkpoint folder there, by the rule the `resume` script picks
 * by, with its manifest and time. Names travel in hex: any name survives.
 */
export function verifyScript(job: ResumableJob): string {
  const lines = [
    CHECKPOINT_FUNCTIONS,
    `j=${shellQuote(copyablePath(job.jobPath) ?? job.jobPath)}`,
    `c=${shellQuote(copyablePath(job.checkpointPath) ?? job.checkpointPath)}`,
    `if [ -d "$j" ]; then echo '${MARK} job yes'; else echo '${MARK} job no'; fi`,
    `if [ -d "$c" ]; then echo '${MARK} ckpt yes'; else echo '${MARK} ckpt no'; fi`,
  ];
  if (job.latest && isCheckpointName(job.latest.name)) {
    lines.push(
      `if dx ${checkpointNameHex(job.latest.name)} && e="$c/$DX" && [ ! -L "$e" ] && { [ -f "$e" ] || [ -d "$e" ]; }; then`,
      `  echo "${MARK} listed $(ms "$e") $(stat -c %Y -- "$e" 2>/dev/null)"`,
      `else echo '${MARK} listed none'; fi`,
    );
  }
  lines.push(`nw "$c"; if [ -n "$NN" ]; then echo "${MARK} newest $(hx "$NN") $(ms "$c/$NN") $NM"; else echo '${MARK} newest none'; fi`);
  return lines.join('\n');
}

/** A checkpoint measured on the new instance (its name is the one asked for). */
export type CheckpointMeasure = Omit<CheckpointInfo, 'name'>;

export interface VerifyReading {
  readonly jobFolder: boolean;
  readonly checkpointFolder: boolean;
  /** The checkpoint the listing named, on the new instance; null when it is not there; undefined when not read. */
  readonly listed: CheckpointMeasure | null | undefined;
  /** The newest entry of the checkpoint folder on the new instance; null when there is none; undefined when not read. */
  readonly newest: CheckpointInfo | null | undefined;
}

const COUNT = '(\\d{1,15})';
const DIGEST = '([0-9a-f]{64})';

/** Reads the script's marked lines; anything else the shell printed is ignored. */
export function readVerify(stdout: string): VerifyReading {
  let jobFolder = false;
  let checkpointFolder = false;
  let listed: CheckpointMeasure | null | undefined;
  let newest: CheckpointInfo | null | undefined;
  const measured = new RegExp(`^${MARK} listed ${COUNT} ${COUNT} ${DIGEST} ${COUNT}$`);
  const newer = new RegExp(`^${MARK} newest ([0-9a-f]{1,2000}) ${COUNT} ${COUNT} ${DIGEST} ${COUNT}$`);
  for (const raw of stdout.split(/\r?\n/)) {
    const line = raw.trim();
    const folder = new RegExp(`^${MARK} (job|ckpt) (yes|no)$`).exec(line);
    if (folder) {
      if (folder[1] === 'job') jobFolder = folder[2] === 'yes';
      else checkpointFolder = folder[2] === 'yes';
    } else if (line.startsWith(`${MARK} listed `)) {
      const m = measured.exec(line);
      listed =
        line === `${MARK} listed none`
          ? null
          : m && Number(m[4]) > 0
            ? { bytes: Number(m[1]), files: Number(m[2]), digest: m[3]!, modifiedAt: Number(m[4]) }
            : undefined;
    } else if (line.startsWith(`${MARK} newest `)) {
      const m = newer.exec(line);
      newest = line === `${MARK} newest none` ? null : m ? readCheckpoint(m[1], m[2], m[3], m[4], m[5]) : undefined;
    }
  }
  return { jobFolder, checkpointFolder, listed, newest };
}

/** What the check of a copy decides: why the copy is not what was on the old instance, or the checkpoint to resume from (undefined: none, the job starts over). */
export type VerifyJudgement = { readonly problem: string } | { readonly resumeFrom: CheckpointInfo | undefined };

/**
 * Judges the check of `job`'s copy on the new instance. The job's folder must be there. When the
 * listing named a newest checkpoint, the copy must hold it with the same manifest (bytes, files,
 * digest). The checkpoint to resume from is then the newest entry on the new instance when the copy
 * kept modification times (the listed one has there the time the listing read) and it is at least
 * as new as the listed one: the listing may be older than the outbid, and the copy is what the old
 * disk held at the outbid. Else it is the listed one. Without a listed checkpoint, the newest entry
 * the copy brought, if any.
 */
export function judgeVerify(job: ResumableJob, read: VerifyReading, dstName: string, old: Pick<Instance, 'id'>): VerifyJudgement {
  const jobPath = visibleText(job.jobPath, 200);
  if (!read.jobFolder)
    return { problem: l10n.t('the folder of {0} ({1}) is not on {2} after the copy', jobNames([job]), jobPath, dstName) };
  const unreadable = { problem: l10n.t('the newest checkpoint of {0} on {1} could not be read', jobNames([job]), dstName) };
  const listed = job.latest;
  if (!listed) {
    if (!read.checkpointFolder || read.newest === null) return { resumeFrom: undefined };
    return read.newest === undefined ? unreadable : { resumeFrom: read.newest };
  }
  const name = visibleText(listed.name, 120);
  if (!isCheckpointName(listed.name))
    return { problem: l10n.t('the newest checkpoint of {0} has a name GPU Rental cannot check ({1})', jobNames([job]), name) };
  const copy = read.listed;
  // The job may have gone on after the listing: with times kept, a newer entry on the copy is what
  // the old disk held at the outbid. A listed entry the job removed since (Hugging Face's
  // save_total_limit rotates old ones away), or rewrote in place (a `last.ckpt`), is then not a
  // bad copy: the job resumes from that newer entry.
  // (The same files with another time is a copy that did not keep times: the listed entry stays.
  // Only a one-file entry counts as rewritten: a folder's time also moves when a copy leaves it
  // part-way, and a folder checkpoint is written anew under a new name, not rewritten.)
  const newer = read.newest && read.newest.modifiedAt > listed.modifiedAt ? read.newest : undefined;
  const rewritten =
    copy &&
    listed.files === 1 &&
    copy.files === 1 &&
    copy.modifiedAt > listed.modifiedAt &&
    (copy.bytes !== listed.bytes || copy.digest !== listed.digest);
  if (newer && read.checkpointFolder && (copy === null || rewritten)) return { resumeFrom: newer };
  if (!read.checkpointFolder || copy === null)
    return {
      problem: l10n.t('the newest checkpoint {0} is not on {1} in {2} after the copy', name, dstName, visibleText(job.checkpointPath, 200)),
    };
  if (copy === undefined) return { problem: l10n.t('the size of the newest checkpoint {0} on {1} could not be read', name, dstName) };
  if (copy.bytes !== listed.bytes)
    return {
      problem: l10n.t(
        'the newest checkpoint {0} has {1} bytes on the new instance, not {2} as on #{3}',
        name,
        copy.bytes,
        listed.bytes,
        old.id,
      ),
    };
  if (copy.files !== listed.files)
    return {
      problem: l10n.t(
        'the newest checkpoint {0} has {1} files on the new instance, not {2} as on #{3}',
        name,
        copy.files,
        listed.files,
        old.id,
      ),
    };
  if (copy.digest !== listed.digest)
    return {
      problem: l10n.t(
        'the files of the newest checkpoint {0} on the new instance have other names or sizes than on #{1} (the same total, {2} bytes in {3} files)',
        name,
        old.id,
        listed.bytes,
        listed.files,
      ),
    };
  // Times kept: the newest entry there is what the old disk held newest at the outbid.
  if (copy.modifiedAt !== listed.modifiedAt) return { resumeFrom: listed };
  if (read.newest === undefined) return unreadable;
  return { resumeFrom: read.newest && read.newest.modifiedAt >= listed.modifiedAt ? read.newest : listed };
}
