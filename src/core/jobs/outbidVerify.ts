/**
 * What a move (outbidMove.ts) copies and how it checks the copy on the new instance: the folders
 * (each job's checkpoint folder and its own folder, checked, nested ones once), the script that
 * makes them and the one that reads the newest checkpoint's size back. Paths and names come from
 * the old instance's listing: they are checked here and single-quoted in every script.
 */
import type { Instance } from '../api/instances';
import { shellQuote } from '../instances/ssh';
import { l10n } from '../l10n';
import { visibleText } from '../text';
import { jobNames } from './outbidPorts';
import type { ResumableJob } from './resumable';

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

/** A checkpoint's name as the listing gave it: one path segment, or undefined. */
function segment(name: string): string | undefined {
  return name && name !== '.' && name !== '..' && !/[/\0\r\n]/.test(name) ? name : undefined;
}

/**
 * Reads back, on the new instance, whether the job's folder and its checkpoint folder are there
 * and the newest checkpoint's bytes (a folder: the sum of its files, as the listing counts it).
 */
export function verifyScript(job: ResumableJob): string {
  const lines = [
    `j=${shellQuote(copyablePath(job.jobPath) ?? job.jobPath)}`,
    `c=${shellQuote(copyablePath(job.checkpointPath) ?? job.checkpointPath)}`,
    `if [ -d "$j" ]; then echo '${MARK} job yes'; else echo '${MARK} job no'; fi`,
    `if [ -d "$c" ]; then echo '${MARK} ckpt yes'; else echo '${MARK} ckpt no'; fi`,
  ];
  const name = job.latest ? segment(job.latest.name) : undefined;
  if (name) {
    lines.push(
      `e="$c"/${shellQuote(name)}`,
      `if [ -f "$e" ] && [ ! -L "$e" ]; then echo "${MARK} bytes $(stat -c %s "$e")";`,
      `elif [ -d "$e" ]; then echo "${MARK} bytes $(find "$e" -type f -exec stat -c %s {} + | awk '{s+=$1} END {print s+0}')";`,
      `else echo '${MARK} bytes none'; fi`,
    );
  }
  return lines.join('\n');
}

export interface VerifyReading {
  readonly jobFolder: boolean;
  readonly checkpointFolder: boolean;
  /** The newest checkpoint's bytes on the new instance; null when it is not there; undefined when not read. */
  readonly bytes: number | null | undefined;
}

/** Reads the script's marked lines; anything else the shell printed is ignored. */
export function readVerify(stdout: string): VerifyReading {
  let jobFolder = false;
  let checkpointFolder = false;
  let bytes: number | null | undefined;
  for (const line of stdout.split(/\r?\n/)) {
    const m = new RegExp(`^${MARK} (job|ckpt|bytes) (\\S+)$`).exec(line.trim());
    if (!m) continue;
    if (m[1] === 'job') jobFolder = m[2] === 'yes';
    else if (m[1] === 'ckpt') checkpointFolder = m[2] === 'yes';
    else bytes = m[2] === 'none' ? null : /^\d{1,16}$/.test(m[2]!) ? Number(m[2]) : undefined;
  }
  return { jobFolder, checkpointFolder, bytes };
}

/** Why the copy of `job` on the new instance is not what was on the old one, or undefined when it is. */
export function judgeVerify(job: ResumableJob, read: VerifyReading, dstName: string, old: Pick<Instance, 'id'>): string | undefined {
  const jobPath = visibleText(job.jobPath, 200);
  if (!read.jobFolder) return l10n.t('the folder of {0} ({1}) is not on {2} after the copy', jobNames([job]), jobPath, dstName);
  if (!job.latest) return undefined;
  const name = visibleText(job.latest.name, 120);
  if (!segment(job.latest.name))
    return l10n.t('the newest checkpoint of {0} has a name GPU Rental cannot check ({1})', jobNames([job]), name);
  if (!read.checkpointFolder || read.bytes === null)
    return l10n.t('the newest checkpoint {0} is not on {1} in {2} after the copy', name, dstName, visibleText(job.checkpointPath, 200));
  if (read.bytes === undefined) return l10n.t('the size of the newest checkpoint {0} on {1} could not be read', name, dstName);
  if (read.bytes !== job.latest.bytes)
    return l10n.t(
      'the newest checkpoint {0} has {1} bytes on the new instance, not {2} as on #{3}',
      name,
      read.bytes,
      job.latest.bytes,
      old.id,
    );
  return undefined;
}
