/**
 * What went wrong with a transfer, read from rsync's, tar's or ssh's exit code and stderr, and the
 * message that says what happened and what to do next.
 */
import { lastErrorLine } from '../ssh/remote';
import { formatBytes } from './progress';
import { l10n, sentences } from '../l10n';

export type TransferFault =
  /** The user cancelled. */
  | 'cancelled'
  /** ssh could not connect, or the connection dropped mid-transfer. */
  | 'connection'
  /** The remote path is not there. */
  | 'remoteMissing'
  /** The instance's disk is full. */
  | 'remoteDiskFull'
  /** This machine's disk is full. */
  | 'localDiskFull'
  /** The local folder cannot be written (permissions, read-only). */
  | 'localNotWritable'
  /** The local folder to upload is not there. */
  | 'localMissing'
  /** The remote folder cannot be written. */
  | 'remoteNotWritable'
  /** The download's target exists already and replacing it was not asked for. */
  | 'targetExists'
  | 'other';

/** A transfer that did not complete: why, what to do, and where partial data was left. */
export class TransferError extends Error {
  constructor(
    readonly fault: TransferFault,
    message: string,
    /** Where a download's partial data is (kept so a retry resumes); undefined when nothing was left. */
    readonly partialAt?: string,
  ) {
    super(message);
    this.name = 'TransferError';
  }

  /** Whether trying again can help and resumes from what arrived. */
  get retryable(): boolean {
    return this.fault === 'connection' || this.fault === 'cancelled';
  }
}

/** What the classifier needs to know about the failed run. */
export interface FailedRun {
  readonly tool: 'rsync' | 'tar' | 'ssh';
  readonly direction: 'upload' | 'download';
  readonly code: number | null;
  /** Everything the run wrote on stderr (rsync's, or ssh's and the tar's). */
  readonly stderr: string;
  /** What the local tar or gzip wrote, when the run was a tar pipe: errors here are this machine's. */
  readonly localStderr?: string;
  /** The remote path involved, for the message. */
  readonly remotePath: string;
  /** What the user reads as "partial" ("/root/project on the instance", "~/Downloads/.x.gpu-rental-partial"). */
  readonly partialWhere?: string;
}

/** The kind of a failed run and its message; disk-full messages are completed with the disk's figures by the runner. */
export function classifyFailure(run: FailedRun): { fault: TransferFault; message: string } {
  const err = run.stderr;
  const last = lastErrorLine(err) || l10n.t('{0} exited with code {1}', run.tool, run.code ?? l10n.t('unknown'));
  const partial = run.partialWhere ? l10n.t('What arrived so far is in {0}.', run.partialWhere) : undefined;
  const onLocalSide = (re: RegExp): boolean => {
    if (run.localStderr && re.test(run.localStderr)) return true;
    // rsync tags its errors with the side that hit them: the receiver writes, the sender reads.
    const line = err.split('\n').find((l) => re.test(l)) ?? '';
    if (/\[(receiver|generator)\]/i.test(line)) return run.direction === 'download';
    if (/\[sender\]/i.test(line)) return run.direction === 'upload';
    return false;
  };
  if (/No space left on device|Disk quota exceeded/i.test(err)) {
    if (onLocalSide(/No space left on device|Disk quota exceeded/i)) {
      return {
        fault: 'localDiskFull',
        message: sentences(
          l10n.t("This machine's disk is full."),
          partial,
          l10n.t('Free some space or pick a folder on another disk, then try again.'),
        ),
      };
    }
    return {
      fault: 'remoteDiskFull',
      message: sentences(
        l10n.t("The instance's disk is full: {0} could not be written.", run.remotePath),
        partial,
        l10n.t('Delete files on the instance, or rent with a bigger disk, then try again.'),
      ),
    };
  }
  if (
    /No such file or directory/.test(err) &&
    /change_dir|link_stat|Cannot (open|stat|change)|cd: |No such file or directory \(2\)/.test(err)
  ) {
    if (!onLocalSide(/No such file or directory/)) {
      return {
        fault: 'remoteMissing',
        message: l10n.t('{0} does not exist on the instance. Browse to the folder or check the path, then try again.', run.remotePath),
      };
    }
  }
  if (
    /Read-only file system|Permission denied \(13\)|Permission denied$|Cannot (mkdir|open): Permission denied/m.test(err) &&
    !/Permission denied \(publickey/.test(err)
  ) {
    if (run.direction === 'download' && onLocalSide(/Read-only file system|Permission denied/)) {
      return {
        fault: 'localNotWritable',
        message: l10n.t('The local folder cannot be written ({0}). Pick a folder you can write to.', last),
      };
    }
    return {
      fault: 'remoteNotWritable',
      message: l10n.t(
        "{0} cannot be written on the instance ({1}). Pick a folder the instance's user owns, such as /root or /workspace.",
        run.remotePath,
        last,
      ),
    };
  }
  // ssh's own failure (255), or rsync's "connection unexpectedly closed" (12), timeout (30, 35) and broken pipes.
  if (
    run.code === 255 ||
    (run.tool === 'rsync' && (run.code === 12 || run.code === 30 || run.code === 35)) ||
    /connection unexpectedly closed|Broken pipe|Connection (reset|closed|timed out|refused)|Timeout, server|Could not resolve hostname|kex_exchange/i.test(
      err,
    )
  ) {
    return {
      fault: 'connection',
      message: sentences(
        l10n.t('The connection to the instance dropped ({0}); the transfer is partial.', last),
        partial,
        l10n.t('Check that the instance is running, then Retry: rsync resumes where it stopped.'),
      ),
    };
  }
  const failed = run.direction === 'upload' ? l10n.t('The upload failed: {0}.', last) : l10n.t('The download failed: {0}.', last);
  return { fault: 'other', message: sentences(failed, partial) };
}

/** The disk-full message with the disk's figures: "The instance's disk is full (7.9 GB of 8.0 GB used, 12.0 kB free) ...". */
export function withDiskFigures(message: string, disk: { total: number; used: number; free: number } | undefined): string {
  if (!disk) return message;
  return message.replace(
    l10n.t("The instance's disk is full"),
    l10n.t(
      "The instance's disk is full ({0} of {1} used, {2} free)",
      formatBytes(disk.used),
      formatBytes(disk.total),
      formatBytes(disk.free),
    ),
  );
}
