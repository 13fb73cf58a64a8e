// A stand-in for `ssh` that runs the remote command on this machine, in a folder that plays the
// instance, and can break the link the way networks do: drop it after N bytes (exit 255 with ssh's
// words, the remote side killed), stall it after N bytes (nothing moves, nothing ends), or print a
// banner before the command's output (a chatty ~/.bashrc). The transfer tests point
// TransferOptions.tools.ssh (and so rsync's -e) at a script that runs this.
//
// Usage: node fakeSsh.js CONFIG.json [ssh arguments…] ALIAS [--] COMMAND…
// It is transpiled once per test run (fakeSshScript) and started with plain node: no tsx per call.
import { spawn } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeSshConfig {
  /** The host alias the transfer uses; what follows it is the command. */
  alias: string;
  /** The instance's home folder: the command's working folder and $HOME. */
  home: string;
  /** $PATH of the remote shell (a folder of links to the tools the instance has). */
  path: string;
  /** Bytes (both ways) after which the link drops. */
  dropAt?: number;
  /** Bytes (both ways) after which nothing moves any more, and nothing ends. */
  stallAt?: number;
  /** Printed on stdout before the command's output. */
  banner?: string;
  /** Where the time of the drop is written (ms since the epoch), for the test's clock. */
  dropFile?: string;
  /** The program that answers ssh's `-s sftp` subsystem request (OpenSSH's sftp-server). */
  sftpServer?: string;
}

/** OpenSSH's sftp-server where Debian and Red Hat put it. */
export const SFTP_SERVERS = ['/usr/lib/openssh/sftp-server', '/usr/libexec/openssh/sftp-server', '/usr/lib/ssh/sftp-server'];

function main(): void {
  const [configPath, ...args] = process.argv.slice(2);
  const config = JSON.parse(readFileSync(configPath!, 'utf8')) as FakeSshConfig;
  const at = args.indexOf(config.alias);
  if (at < 0) {
    process.stderr.write(`ssh: Could not resolve hostname: fake ssh was not given ${config.alias}\r\n`);
    process.exit(255);
  }
  let words = args.slice(at + 1);
  if (words[0] === '--') words = words.slice(1);
  // sftp asks for its subsystem with -s: the server runs instead of a shell command.
  const subsystem = args.slice(0, at).includes('-s') && words.join(' ') === 'sftp';
  const [program, programArgs] = subsystem ? [config.sftpServer ?? SFTP_SERVERS[0]!, []] : ['sh', ['-c', words.join(' ')]];
  const child = spawn(program, programArgs, {
    cwd: config.home,
    env: { PATH: config.path, HOME: config.home, LC_ALL: 'C' },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own group, so a drop ends the whole remote side as sshd's hang-up does.
    detached: true,
  });
  const killRemote = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  let moved = 0;
  let dropped = false;
  let stalled = false;
  const drop = () => {
    dropped = true;
    // Written whole, then renamed: a reader never sees it half-written.
    if (config.dropFile) {
      writeFileSync(`${config.dropFile}.${process.pid}`, String(Date.now()));
      renameSync(`${config.dropFile}.${process.pid}`, config.dropFile);
    }
    killRemote();
    process.stderr.write('client_loop: send disconnect: Connection reset by peer\r\n', () => process.exit(255));
  };
  /** The part of `chunk` that may still pass; drops or stalls the link at the limit. */
  const allow = (chunk: Buffer): Buffer | undefined => {
    if (dropped || stalled) return undefined;
    const limit = Math.min(config.dropAt ?? Infinity, config.stallAt ?? Infinity);
    const room = limit - moved;
    if (chunk.length < room) {
      moved += chunk.length;
      return chunk;
    }
    moved = limit;
    const part = chunk.subarray(0, Math.max(0, room));
    if (config.dropAt !== undefined && limit === config.dropAt) setImmediate(drop);
    else {
      stalled = true;
      // A hung link keeps its process: nothing moves, nothing ends, until ssh is killed.
      setInterval(() => {}, 60_000);
    }
    return part.length ? part : undefined;
  };
  process.on('SIGTERM', () => {
    killRemote();
    process.stderr.write('Killed by signal 15.\r\n', () => process.exit(255));
  });
  process.stdout.on('error', () => {
    killRemote();
    process.exit(255);
  });
  child.stdin.on('error', () => {});
  if (config.banner) {
    const part = allow(Buffer.from(config.banner));
    if (part) process.stdout.write(part);
  }
  process.stdin.on('data', (chunk: Buffer) => {
    const part = allow(chunk);
    if (part && !child.stdin.write(part)) {
      process.stdin.pause();
      child.stdin.once('drain', () => process.stdin.resume());
    }
  });
  process.stdin.on('end', () => {
    if (!dropped && !stalled) child.stdin.end();
  });
  child.stdout.on('data', (chunk: Buffer) => {
    const part = allow(chunk);
    if (part && !process.stdout.write(part)) {
      child.stdout.pause();
      process.stdout.once('drain', () => child.stdout.resume());
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (!dropped && !stalled) process.stderr.write(chunk);
  });
  child.on('close', (code) => {
    if (dropped || stalled) return;
    process.stdout.end(() => process.exit(code ?? 255));
  });
}

if (require.main === module) main();

/** Builds the fake once into a plain script and returns a command that runs it with `config`. */
export async function fakeSshCommand(config: FakeSshConfig, dir: string, name: string): Promise<string> {
  const script = await fakeSshScript(dir);
  const configPath = join(dir, `${name}.json`);
  writeFileSync(configPath, JSON.stringify(config));
  const command = join(dir, name);
  writeFileSync(command, `#!/bin/sh\nexec '${process.execPath}' '${script}' '${configPath}' "$@"\n`, { mode: 0o755 });
  return command;
}

const built = new Map<string, Promise<string>>();
/** This file as plain JavaScript in `dir` (esbuild, no bundling: it imports only node: modules). */
function fakeSshScript(dir: string): Promise<string> {
  let script = built.get(dir);
  if (!script) {
    script = (async () => {
      const { build } = await import('esbuild');
      const outfile = join(dir, 'fakeSsh.js');
      await build({ entryPoints: [__filename], outfile, platform: 'node', format: 'cjs', bundle: false, logLevel: 'error' });
      return outfile;
    })();
    built.set(dir, script);
  }
  return script;
}
