/**
 * The processes and streams of one transfer, run so that they always end: each process in a group
 * of its own (Cancel kills the group, so ssh's helpers go too), the streams joined with
 * `stream.pipeline` (an error anywhere destroys every stream, so no process waits on a pipe
 * nobody reads), a watchdog that stops a pipe through which nothing moved for a while, and a
 * SIGKILL for whatever SIGTERM did not end. `collect` runs one program alone the same way.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** How a process of the pipe ended. `killed`: GPU Rental stopped it (Cancel, a stall, or another part failing). */
export interface ProcessEnd {
  readonly label: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly killed: boolean;
  readonly spawnError?: Error;
}

/** What ended the pipe early, when something did. */
export type PipeStop = 'cancelled' | 'stalled';

export interface PipeEnd {
  readonly processes: readonly ProcessEnd[];
  /** The first stream error (a broken pipe, gzip's "unexpected end of file", a missing stream marker). */
  readonly streamError?: Error;
  readonly stopped?: PipeStop;
}

/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** How long the processes of a failed pipe get to end by themselves before they are stopped. */
const WIND_DOWN_MS = 1_000;
/** How long stderr may stay open after its process exited (a helper of ssh's holding it). */
const STDERR_GRACE_MS = 1_000;

/**
 * How processes are started and ended on this platform; tests hand another platform (win32 on
 * Linux) and a recording spawn.
 */
export interface ProcessControl {
  readonly platform: NodeJS.Platform;
  readonly spawn: typeof spawn;
  /** `process.kill`: a negative id signals a whole process group. */
  readonly kill: (pid: number, signal: NodeJS.Signals) => void;
}

export const NODE_PROCESSES: ProcessControl = { platform: process.platform, spawn, kill: (pid, signal) => process.kill(pid, signal) };

/**
 * A child process in a process group of its own, so that `killGroup` ends it and everything it
 * started. Windows has no process groups: there the child and its children are ended by id.
 */
export function spawnGroup(command: string, args: readonly string[], options: SpawnOptions, control = NODE_PROCESSES): ChildProcess {
  return control.spawn(command, args, { ...options, detached: control.platform !== 'win32', windowsHide: true });
}

/**
 * Signals the child's whole group; on Windows, `taskkill /T /F` ends the child and every process
 * it started, by id (a signal there would end only the child, leaving ssh's helpers running).
 */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals, control = NODE_PROCESSES): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  if (control.platform === 'win32') {
    const killer = control.spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true });
    killer.once('error', () => child.kill(signal));
    return;
  }
  try {
    control.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** SIGTERM to each group now, SIGKILL to those still there after the grace (on Windows, taskkill /F at once). */
export function stopGroups(children: readonly ChildProcess[], control = NODE_PROCESSES): void {
  for (const c of children) killGroup(c, 'SIGTERM', control);
  if (control.platform === 'win32') return;
  const timer = setTimeout(() => {
    for (const c of children) killGroup(c, 'SIGKILL', control);
  }, KILL_GRACE_MS);
  timer.unref?.();
}

/** The last `max` characters of a text that arrives in pieces. */
export function tail(max = 256 * 1024): { add(chunk: string): void; text(): string } {
  let text = '';
  return {
    add(chunk) {
      text += chunk;
      if (text.length > max * 2) text = text.slice(-max);
    },
    text: () => text,
  };
}

/** Resolves when the child exited and its stderr was read (or a moment after the exit, when something else holds stderr open). */
export function processEnd(child: ChildProcess, label: string, wasKilled: () => boolean): Promise<ProcessEnd> {
  const err = tail(64 * 1024);
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => err.add(chunk));
  return new Promise((resolve) => {
    let done = false;
    const finish = (end: Omit<ProcessEnd, 'label' | 'stderr'> & { stderr?: string }) => {
      if (done) return;
      done = true;
      resolve({ label, ...end, stderr: end.stderr ?? err.text() });
    };
    child.once('error', (error) =>
      finish({ code: null, signal: null, killed: false, stderr: `${label}: ${error.message}`, spawnError: error }),
    );
    child.once('exit', (code, signal) => {
      // Stopped by GPU Rental when it exited after being told to (ssh answers SIGTERM with 255, so
      // the code cannot tell); one that exited before that ended on its own.
      const killed = wasKilled();
      const timer = setTimeout(() => {
        child.stderr?.destroy();
        finish({ code, signal, killed });
      }, STDERR_GRACE_MS);
      timer.unref?.();
      child.once('close', () => {
        clearTimeout(timer);
        finish({ code, signal, killed });
      });
    });
  });
}

/** How a program run by `collect` ended, with the end of its output. */
export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
  spawnError?: Error;
  cancelled: boolean;
}

/** Runs a program to the end, collecting its output (the last 256 kB of each stream), `input` on its stdin; Cancel ends its whole process group. */
export function collect(
  cmd: string,
  args: readonly string[],
  options: { signal?: AbortSignal; onStdout?: (chunk: string) => void; cwd?: string; input?: string } = {},
): Promise<ProcessRun> {
  return new Promise((resolve) => {
    const child = spawnGroup(cmd, args, { stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], cwd: options.cwd });
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
    const out = tail();
    const err = tail();
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      stopGroups([child]);
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out.add(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => err.add(chunk));
    child.once('error', (error) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code: null, stdout: '', stderr: error.message, spawnError: error, cancelled });
    });
    child.once('close', (code) => {
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout: out.text(), stderr: err.text(), cancelled });
    });
  });
}

export interface PipeOptions {
  readonly signal?: AbortSignal;
  /** Ends the pipe when no byte passed `watch` for this long. */
  readonly stallMs: number;
  readonly now?: () => number;
}

/**
 * Runs `streams` (a source, transforms, a sink) through `pipeline` while `children` run, and
 * resolves when every stream and every process has ended, whatever happened: an error in one part
 * stops all the others. `watch` is a transform in the chain whose bytes count as progress.
 */
export async function runPipe(
  children: ReadonlyArray<{ child: ChildProcess; label: string }>,
  streams: [Readable, ...Array<Readable | Writable>],
  watch: ActivityMeter,
  options: PipeOptions,
): Promise<PipeEnd> {
  const procs = children.map((c) => c.child);
  let killed = false;
  let stopped: PipeStop | undefined;
  /** Cancel or a stall: every process group is signalled now. */
  const stopAll = (why?: PipeStop) => {
    if (why && !stopped && !killed) stopped = why;
    for (const s of streams) s.destroy();
    if (killed) return;
    killed = true;
    stopGroups(procs);
  };
  /**
   * A part failed: the streams close at once, which ends most processes by themselves (a closed
   * pipe, an end of input) with their own words and codes; whatever still runs after a moment is
   * stopped. Signalling them at once would hide why the transfer really failed (the drop behind
   * gzip's "unexpected end of file").
   */
  let winding: ReturnType<typeof setTimeout> | undefined;
  const windDown = () => {
    for (const s of streams) s.destroy();
    winding ??= setTimeout(() => stopAll(), WIND_DOWN_MS);
  };
  const ends = Promise.all(children.map((c) => processEnd(c.child, c.label, () => killed)));
  // A process that failed to start ends the rest. One that exits closes its pipes, and the
  // pipeline sees that (an end of input, a write to a closed pipe) after reading what it wrote.
  for (const c of procs) c.once('error', windDown);
  // The pipeline first, so that a Cancel that came before anything ran finds it joined.
  let streamError: Error | undefined;
  const piped = pipeline(streams as unknown as [Readable, Writable]).catch((error: unknown) => {
    streamError = error instanceof Error ? error : new Error(String(error));
    windDown();
  });
  const onAbort = () => stopAll('cancelled');
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const now = options.now ?? Date.now;
  const stall = setInterval(
    () => {
      if (now() - watch.lastActivity >= options.stallMs) stopAll('stalled');
    },
    Math.min(1_000, Math.max(50, options.stallMs / 4)),
  );
  const processes = await ends;
  // Every process has ended, so every pipe is closed; a stream that still has not said so is not
  // waited for past a moment.
  let late: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    piped,
    new Promise<void>((resolve) => {
      late = setTimeout(() => {
        for (const s of streams) s.destroy();
        streamError ??= new Error(l10n.t('a stream of the transfer did not close after its processes ended'));
        resolve();
      }, STDERR_GRACE_MS);
    }),
  ]);
  clearTimeout(late);
  clearInterval(stall);
  clearTimeout(winding);
  options.signal?.removeEventListener('abort', onAbort);
  return { processes, ...(streamError ? { streamError } : {}), ...(stopped ? { stopped } : {}) };
}

/** A pass-through that remembers when a byte last went by and how many did. */
export class ActivityMeter extends Transform {
  lastActivity: number;
  bytes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly onBytes?: (bytes: number) => void,
  ) {
    super();
    this.lastActivity = now();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null, data?: Buffer) => void): void {
    this.bytes += chunk.length;
    this.lastActivity = this.now();
    this.onBytes?.(this.bytes);
    done(null, chunk);
  }
}

/** The line a remote command prints before its data, so that whatever the remote shell printed first (a banner) is skipped. */
export const STREAM_MARK = 'GPU-RENTAL-DATA-8d1f2c';

/** The error when the marker never came: what the instance printed instead, shortened. */
export class MissingStreamMark extends Error {
  constructor(readonly printed: string) {
    super(l10n.t("the instance's shell printed something other than the data ({0})", JSON.stringify(visibleText(printed, 120))));
    this.name = 'MissingStreamMark';
  }
}

/**
 * Drops everything up to and including the line `STREAM_MARK`, then passes the rest as it is. A
 * stream that ends (or passes 64 KiB) without the marker fails with MissingStreamMark.
 */
export function skipToMark(limit = 64 * 1024): Transform {
  const mark = Buffer.from(`${STREAM_MARK}\n`);
  let head: Buffer | undefined = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (head === undefined) return done(null, chunk);
      head = Buffer.concat([head, chunk]);
      // The marker counts only as a whole line: at the start, or right after a newline.
      for (let at = head.indexOf(mark); at >= 0; at = head.indexOf(mark, at + 1)) {
        if (at > 0 && head[at - 1] !== 0x0a) continue;
        const rest = head.subarray(at + mark.length);
        head = undefined;
        return done(null, rest.length ? rest : undefined);
      }
      if (head.length > limit) return done(new MissingStreamMark(head.toString('utf8')));
      done();
    },
    flush(done) {
      done(head === undefined ? null : new MissingStreamMark(head.toString('utf8')));
    },
  });
}
