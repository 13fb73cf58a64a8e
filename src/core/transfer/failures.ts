/**
 * The TransferError of a run that did not complete: a cancellation, a stall, a short ssh call that
 * failed, or a failure classified by errors.ts and completed with the instance's disk figures when
 * its disk is full.
 */
import { runRemote, type SshTarget } from '../ssh/remote';
import { classifyFailure, TransferError, withDiskFigures, type FailedRun } from './errors';
import { DEFAULT_STALL_MS, sshTool, type TransferOptions } from './options';
import { diskFreeCommand, parseDiskFree } from './remotePath';
import { l10n } from '../l10n';

/** Free space under which a failed upload's disk counts as full. */
const DISK_FULL_BYTES = 1024 * 1024;

/** A failed short ssh call: the path missing, or the connection. */
export function connectionOr(stderr: string, code: number, path: string): TransferError {
  const { fault, message } = classifyFailure({ tool: 'ssh', direction: 'download', code, stderr, remotePath: path });
  if (fault === 'connection') {
    return new TransferError(
      'connection',
      l10n.t(
        'The instance did not answer over ssh ({0}). Check that it is running, then try again.',
        message.replace(/^The connection to the instance dropped \((.*?)\).*$/s, '$1'),
      ),
    );
  }
  return new TransferError(fault, message);
}

/** The error of a failed run, with the disk's figures when it is full, or the cancellation. */
export async function failure(
  target: SshTarget,
  run: FailedRun,
  options: TransferOptions,
  cancelled: boolean,
  partialAt?: string,
): Promise<TransferError> {
  if (cancelled) {
    return new TransferError(
      'cancelled',
      l10n.t('Cancelled: the {0} is partial. What arrived so far is in {1}.', run.direction, run.partialWhere ?? l10n.t('its destination')),
      partialAt,
    );
  }
  let { fault, message } = classifyFailure(run);
  // A write error on an upload whose words were lost with the connection (rsync then says only its
  // exit code): the instance's disk is looked at, and a full one is said.
  const unexplained = fault === 'other' && run.direction === 'upload';
  if (fault !== 'remoteDiskFull' && !unexplained) return new TransferError(fault, message, partialAt);
  const df = await runRemote(target, diskFreeCommand(run.remotePath), { timeoutMs: 10_000, ...sshTool(options) }).catch(() => undefined);
  const disk = df && df.code === 0 ? parseDiskFree(df.stdout) : undefined;
  if (unexplained) {
    if (!disk || disk.free > DISK_FULL_BYTES) return new TransferError(fault, message, partialAt);
    ({ fault, message } = classifyFailure({ ...run, stderr: l10n.t('{0}\nNo space left on device', run.stderr) }));
  }
  return new TransferError(fault, withDiskFigures(message, disk), partialAt);
}

/** A transfer stopped because nothing moved for `stallMs`: the connection hangs without dropping. */
export function stallError(
  direction: FailedRun['direction'],
  options: TransferOptions,
  partialWhere: string,
  partialAt?: string,
): TransferError {
  const seconds = Math.round((options.stallMs ?? DEFAULT_STALL_MS) / 1000);
  return new TransferError(
    'connection',
    direction === 'upload'
      ? l10n.t(
          'Nothing reached the instance for {0} s: the connection stalled, so the upload was stopped. What arrived so far is in {1}. Check that the instance is running, then Retry.',
          seconds,
          partialWhere,
        )
      : l10n.t(
          'Nothing arrived from the instance for {0} s: the connection stalled, so the download was stopped. What arrived so far is in {1}. Check that the instance is running, then Retry.',
          seconds,
          partialWhere,
        ),
    partialAt,
  );
}
