// A stand-in for `ssh` that connects and then never finishes: it writes its process id where the
// test can read it, and becomes a `sleep` (same process, `exec`). A test of Cancel points
// runRemote's `ssh` at it, waits for `started` (the command is "running on the instance"), presses
// Cancel, and checks with `gone` that the process ended.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from './eventually';

export interface SlowSsh {
  /** The executable to pass as runRemote's `ssh`. */
  readonly path: string;
  /** Resolves with the stand-in's process id once it runs; rejects if it never starts within 20 s. */
  readonly started: Promise<number>;
  /** Resolves once the process `pid` no longer exists; rejects after `timeoutMs`. */
  gone(pid: number, timeoutMs?: number): Promise<void>;
}

/** Writes the stand-in into `dir` (one per test: its pid file is its own). */
export async function slowSsh(dir: string, name = 'slow-ssh'): Promise<SlowSsh> {
  const path = join(dir, name);
  const pidFile = join(dir, `${name}.pid`);
  await writeFile(path, `#!/bin/sh\necho $$ > '${pidFile}.tmp' && mv '${pidFile}.tmp' '${pidFile}'\nexec sleep 300\n`);
  await chmod(path, 0o755);
  const started = eventually(
    async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return /^\d+\n$/.test(text) ? Number(text) : undefined;
    },
    `${name} to start`,
    20_000,
  );
  // A test that never awaits it (it failed earlier) must not leave an unhandled rejection.
  started.catch(() => undefined);
  return {
    path,
    started,
    gone: (pid, timeoutMs = 5_000) => eventually(() => !alive(pid), `process ${pid} (${name}) to end`, timeoutMs).then(() => undefined),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
