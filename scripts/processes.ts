// Child processes the harness starts, each in its own process group, so that stopping one stops
// everything it started too. Every tracked process is stopped on exit, on failure and on Ctrl-C.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let cleanupHooks: Array<() => Promise<void> | void> = [];

export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options, detached: true });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Removed by `cleanup`, whatever the outcome. */
export function trackTempDir(dir: string): string {
  tempDirs.add(dir);
  return dir;
}

export function onCleanup(hook: () => Promise<void> | void): void {
  cleanupHooks.push(hook);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

let cleaning: Promise<void> | undefined;
/**
 * Stops every tracked process group (TERM, then KILL after a grace period) and removes temp dirs.
 * A call while one is under way (a signal during cleanup) waits for that one.
 */
export function cleanup(): Promise<void> {
  cleaning ??= cleanupNow().finally(() => (cleaning = undefined));
  return cleaning;
}

async function cleanupNow(): Promise<void> {
  const hooks = cleanupHooks;
  cleanupHooks = [];
  for (const hook of hooks.reverse()) {
    try {
      await hook();
    } catch {
      // keep cleaning
    }
  }
  const running = [...children];
  for (const child of running) killGroup(child, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (running.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const child of running) killGroup(child, 'SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

let installed = false;
/**
 * Ctrl-C, SIGTERM and uncaught errors clean up before exiting. A signal often arrives twice (from
 * the terminal and relayed by tsx or npm); repeats are ignored while cleaning up, and a third
 * Ctrl-C exits at once.
 */
export function cleanupOnExit(): void {
  if (installed) return;
  installed = true;
  let signals = 0;
  const onSignal = (code: number) => () => {
    signals++;
    if (signals === 1) void cleanup().finally(() => process.exit(code));
    else if (signals >= 3) process.exit(code);
  };
  process.on('SIGINT', onSignal(130));
  process.on('SIGTERM', onSignal(143));
  process.on('SIGHUP', onSignal(129));
  process.once('uncaughtException', (error) => {
    console.error(error);
    onSignal(1)();
  });
  watchLaunchers(() => {
    console.error('The npm that started this run is gone (killed?): stopping everything.');
    onSignal(143)();
  });
}

/** The parent pid and command of a process, from /proc (Linux). */
function processInfo(pid: number): { parent: number; command: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    // npm sets its process title, which puts its whole command line in one NUL-free string.
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/)[0] ?? '';
    return { parent, command };
  } catch {
    return undefined;
  }
}

/**
 * `kill <npm pid>` (a CI timeout, a supervisor) stops npm, and the `sh -c` it runs the script in
 * dies without passing the signal on: tsx and this process would live on, orphaned, with
 * code-server and the simulator. So the launch chain is watched: this process, tsx, sh, up to the
 * outermost npm above us. When any link of it breaks, we clean up and exit. Without npm in the
 * chain, only our own parent is watched.
 */
function watchLaunchers(onLost: () => void): void {
  const links: Array<[number, number]> = [];
  let pid = process.pid;
  for (let info = processInfo(pid); info && info.parent > 1; info = processInfo(pid)) {
    links.push([pid, info.parent]);
    pid = info.parent;
  }
  const npmAt = links.findLastIndex(([, parent]) => /(^|\/)np[mx]$/.test(processInfo(parent)?.command ?? ''));
  const watched = links.slice(0, npmAt >= 0 ? npmAt + 1 : 1);
  if (watched.length === 0) return;
  const timer = setInterval(() => {
    if (watched.some(([child, parent]) => processInfo(child)?.parent !== parent)) {
      clearInterval(timer);
      onLost();
    }
  }, 1_000);
  timer.unref();
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Resolves with the first line of the child's output that matches, or rejects when it exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`${what} did not start within ${timeoutMs / 1000} s. Output:\n${buffered.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const match = pattern.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (code ${code}) before it was ready. Output:\n${buffered.slice(-2000)}`));
    });
  });
}

export async function waitForHttp(url: string, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status < 500) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not answer at ${url} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Runs a test runner's main, cleans up whatever happens, and exits with its code. A crash still
 * prints the closing count line, so CI always sees `N passed, N failed`.
 */
export function runTestMain(main: () => Promise<number>): void {
  main()
    .then(async (code) => {
      await cleanup();
      process.exit(code);
    })
    .catch(async (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      await cleanup();
      console.log('0 passed, 1 failed');
      process.exit(1);
    });
}
