/**
 * What a caller tells a transfer: the programs to run, Cancel, where progress and notices go, and
 * how long nothing may move before the transfer counts as stalled.
 */
import type { TransferProgress } from './progress';

/** The programs a transfer runs; tests and the benchmark point them elsewhere. */
export interface TransferTools {
  readonly rsync?: string;
  readonly ssh?: string;
  readonly tar?: string;
  readonly git?: string;
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
}

/** How long a transfer may move nothing before it is stopped as stalled. */
export const DEFAULT_STALL_MS = 60_000;

/** The ssh program from `tools`, as runRemote's option. */
export function sshTool(options: Pick<TransferOptions, 'tools'>): { ssh?: string } {
  return options.tools?.ssh ? { ssh: options.tools.ssh } : {};
}
