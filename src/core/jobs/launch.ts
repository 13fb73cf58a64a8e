import { l10n } from '../l10n';

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
 * Starts the wrapper `$D/run` detached (tmux session `gpu-rental-<jobId>` when tmux is there, else
 * `setsid nohup`, else plain `nohup`), prints `started tmux|setsid|nohup`, then waits until the
 * wrapper wrote its pid and fails (exit 4) when it did not. `$D` is the job's folder; `jobId` was checked.
 */
export function launchLines(jobId: string, forceSetsid: boolean | undefined): string[] {
  if (!isJobId(jobId)) throw new Error(l10n.t('"{0}" is not a job id GPU Rental makes.', jobId));
  return [
    forceSetsid ? 'T=' : 'T=$(command -v tmux || true)',
    'if [ -n "$T" ]; then',
    `  tmux new-session -d -s gpu-rental-${jobId} bash "$D/run" "$D"`,
    '  echo started tmux',
    'elif command -v setsid >/dev/null; then',
    '  setsid nohup bash "$D/run" "$D" </dev/null >/dev/null 2>&1 &',
    '  echo started setsid',
    'else',
    '  nohup bash "$D/run" "$D" </dev/null >/dev/null 2>&1 &',
    '  echo started nohup',
    'fi',
    // The wrapper writes its pid first: until then the job has not started.
    'i=0; while [ ! -s "$D/wpid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done',
    '[ -s "$D/wpid" ] || { echo "the job\'s wrapper did not start" >&2; exit 4; }',
  ];
}

/**
 * `up <dir>`: whether the job's wrapper runs. Its pid alone is not enough: after a restart the
 * instance counts pids from 1 again, and another process may hold the pid the wrapper had.
 */
export const WRAPPER_UP_FUNCTION =
  'up(){ w=$(head -c 20 "$1/wpid" 2>/dev/null | tr -dc 0-9); [ -n "$w" ] && kill -0 "$w" 2>/dev/null || return 1; [ -r "/proc/$w/cmdline" ] || return 0; case "$(tr "\\0" " " <"/proc/$w/cmdline" 2>/dev/null)" in *"/${1##*/}/run "*) return 0;; esac; return 1; }';
