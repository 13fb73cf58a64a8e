import { spawn, type ChildProcess } from 'node:child_process';
import { shellQuote } from '../shell';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/**
 * How `ssh` reaches one instance: `ssh <args> <alias> <command>`. `args` is what the managed SSH
 * config needs (`-F <file>` when the user's config has no Include), never a secret.
 */
export interface SshTarget {
  readonly instanceId: number;
  readonly alias: string;
  readonly args: readonly string[];
}

/**
 * Options every non-interactive ssh call takes: never ask for a password or a host key on a
 * terminal nobody sees, give up on a dead connection within about 45 s, not hours.
 */
export const BATCH_OPTIONS: readonly string[] = [
  '-o',
  'BatchMode=yes',
  '-o',
  'ConnectTimeout=15',
  '-o',
  'ServerAliveInterval=15',
  '-o',
  'ServerAliveCountMax=3',
];

/** The argv (after `ssh`) that runs `command` on the instance; the command is read by the remote user's shell. */
export function sshArgv(target: SshTarget, command?: string, extra: readonly string[] = []): string[] {
  return [...target.args, ...BATCH_OPTIONS, ...extra, target.alias, ...(command === undefined ? [] : ['--', command])];
}

/** `ssh` as one line a person can paste (for logs and "copy the command"); every word quoted. */
export function sshCommandLine(target: SshTarget, command?: string): string {
  return ['ssh', ...sshArgv(target, command)].map(shellQuote).join(' ');
}

export interface RemoteResult {
  /** ssh's exit code: the remote command's, or 255 when ssh itself failed. */
  code: number;
  stdout: string;
  stderr: string;
}

/** ssh could not reach the instance, or the command failed: what it said, for the user. */
export class RemoteCommandError extends Error {
  constructor(
    message: string,
    readonly result: RemoteResult | undefined,
  ) {
    super(message);
    this.name = 'RemoteCommandError';
  }

  /** ssh itself failed (no connection, key refused, connection dropped), not the command. */
  get connectionFailed(): boolean {
    return this.result === undefined || this.result.code === 255;
  }
}

export interface RunRemoteOptions {
  /** Written to the command's stdin, then closed; a promise is written when it resolves (the command waits for it meanwhile). */
  input?: string | Buffer | Promise<string>;
  /** Killed after this long (default 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Stops reading output past this many bytes per stream (default 4 MiB). */
  maxOutputBytes?: number;
  /** The ssh binary (tests). */
  ssh?: string;
  /** Called with each piece of stdout as it arrives (a long command's progress lines), besides collecting it. */
  onStdout?: (text: string) => void;
}

/**
 * Runs `command` on the instance and collects its output. Resolves with the exit code whatever
 * it is (the caller decides what a non-zero code means); rejects only when ssh could not be
 * started, timed out or was aborted.
 */
export function runRemote(target: SshTarget, command: string, options: RunRemoteOptions = {}): Promise<RemoteResult> {
  const max = options.maxOutputBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new RemoteCommandError(l10n.t('Cancelled.'), undefined));
    const child: ChildProcess = spawn(options.ssh ?? 'ssh', sshArgv(target, command), { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      options.onStdout?.(chunk.toString('utf8'));
      if (outBytes < max) out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (errBytes < max) err.push(chunk);
      errBytes += chunk.length;
    });
    let settled = false;
    const finish = (error?: Error, result?: RemoteResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(result!);
    };
    const timeoutMs = options.timeoutMs ?? 60_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(
        new RemoteCommandError(
          l10n.t('The command on instance #{0} did not finish within {1} s.', target.instanceId, Math.round(timeoutMs / 1000)),
          undefined,
        ),
      );
    }, timeoutMs);
    const onAbort = () => {
      child.kill('SIGTERM');
      finish(new RemoteCommandError(l10n.t('Cancelled.'), undefined));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => finish(new RemoteCommandError(l10n.t('Could not run ssh: {0}', error.message), undefined)));
    child.once('close', (code, signal) =>
      finish(undefined, {
        code: code ?? (signal ? 255 : 0),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin?.on('error', () => {
      // The remote side may close stdin early (a command that does not read it); the exit code says the rest.
    });
    const input = options.input;
    if (input instanceof Promise)
      input.then(
        (text) => void (settled || child.stdin?.end(text)),
        () => void child.stdin?.end(),
      );
    else child.stdin?.end(input ?? '');
  });
}

/**
 * The last meaningful line ssh or the command printed on stderr, for a message. The instance wrote
 * it: its hidden characters (escape sequences, bidi controls) show as escapes, and it is cut to 300
 * characters.
 */
export function lastErrorLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^Warning: Permanently added/.test(l));
  return visibleText((lines.pop() ?? '').replace(/\t/g, ' '), 300);
}
