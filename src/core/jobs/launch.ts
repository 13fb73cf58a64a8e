import { l10n } from '../l10n';
import LAUNCH from './remote/launch.sh';
import UP from './remote/up.sh';

/**
 * What the start script and a resumable job's `resume` script share (scripts.ts, resumeScripts.ts):
 * the job id's shape and the lines that start the wrapper detached.
 */

const JOB_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Whether `id` is a job id the extension could have made (safe in a path, a tmux session name and a shell word). */
export function isJobId(id: string): boolean {
  return JOB_ID.test(id);
}

/**
 * The lines that start the wrapper `$D/run` detached (launch.sh: a tmux session named after the
 * job's folder, `gpu-rental-<jobId>`, when tmux is there, else `setsid nohup`, else plain `nohup`),
 * print `started tmux|setsid|nohup`, then wait until the wrapper wrote its pid and fail (exit 4)
 * when it did not. `$D` is the job's folder, whose name is `jobId` (checked here).
 */
export function launchLines(jobId: string, forceSetsid: boolean | undefined): string[] {
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  return [LAUNCH_FUNCTION, `launch ${launchMode(forceSetsid)}`];
}

/** launch.sh's function `launch tmux|setsid`. */
export const LAUNCH_FUNCTION = LAUNCH.trimEnd();

/** launch's argument: `setsid` never uses tmux (tests of that path; images without tmux take it anyway). */
export function launchMode(forceSetsid: boolean | undefined): 'tmux' | 'setsid' {
  return forceSetsid ? 'setsid' : 'tmux';
}

/**
 * `up <dir>`: whether the job's wrapper runs (up.sh). Its pid alone is not enough: after a restart
 * the instance counts pids from 1 again, and another process may hold the pid the wrapper had.
 */
export const WRAPPER_UP_FUNCTION = UP.trimEnd();
