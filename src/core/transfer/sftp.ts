/**
 * Large files over OpenSSH's `sftp` in batch mode, so that a dropped connection resumes where it
 * stopped: `reput` / `reget` carry on from the size already there. sftp runs through the same
 * alias and options as ssh (`sshArgv`), on every OS (Windows ships it). A file is complete only
 * when its size matches, and its sha256 where the instance has `sha256sum` (node:crypto here).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { runRemote, sshArgv, type SshTarget } from '../ssh/remote';
import { shellQuote } from '../shell';
import { sshTool, type TransferOptions } from './options';
import { collect, type ProcessRun } from './pipe';
import { l10n } from '../l10n';

/** Files at least this big go over sftp, resumable, unless TransferOptions.resumableBytes says otherwise. */
export const DEFAULT_RESUMABLE_BYTES = 64 * 1024 * 1024;

/** A path as sftp's batch parser reads it: in double quotes, `"` and `\` escaped (glob characters in quotes are literal). */
export function sftpQuote(path: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new Error(l10n.t('A file name with a control character cannot go over sftp.'));
  return `"${path.replace(/["\\]/g, '\\$&')}"`;
}

/** A remote path sftp will not read as an option: a relative one starting with `-` gets `./`. */
function remoteArg(path: string): string {
  return path.startsWith('-') ? `./${path}` : path;
}

/**
 * The argv after `sftp`: batch from stdin, ssh as given (`-S`), the target's options as sftp
 * spells them (ssh's `-p` port is sftp's `-P`, ssh's `-l` user an `-o User=`), the alias last.
 */
export function sftpArgv(target: SshTarget, ssh?: string): string[] {
  const words = sshArgv(target);
  const host = words.pop()!;
  const options: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-p' || w === '-l') {
      const value = words[++i] ?? '';
      options.push(...(w === '-p' ? ['-P', value] : ['-o', `User=${value}`]));
    } else options.push(w);
  }
  return ['-b', '-', ...(ssh ? ['-S', ssh] : []), ...options, host];
}

/** One large file: where it is here and on the instance, and how big it is. */
export interface LargeFile {
  readonly local: string;
  readonly remote: string;
  readonly size: number;
}

/** The folders a remote path needs, each made when missing (`-mkdir`: an existing one is no error). */
function mkdirLines(remote: string): string[] {
  const parts = remote.split('/').slice(0, -1);
  const lines: string[] = [];
  for (let i = 1; i <= parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (dir && dir !== '.') lines.push(`-mkdir ${sftpQuote(remoteArg(dir))}`);
  }
  return lines;
}

/** The batch that sends (or fetches) `file`, from `offset` when it is resumed. */
export function sftpBatch(direction: 'upload' | 'download', file: LargeFile, resume: boolean): string {
  const local = sftpQuote(file.local);
  const remote = sftpQuote(remoteArg(file.remote));
  if (direction === 'upload') return [...mkdirLines(file.remote), `${resume ? 'reput' : 'put'} -p ${local} ${remote}`, ''].join('\n');
  return `${resume ? 'reget' : 'get'} -p ${remote} ${local}\n`;
}

/** The sha256 of a local file, hex. */
export async function localSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The instance's command that prints a file's size (`size=N`) and, where it has sha256sum, its digest (`sha=…`); exit 3 when it is no file. */
export function digestCommand(path: string): string {
  const p = shellQuote(remoteArg(path));
  return `[ -f ${p} ] || exit 3; printf 'size=%s\\n' "$(wc -c < ${p})"; if command -v sha256sum >/dev/null 2>&1; then printf 'sha=%s\\n' "$(sha256sum < ${p} | cut -d' ' -f1)"; fi`;
}

/** The remote file's size and sha256 (when the instance has sha256sum); undefined when it is missing. */
export async function remoteDigest(
  target: SshTarget,
  path: string,
  options: TransferOptions,
): Promise<{ size: number; sha256?: string } | undefined> {
  const result = await runRemote(target, digestCommand(path), { timeoutMs: 30 * 60_000, signal: options.signal, ...sshTool(options) });
  if (result.code === 3) return undefined;
  if (result.code !== 0) throw new Error(result.stderr.trim() || l10n.t('ssh exited with code {0}', result.code));
  const size = /^size=\s*(\d+)/m.exec(result.stdout);
  const sha = /^sha=([0-9a-f]{64})$/m.exec(result.stdout);
  return { size: Number(size?.[1] ?? -1), ...(sha ? { sha256: sha[1] } : {}) };
}

/** How one sftp run ended, and the offset the file was resumed from. */
export interface SftpRun extends ProcessRun {
  readonly resumedFrom: number;
  readonly stalled: boolean;
}

/**
 * The size the file has reached on the side it goes to: the local file's on a download; on an
 * upload, the instance's, asked over a separate ssh call (sftp in batch mode says nothing while it
 * sends), undefined when that call does not answer within `timeoutMs`.
 */
async function sizeSoFar(
  target: SshTarget,
  direction: 'upload' | 'download',
  file: LargeFile,
  options: TransferOptions,
  timeoutMs: number,
): Promise<number | undefined> {
  if (direction === 'download')
    return stat(file.local).then(
      (s) => s.size,
      () => undefined,
    );
  const p = shellQuote(remoteArg(file.remote));
  const result = await runRemote(target, `wc -c < ${p} 2>/dev/null || echo 0`, {
    timeoutMs,
    signal: options.signal,
    ...sshTool(options),
  }).catch(() => undefined);
  const n = Number(result?.stdout.trim());
  return result?.code === 0 && Number.isFinite(n) ? n : undefined;
}

/**
 * Sends or fetches one large file with sftp, resuming from what the other side already holds
 * (`haveBytes`: the remote size on an upload, the local one on a download) when it is smaller
 * than the file. Progress and the stall watchdog follow the size the file has reached where it
 * goes (the local file's on a download, the instance's asked every few seconds on an upload).
 */
export async function sftpTransfer(
  target: SshTarget,
  direction: 'upload' | 'download',
  file: LargeFile,
  haveBytes: number,
  options: TransferOptions,
  onBytes: (bytes: number) => void,
): Promise<SftpRun> {
  const resume = haveBytes > 0 && haveBytes < file.size;
  const now = options.now ?? Date.now;
  const stallMs = options.stallMs ?? 60_000;
  const stop = new AbortController();
  let stalled = false;
  let ended = false;
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  // One look at a time: a download's every 50 to 500 ms, an upload's (an ssh call) every 1 to 5 s.
  const every = direction === 'download' ? Math.min(500, Math.max(50, stallMs / 4)) : Math.min(5_000, Math.max(1_000, stallMs / 4));
  // The looks end with the transfer, however it ends.
  const looks = new AbortController();
  stop.signal.addEventListener('abort', () => looks.abort(), { once: true });
  let wake = () => {};
  const watch = (async () => {
    let seen = resume ? haveBytes : 0;
    let moved = now();
    while (!ended) {
      await new Promise<void>((r) => {
        const timer = setTimeout(r, every);
        wake = () => {
          clearTimeout(timer);
          r();
        };
      });
      if (ended) return;
      const size = await sizeSoFar(target, direction, file, { ...options, signal: looks.signal }, every * 2);
      if (size !== undefined && size !== seen) {
        seen = size;
        moved = now();
        onBytes(size);
      } else if (now() - moved >= stallMs && !ended) {
        stalled = true;
        stop.abort();
        return;
      }
    }
  })();
  const run = await collect(options.tools?.sftp ?? 'sftp', sftpArgv(target, options.tools?.ssh), {
    signal: stop.signal,
    input: sftpBatch(direction, file, resume),
  });
  ended = true;
  looks.abort();
  wake();
  await watch;
  options.signal?.removeEventListener('abort', onAbort);
  return {
    ...run,
    cancelled: options.signal?.aborted ?? false,
    resumedFrom: resume ? haveBytes : 0,
    stalled: stalled && !options.signal?.aborted,
  };
}
