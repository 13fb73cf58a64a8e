/**
 * What a caller tells a transfer: the programs to run, Cancel, where progress and notices go, and
 * how long nothing may move before the transfer counts as stalled.
 */
import type { TransferProgress } from './progress';

/** The programs a transfer runs; tests and the benchmark point them elsewhere. */
export interface TransferTools {
  readonly rsync?: string;
  readonly ssh?: string;
  /**
   * No longer run: the tar path's local side is Node's (nodeTar.ts), so a machine without tar
   * (or with Windows' tar.exe) transfers alike. Kept so callers that hide it keep compiling.
   */
  readonly tar?: string;
  readonly git?: string;
  /** OpenSSH's sftp, for resumable large files. */
  readonly sftp?: string;
}

export interface TransferOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: TransferProgress) => void;
  /** Something the user should read while the transfer runs: "the instance has no rsync: sending everything with tar". */
  readonly onNotice?: (text: string) => void;
  readonly tools?: TransferTools;
  /** More rsync options (tests slow a transfer with --bwlimit). */
  readonly extraRsyncArgs?: readonly string[];
  /** Which platform's install words to use when local rsync is missing (default: this one). */
  readonly platform?: NodeJS.Platform;
  readonly now?: () => number;
  /**
   * A transfer through which nothing moved for this long is stopped and said to have stalled (a
   * connection that hangs without dropping). rsync gets the same as its `--timeout`. Default 60 s.
   */
  readonly stallMs?: number;
  /**
   * Without rsync, files at least this big go over sftp, resumable after a drop (`reput`/`reget`),
   * and are verified by size and sha256. Default 64 MiB.
   */
  readonly resumableBytes?: number;
}

/** How long a transfer may move nothing before it is stopped as stalled. */
export const DEFAULT_STALL_MS = 60_000;

/** The ssh program from `tools`, as runRemote's option. */
export function sshTool(options: Pick<TransferOptions, 'tools'>): { ssh?: string } {
  return options.tools?.ssh ? { ssh: options.tools.ssh } : {};
}
