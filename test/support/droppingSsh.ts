// A stand-in for `ssh` that runs the real ssh with the same arguments and drops the link after a
// number of bytes (both ways): the real ssh is killed, and it exits 255 with ssh's words for a
// reset connection, as a network drop looks to a client. For a real sshd (the simulator's
// instances), where test/support/fakeSsh.ts's local folder does not apply: the benchmark drops an
// sftp transfer of a large file at half its size with it.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SCRIPT = `
const { spawn } = require('node:child_process');
const [limitText, ssh, ...args] = process.argv.slice(2);
const limit = Number(limitText);
const child = spawn(ssh, args, { stdio: ['pipe', 'pipe', 'inherit'] });
let moved = 0;
let dropped = false;
const pass = (chunk, to, from) => {
  if (dropped) return;
  const room = limit - moved;
  moved += chunk.length;
  if (chunk.length < room) {
    if (!to.write(chunk)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
    return;
  }
  if (room > 0) to.write(chunk.subarray(0, room));
  dropped = true;
  child.kill('SIGKILL');
  process.stderr.write('client_loop: send disconnect: Connection reset by peer\\r\\n', () => process.exit(255));
};
process.stdin.on('data', (c) => pass(c, child.stdin, process.stdin));
process.stdin.on('end', () => { if (!dropped) child.stdin.end(); });
child.stdin.on('error', () => {});
child.stdout.on('data', (c) => pass(c, process.stdout, child.stdout));
child.on('close', (code) => { if (!dropped) process.stdout.end(() => process.exit(code ?? 255)); });
process.on('SIGTERM', () => { child.kill('SIGKILL'); process.exit(255); });
`;

/** Writes the stand-in into `dir` and returns its path: the real `ssh` (or `realSsh`), dropped after `dropAt` bytes. */
export function droppingSsh(dir: string, name: string, dropAt: number, realSsh = 'ssh'): string {
  const script = join(dir, `${name}.cjs`);
  writeFileSync(script, SCRIPT);
  const command = join(dir, name);
  writeFileSync(command, `#!/bin/sh\nexec '${process.execPath}' '${script}' ${dropAt} '${realSsh}' "$@"\n`);
  chmodSync(command, 0o755);
  return command;
}
