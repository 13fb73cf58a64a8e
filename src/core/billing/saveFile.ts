/**
 * Writes an export so that a failed write never leaves half a file and never clobbers the old one:
 * the text goes to a temporary name beside the target (created new, never followed through a link),
 * then is renamed over it. A failure removes the temporary file and says, in words, why the folder
 * could not be written.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { l10n } from '../l10n';

/** The file system calls a save makes; tests hand in one that fails. */
export interface SaveFs {
  /** Creates `file` (failing when it exists) and writes `data` as UTF-8. */
  writeNew(file: string, data: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(file: string): Promise<void>;
}

/** Node's file system. */
export const nodeSaveFs: SaveFs = {
  writeNew: (file, data) => fsp.writeFile(file, data, { encoding: 'utf8', flag: 'wx', mode: 0o644 }),
  rename: (from, to) => fsp.rename(from, to),
  remove: (file) => fsp.rm(file, { force: true }),
};

/** The temporary name beside `target`: hidden, and never one an export would choose. */
export function temporaryName(target: string, suffix: string = randomBytes(6).toString('hex')): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${suffix}.tmp`);
}

/** Writes `data` to `target` through a temporary name; the old file stays whole until the rename. */
export async function saveAtomically(fs: SaveFs, target: string, data: string, suffix?: string): Promise<void> {
  const temp = temporaryName(target, suffix);
  try {
    await fs.writeNew(temp, data);
    await fs.rename(temp, target);
  } catch (error) {
    await fs.remove(temp).catch(() => undefined);
    throw error;
  }
}

/** Why a write failed, as a user reads it ("permission denied"), from the error's code. */
export function writeProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return l10n.t('permission denied');
    case 'ENOSPC':
    case 'EDQUOT':
      return l10n.t('the disk is full');
    case 'EROFS':
      return l10n.t('the disk is read-only');
    case 'ENOENT':
    case 'ENOTDIR':
      return l10n.t('the folder does not exist');
    case 'EISDIR':
      return l10n.t('a folder has that name');
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
