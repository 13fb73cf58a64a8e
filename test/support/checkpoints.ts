import { createHash } from 'node:crypto';
import type { CheckpointInfo } from '../../src/core/jobs/resumable';

/**
 * The digest of a checkpoint's manifest as the scripts compute it (CHECKPOINT_FUNCTIONS' `ms`):
 * each regular file as `<relative path>\t<size>\0`, sorted bytewise, then sha256 in hex. A file
 * alone is `[['', size]]`.
 */
export function manifestDigest(entries: ReadonlyArray<readonly [string, number]>): string {
  const records = entries.map(([path, size]) => Buffer.from(`${path}\t${size}\0`, 'utf8')).sort(Buffer.compare);
  return createHash('sha256').update(Buffer.concat(records)).digest('hex');
}

/** A checkpoint that is one file of `bytes` bytes, as a listing reads it. */
export function fileCheckpoint(name: string, bytes: number, modifiedAt: number): CheckpointInfo {
  return { name, bytes, files: 1, digest: manifestDigest([['', bytes]]), modifiedAt };
}
