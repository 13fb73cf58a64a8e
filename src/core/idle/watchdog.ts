import { ONSTART_MAX_CHARS } from '../api/limits';
import { shellAssignments } from '../shell';
import { MAX_IDLE_MINUTES } from '../settings';
import { l10n } from '../l10n';
import WATCHDOG from './remote/watchdog.sh';

/** The longest idle time the watchdog takes, in seconds (one week). */
export const MAX_IDLE_SECONDS = MAX_IDLE_MINUTES * 60;

/** What the watchdog on the host is told at rent time. */
export interface WatchdogOptions {
  /** The API's base URL, e.g. https://console.vast.ai; the watchdog stops its instance through it. */
  baseUrl: string;
  /** Idle this long (no GPU use above the threshold and no SSH session) and the instance stops itself; at most a week. */
  idleMinutes: number;
  /** GPU utilisation, in percent, at or below which the GPU counts as idle. */
  gpuThreshold: number;
  /** How often it looks, in seconds (60 in use; tests make it short). */
  checkSeconds?: number;
}

export const WATCHDOG_BEGIN = '# >>> gpu-rental idle stop >>>';
export const WATCHDOG_END = '# <<< gpu-rental idle stop <<<';

/**
 * The watchdog, as a few lines of POSIX-ish bash that run in the background on the host, started
 * by the instance's start-up script. Every check it reads the busiest GPU's utilisation
 * (nvidia-smi; none counts as 0), counts SSH sessions (the per-session sshd processes, found
 * through /proc, so it needs no procps) and GPU Rental jobs still running (core/jobs: a live
 * wrapper without an exit code), so a CPU-bound step of a job is never cut off as idle. When neither shows use for the idle time, it stops its
 * own instance with the instance key the service puts into the container (CONTAINER_API_KEY, for
 * CONTAINER_ID), by curl, else wget, else python3. Everything it decides goes to
 * ~/gpu-rental-idle.log on the host. The key is never on a command line, where any process on the
 * host could read it, nor in the log, which keeps only the HTTP status of the service's answer.
 *
 * The idle time must be positive and at most a week: bash's arithmetic is 64-bit, and a larger
 * number would make its first comparison fail, which read as "idle" and stopped the instance at
 * once. The script checks this itself too and stays off, with a line in its log, rather than stop.
 */
export function watchdogScript(o: WatchdogOptions): string {
  const url = o.baseUrl.replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s'"]+$/.test(url)) throw new Error(l10n.t('"{0}" is not a usable base URL for the idle watchdog.', o.baseUrl));
  if (!(o.idleMinutes > 0 && o.idleMinutes <= MAX_IDLE_MINUTES)) {
    throw new RangeError(
      l10n.t(
        'An idle time of {0} minutes cannot be used: the idle stop takes more than 0 and at most {1} minutes (one week).',
        String(o.idleMinutes),
        MAX_IDLE_MINUTES,
      ),
    );
  }
  const check = o.checkSeconds ?? 60;
  if (!(check > 0 && check <= MAX_IDLE_SECONDS))
    throw new RangeError(l10n.t('The idle watchdog cannot check every {0} seconds.', String(check)));
  if (!Number.isFinite(o.gpuThreshold)) throw new RangeError(l10n.t('{0} is not a GPU threshold in percent.', String(o.gpuThreshold)));
  const idle = Math.max(1, Math.round(o.idleMinutes * 60));
  const every = Math.max(1, Math.min(Math.round(check), idle));
  const threshold = Math.max(0, Math.min(100, Math.round(o.gpuThreshold)));
  const values = { U: url, N: idle, E: every, T: threshold, W: MAX_IDLE_SECONDS };
  return [
    WATCHDOG_BEGIN,
    `(${shellAssignments(values)} L="\${HOME:-/root}/gpu-rental-idle.log" i=0`,
    `${LOOP}) >/dev/null 2>&1 &`,
    WATCHDOG_END,
    '',
  ].join('\n');
}

/** remote/watchdog.sh without its opening comment, which is for readers: the start-up script's length is limited. */
const LOOP = WATCHDOG.replace(/^(#.*\n)+/, '').trimEnd();

export class OnstartTooLong extends Error {
  constructor(
    readonly length: number,
    readonly watchdogLength: number,
  ) {
    super(
      l10n.t(
        'The start-up script with the idle watchdog would be {0} characters; the service accepts at most {1}. The watchdog takes {2}: shorten your script, or turn idle stop off for this rent.',
        length,
        ONSTART_MAX_CHARS,
        watchdogLength,
      ),
    );
    this.name = 'OnstartTooLong';
  }
}

/**
 * The user's start-up script with the watchdog in front of it. The user's script follows
 * unchanged and runs as before; the watchdog runs in the background and never replaces it.
 */
export function withWatchdog(userScript: string | undefined, o: WatchdogOptions): string {
  const dog = watchdogScript(o);
  const text = userScript?.trim() ? dog + userScript : dog;
  if (text.length > ONSTART_MAX_CHARS) throw new OnstartTooLong(text.length, dog.length);
  return text;
}

/** Whether a start-up script already carries the watchdog (a template made from a rent, say). */
export function hasWatchdog(script: string | undefined): boolean {
  return !!script?.includes(WATCHDOG_BEGIN);
}
