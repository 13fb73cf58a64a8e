/**
 * The local side of the tar path, in Node (the `tar` package): an upload's files packed into a
 * stream with portable headers (UTF-8 names, mtimes, modes; no owners, no local times), and a
 * download's stream unpacked into the temporary folder. No local `tar` runs, so the tar path works
 * alike on Linux, macOS and Windows (whose tar.exe mangles non-Latin names and reads `D:\x` as a
 * host). What the instance sends is hostile: an entry with an absolute path, a `..`, a link that
 * leads out of the destination, or a device is refused, and the download fails naming it.
 */
import { Writable } from 'node:stream';
import { create, extract, type ReadEntry } from 'tar';
import { l10n } from '../l10n';
import { visibleText } from '../text';

/**
 * Packs `files` (relative to `dir`, folders before what they hold; a folder is packed alone,
 * never with what is under it) as a tar archive into `into`, which ends with the archive; a file
 * that cannot be read destroys `into` with the error. A name node-tar would read as an archive to
 * append (`@name`) is packed as `./@name`. node-tar's stream is piped straight in (no async
 * iterator between them: that halved the rate, test/bench/transfer.bench.ts).
 */
export function packInto(dir: string, files: readonly string[], into: Writable): void {
  const names = files.map((f) => (f.startsWith('@') ? `./${f}` : f));
  const pack = create({ cwd: dir, portable: true, noDirRecurse: true, follow: false, strict: true, jobs: 8 }, names);
  pack.on('error', (error: unknown) => into.destroy(error instanceof Error ? error : new Error(String(error))));
  pack.pipe(into);
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
