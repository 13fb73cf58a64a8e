import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { l10n } from '../l10n';

/** Creates a folder (and its parents) with mode 0700; an existing folder keeps its mode. */
export async function ensurePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
}

/** The file's bytes, never decoded, or undefined when it does not exist. */
export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes through a temporary file in the same folder and a rename, so a reader never sees half a
 * file and a full disk leaves the old file whole. A new file gets mode 0600; an existing one keeps
 * its mode.
 */
export async function writeFileAtomic(path: string, data: string | Buffer, newFileMode = 0o600): Promise<void> {
  let mode = newFileMode;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.gpu-rental.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Rewrites an existing file through its own inode (open, write, truncate), for a file whose
 * hard links must keep sharing it: a rename would leave the other names on the old content.
 * Not atomic, so it is only for that case; the file keeps its mode and owner.
 */
export async function writeFileInPlace(path: string, data: Buffer): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    for (let done = 0; done < data.length;) {
      const { bytesWritten } = await handle.write(data, done, data.length - done, done);
      done += bytesWritten;
    }
    await handle.truncate(data.length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Runs `fn` while holding a lock file next to `path`, so two windows never edit at once. A lock
 * older than `staleMs` (a crashed window) is taken over.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: { timeoutMs?: number; staleMs?: number } = {},
): Promise<T> {
  const lock = `${path}.gpu-rental.lock`;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    try {
      await writeFile(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > (options.staleMs ?? 30_000)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(l10n.t('Another window is editing {0} (lock {1}); try again in a moment.', path, lock), { cause: error });
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}
