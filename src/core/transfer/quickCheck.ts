/**
 * Only what changed, without rsync: the remote folder listed first (relative path, kind, size and
 * whole-second mtime, NUL-separated), and the local files compared with it as rsync's quick check
 * does: a file is sent when its size or its mtime in whole seconds differs, or the instance lacks
 * it. The listing is read from `find -printf` (GNU find), else from `stat` per file (busybox,
 * BSD); it is capped, and a listing that did not arrive whole counts as none (everything is sent).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { shellQuote } from '../shell';

/** One entry the instance has under the folder. */
export interface RemoteFile {
  /** f: a regular file, d: a folder, l: a link, o: anything else. */
  readonly kind: 'f' | 'd' | 'l' | 'o';
  readonly size: number;
  /** Seconds since the epoch, whole. */
  readonly mtime: number;
}

/** The most bytes a listing may take before it counts as none (about 400,000 files). */
export const INDEX_MAX_BYTES = 32 * 1024 * 1024;

const BEGIN = 'GPU-RENTAL-INDEX-3b7e';
const END = 'GPU-RENTAL-INDEX-END-3b7e';

/**
 * The command that lists `dir` (checked by checkRemotePath) recursively. A missing folder lists
 * nothing. GNU find prints the fields itself; elsewhere a shell loop asks `stat` (GNU or busybox
 * `-c`, BSD `-f`) for each name.
 */
export function remoteIndexCommand(dir: string): string {
  const d = shellQuote(dir);
  const gnu = `find . -mindepth 1 -printf '%P\\0%y\\0%s\\0%T@\\0' 2>/dev/null`;
  const loop =
    `find . -mindepth 1 -exec sh -c 'for f do ` +
    `if [ -L "$f" ]; then k=l; elif [ -d "$f" ]; then k=d; elif [ -f "$f" ]; then k=f; else k=o; fi; ` +
    `s=$(stat -c "%s %Y" -- "$f" 2>/dev/null || stat -f "%z %m" -- "$f" 2>/dev/null || echo "0 0"); ` +
    `printf "%s\\0%s\\0%s\\0%s\\0" "\${f#./}" "$k" "\${s% *}" "\${s#* }"; done' sh {} +`;
  return (
    `printf '%s\\n' ${BEGIN}; if cd -- ${d} 2>/dev/null; then ` +
    `if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then ${gnu}; else ${loop}; fi; fi; printf '\\n%s\\n' ${END}`
  );
}

/** The listing remoteIndexCommand printed, by relative path; undefined when it did not arrive whole. */
export function parseRemoteIndex(stdout: string): Map<string, RemoteFile> | undefined {
  const begin = stdout.indexOf(`${BEGIN}\n`);
  const end = stdout.lastIndexOf(`\n${END}`);
  if (begin < 0 || end < begin) return undefined;
  const body = stdout.slice(begin + BEGIN.length + 1, end);
  const fields = body.split('\0');
  const index = new Map<string, RemoteFile>();
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const [path, kind, size, mtime] = [fields[i]!, fields[i + 1]!, fields[i + 2]!, fields[i + 3]!];
    if (!path) continue;
    const k = kind === 'f' || kind === 'd' || kind === 'l' ? kind : 'o';
    index.set(path, { kind: k, size: Number(size) || 0, mtime: Math.floor(Number(mtime) || 0) });
  }
  return index;
}

/**
 * Reads remoteIndexCommand's output off a stream that goes on after it (the same ssh session then
 * unpacks the upload): resolves with the text once the end marker arrived, or undefined when the
 * stream ended first or passed `max` bytes. What follows is read and dropped, so the stream never
 * holds the session up. `onChunk` is told of each piece (the stall watchdog counts it).
 */
export function readIndex(stdout: Readable, onChunk: () => void, max = INDEX_MAX_BYTES): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let done = false;
    const finish = (text: string | undefined) => {
      if (done) return;
      done = true;
      chunks.length = 0;
      resolve(text);
    };
    const end = Buffer.from(`\n${END}\n`);
    let before = Buffer.alloc(0);
    stdout.on('data', (chunk: Buffer) => {
      onChunk();
      if (done) return;
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes > max) return finish(undefined);
      // The marker may straddle two pieces: look in this piece and the bytes just before it.
      const window = Buffer.concat([before, chunk]);
      if (window.indexOf(end) >= 0) return finish(Buffer.concat(chunks).toString('utf8'));
      before = window.subarray(Math.max(0, window.length - end.length));
    });
    stdout.once('close', () => finish(undefined));
    stdout.once('end', () => finish(undefined));
    stdout.once('error', () => finish(undefined));
  });
}

/** One local entry an upload may send. */
export interface LocalEntry {
  readonly path: string;
  readonly kind: 'f' | 'd' | 'l';
  readonly size: number;
  readonly mtime: number;
  /** lstat's mode: what the archive records (nodeTar.ts packs from these, without reading them again). */
  readonly mode: number;
}

/** The kind, size, whole-second mtime and mode of each listed path under `dir`, in order; a path gone meanwhile is left out. */
export async function localEntries(dir: string, files: readonly string[]): Promise<LocalEntry[]> {
  const out: Array<LocalEntry | undefined> = new Array(files.length);
  // 64 at a time: a folder of thousands is read in a few rounds of the thread pool, not one by one.
  for (let from = 0; from < files.length; from += 64) {
    await Promise.all(
      files.slice(from, from + 64).map(async (path, i) => {
        const s = await lstat(join(dir, path)).catch(() => undefined);
        const kind = !s ? undefined : s.isDirectory() ? 'd' : s.isSymbolicLink() ? 'l' : s.isFile() ? 'f' : undefined;
        if (s && kind) out[from + i] = { path, kind, size: kind === 'f' ? s.size : 0, mtime: Math.floor(s.mtimeMs / 1000), mode: s.mode };
      }),
    );
  }
  return out.filter((e): e is LocalEntry => e !== undefined);
}

/**
 * What must go, as rsync's quick check decides: a file whose size or whole-second mtime differs
 * from the instance's (or that it lacks), a link (always: its target is not compared), a folder
 * the instance lacks. With no listing, everything.
 */
export function changedEntries(local: readonly LocalEntry[], remote: ReadonlyMap<string, RemoteFile> | undefined): LocalEntry[] {
  if (!remote) return [...local];
  return local.filter((e) => {
    const r = remote.get(e.path);
    if (e.kind === 'd') return r?.kind !== 'd';
    if (e.kind === 'l') return true;
    return !r || r.kind !== 'f' || r.size !== e.size || r.mtime !== e.mtime;
  });
}
