/**
 * The local side of the tar path, in Node (the `tar` package): an upload's files packed into a
 * stream with portable headers (UTF-8 names, mtimes, modes; no owners, no local times), and a
 * download's stream unpacked into the temporary folder. No local `tar` runs, so the tar path works
 * alike on Linux, macOS and Windows (whose tar.exe mangles non-Latin names and reads `D:\x` as a
 * host). What the instance sends is hostile: an entry with an absolute path, a `..`, a link that
 * leads out of the destination, or a device is refused, and the download fails naming it.
 */
import { open, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { extract, Header, Pax, type ReadEntry } from 'tar';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/** What packInto packs of one path: what localEntries read with lstat (quickCheck.ts). */
export interface PackEntry {
  /** Relative to the folder, `/`-separated. */
  readonly path: string;
  readonly kind: 'f' | 'd' | 'l';
  readonly size: number;
  /** Whole seconds. */
  readonly mtime: number;
  /** lstat's mode. */
  readonly mode: number;
}

/** A file up to this size is read whole, ahead of its turn; a larger one in pieces of this size when its turn comes. */
const PIECE = 1024 * 1024;
/** How many small files are read ahead of the one being written. */
const READ_AHEAD = 8;

/**
 * The mode a portable archive records: permission bits only, owner read and write always, no
 * write for group or others, and a folder listable wherever it is readable (node-tar's portable
 * rule, so an archive from Windows unpacks usable).
 */
function portableMode(mode: number, folder: boolean): number {
  let m = ((mode & 0o7777) | 0o600) & ~0o22;
  if (folder)
    for (const [read, list] of [
      [0o400, 0o100],
      [0o40, 0o10],
      [0o4, 0o1],
    ] as const)
      if (m & read) m |= list;
  return m;
}

/**
 * The tar headers of one entry: a pax header first when a field does not fit a ustar header (a
 * long or non-ASCII name), then the header. Folders carry no mtime (tar sets it as it fills them).
 */
function headerOf(entry: PackEntry, linkpath?: string): Buffer {
  const folder = entry.kind === 'd';
  const path = folder ? `${entry.path}/` : entry.path;
  const mtime = folder ? undefined : new Date(entry.mtime * 1000);
  const size = entry.kind === 'f' ? entry.size : 0;
  const type = folder ? 'Directory' : entry.kind === 'l' ? 'SymbolicLink' : 'File';
  const header = new Header({ path, linkpath, mode: portableMode(entry.mode, folder), size, mtime, type });
  const block = Buffer.alloc(512);
  const needsPax = header.encode(block, 0);
  return needsPax ? Buffer.concat([new Pax({ path, linkpath, mtime, size }).encode(), block]) : block;
}

/** Bytes of zeros that pad `size` to a whole 512-byte block. */
const padding = (size: number) => (512 - (size % 512)) % 512;

/** The end of a file that got shorter after it was listed: the archive cannot hold it. */
function shrunk(path: string): Error {
  return new Error(l10n.t('{0} got shorter while it was being sent', visibleText(path, 200)));
}

/** A small file's whole entry: its headers, contents and padding, in one buffer (one write). */
async function smallEntry(dir: string, entry: PackEntry): Promise<Buffer> {
  const head = headerOf(entry);
  const out = Buffer.alloc(head.length + entry.size + padding(entry.size));
  head.copy(out);
  const file = await open(join(dir, entry.path), 'r');
  try {
    let at = 0;
    while (at < entry.size) {
      const { bytesRead } = await file.read(out, head.length + at, entry.size - at, at);
      if (bytesRead === 0) throw shrunk(entry.path);
      at += bytesRead;
    }
  } finally {
    await file.close();
  }
  return out;
}

/**
 * Packs `entries` (relative to `dir`, folders before what they hold) as a tar archive into `into`,
 * which ends with the archive: portable headers from node-tar's Header and Pax (UTF-8 names,
 * mtimes, modes; no owners, no local times), each entry's stat taken from the listing, not read
 * again. Small files are read a few ahead and each written whole; a file that cannot be read, or
 * got shorter, destroys `into` with the error (one that grew is sent as long as it was listed).
 * Written by hand around node-tar's headers because node-tar's own Pack took twice the CPU here,
 * beside ssh on the same cores (test/bench/transfer.bench.ts).
 */
export function packInto(dir: string, entries: readonly PackEntry[], into: Writable): void {
  const ahead = new Map<number, Promise<Buffer>>();
  const small = (e: PackEntry) => e.kind === 'f' && e.size <= PIECE;
  const readAhead = (from: number) => {
    for (let i = from; i < entries.length && i < from + READ_AHEAD; i++) {
      if (ahead.has(i) || !small(entries[i]!)) continue;
      const read = smallEntry(dir, entries[i]!);
      read.catch(() => {});
      ahead.set(i, read);
    }
  };
  const write = async (chunk: Buffer) => {
    if (into.destroyed) throw new Error('stopped');
    if (!into.write(chunk)) await drained(into);
  };
  const pack = async () => {
    for (const [i, entry] of entries.entries()) {
      readAhead(i);
      if (into.destroyed) return;
      if (small(entry)) {
        const whole = ahead.get(i)!;
        ahead.delete(i);
        await write(await whole);
      } else if (entry.kind === 'f') await largeEntry(dir, entry, write);
      else await write(headerOf(entry, entry.kind === 'l' ? linkTarget(await readlink(join(dir, entry.path))) : undefined));
    }
    if (!into.destroyed) into.end(Buffer.alloc(1024));
  };
  pack().catch((error: unknown) => {
    if (!into.destroyed) into.destroy(error instanceof Error ? error : new Error(String(error)));
  });
}

/** Until `into` can take more, or is gone (Cancel destroys it without an error: no 'drain' ever comes then). */
function drained(into: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ['drain', 'close', 'error']) into.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'close', 'error']) into.on(event, done);
  });
}

/** A link's target as the archive holds it: `/`-separated (Windows writes `\`). */
const linkTarget = (target: string) => (process.platform === 'win32' ? target.replace(/\\/g, '/') : target);

/** A file larger than PIECE: its headers, then its contents piece by piece, then its padding. */
async function largeEntry(dir: string, entry: PackEntry, write: (chunk: Buffer) => Promise<void>): Promise<void> {
  const file = await open(join(dir, entry.path), 'r');
  try {
    await write(headerOf(entry));
    let at = 0;
    while (at < entry.size) {
      const piece = Buffer.allocUnsafe(Math.min(PIECE, entry.size - at));
      let filled = 0;
      while (filled < piece.length) {
        const { bytesRead } = await file.read(piece, filled, piece.length - filled, at + filled);
        if (bytesRead === 0) throw shrunk(entry.path);
        filled += bytesRead;
      }
      at += filled;
      await write(piece);
    }
    const pad = padding(entry.size);
    if (pad) await write(Buffer.alloc(pad));
  } finally {
    await file.close();
  }
}

/** The kinds of tar entry unpacked; any other (a device, a fifo) is refused. */
export type EntryKind = 'File' | 'OldFile' | 'ContiguousFile' | 'Directory' | 'SymbolicLink' | 'Link';
const KINDS: readonly string[] = ['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link'] satisfies EntryKind[];

/** Why an entry of a download's archive was refused, undefined when it may be unpacked. */
export function refusedEntry(path: string, type: EntryKind | string, linkpath?: string): string | undefined {
  const parts = (p: string) => p.split(/[\\/]+/).filter((s) => s && s !== '.');
  const absolute = (p: string) => /^([\\/]|[A-Za-z]:)/.test(p);
  if (absolute(path)) return l10n.t('an absolute path');
  if (parts(path).includes('..')) return l10n.t('a path with ..');
  if (!KINDS.includes(type)) return l10n.t('a {0}, not a file, folder or link', type);
  if (type !== 'SymbolicLink' && type !== 'Link') return undefined;
  const target = linkpath ?? '';
  if (!target || absolute(target)) return l10n.t('a link to an absolute path');
  // A symbolic link's target is read from its own folder, a hard link's from the archive's root.
  const from = type === 'SymbolicLink' ? parts(path).slice(0, -1) : [];
  let depth = from.length;
  for (const part of parts(target)) {
    depth += part === '..' ? -1 : 1;
    if (depth < 0) return l10n.t('a link that leads outside the destination');
  }
  return undefined;
}

/** The first entry refused while unpacking, and what was wrong with it. */
export interface Refusal {
  readonly path: string;
  readonly why: string;
}

/**
 * A writable stream that unpacks a tar archive into `dir` (which exists): names as they are,
 * mtimes and modes kept, owners not (the instance's user ids mean nothing here). It finishes
 * only once every file is written and closed; a damaged or cut archive is an error. Refused
 * entries are skipped and the first is kept in `refused()`.
 */
export function unpackSink(dir: string): { sink: Writable; refused(): Refusal | undefined } {
  let refusal: Refusal | undefined;
  const unpack = extract({
    cwd: dir,
    preserveOwner: false,
    preservePaths: false,
    strict: true,
    filter: (path, entry) => {
      const e = entry as ReadEntry;
      const why = refusedEntry(path, e.type, e.linkpath);
      if (why) refusal ??= { path: visibleText(path, 200), why };
      return !why;
    },
  });
  let failed: Error | undefined;
  unpack.on('error', (error: Error) => (failed ??= error));
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (failed) return done(failed);
      if (unpack.write(chunk)) done();
      else unpack.once('drain', () => done(failed));
    },
    final(done) {
      if (failed) return done(failed);
      unpack.once('finish', () => done(failed));
      unpack.once('error', (error: Error) => done(error));
      unpack.end();
    },
    destroy(error, done) {
      if (!unpack.writable) return done(error);
      unpack.abort(error ?? new Error(l10n.t('the download was stopped')));
      done(error);
    },
  });
  return { sink, refused: () => refusal };
}
