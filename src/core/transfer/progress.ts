/**
 * How a transfer's progress reads: rsync's `--info=progress2` lines parsed, sizes and rates in
 * decimal units (what disks and networks are sold in), and one line for the notification.
 */

import { formatBytes } from '../format';
import type { ProgressTask } from '../progress';

/** Where a transfer is: bytes done, the total when known, and a recent rate. */
export interface TransferProgress {
  readonly bytes: number;
  /** The whole transfer's size, when known (rsync's overall percent, or a size measured first). */
  readonly total?: number;
  /** 0..100, overall. */
  readonly percent?: number;
  /** Bytes per second over the last few seconds. */
  readonly bytesPerSecond?: number;
}

/** One `--info=progress2` line: bytes so far (whole transfer), the overall percent, files still to check. */
export interface RsyncProgressLine {
  readonly bytes: number;
  readonly percent: number;
  readonly toCheck?: number;
  readonly totalFiles?: number;
}

// "     84,123,456  42%   31.20MB/s    0:00:03 (xfr#12, to-chk=1988/2000)"; the thousands separator
// is ',' or, in locales whose decimal point is ',', '.'.
const PROGRESS2 =
  /^\s*(\d{1,3}(?:[,.]\d{3})*|\d+)\s+(\d{1,3})%\s+\S+\s+\d+:\d{2}:\d{2}(?:\s+\(xfr#\d+,\s*(?:ir|to)-chk=(\d+)\/(\d+)\))?\s*$/;

/** Parses one progress line rsync wrote (split on `\r` and `\n`); undefined for any other line. */
export function parseRsyncProgress(line: string): RsyncProgressLine | undefined {
  const m = PROGRESS2.exec(line);
  if (!m) return undefined;
  const bytes = Number(m[1]!.replace(/[,.]/g, ''));
  const percent = Math.min(100, Number(m[2]));
  if (!Number.isFinite(bytes)) return undefined;
  return m[3] === undefined ? { bytes, percent } : { bytes, percent, toCheck: Number(m[3]), totalFiles: Number(m[4]) };
}

/** What `--stats` says at the end: files actually sent and their bytes. */
export interface RsyncStats {
  readonly filesTransferred: number;
  readonly bytesTransferred: number;
}

/** Reads rsync's `--stats` block; numbers it did not print are 0. */
export function parseRsyncStats(output: string): RsyncStats {
  const number = (label: RegExp): number => {
    const m = label.exec(output);
    return m ? Number(m[1]!.replace(/[,.]/g, '')) : 0;
  };
  return {
    filesTransferred: number(/Number of regular files transferred:\s*([\d,.]+)/),
    bytesTransferred: number(/Total transferred file size:\s*([\d,.]+)/),
  };
}

/** 512 → "512 B", 84_123_456 → "84.1 MB": moved to core/format.ts, where instances can reach it too. */
export { formatBytes };

/** 31_200_000 → "31.2 MB/s". */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/**
 * "42% · 84.1 MB of 200 MB · 31.2 MB/s", leaving out what is not known yet. At the end a rate of
 * nothing is left out too: nothing moved in the last seconds because all had arrived, not because
 * the transfer stalled (a small upload's last line read "100% · 682 B of 682 B · 0 B/s").
 */
export function describeProgress(p: TransferProgress): string {
  const parts: string[] = [];
  if (p.percent !== undefined) parts.push(`${Math.floor(p.percent)}%`);
  parts.push(p.total !== undefined ? `${formatBytes(p.bytes)} of ${formatBytes(p.total)}` : formatBytes(p.bytes));
  const done = p.percent !== undefined ? p.percent >= 100 : p.total !== undefined && p.bytes >= p.total;
  if (p.bytesPerSecond !== undefined && !(done && p.bytesPerSecond <= 0)) parts.push(formatRate(p.bytesPerSecond));
  return parts.join(' · ');
}

/**
 * A rate over the last `windowMs` of samples, so a pause shows as a falling rate rather than the
 * average since the start.
 */
export class RateMeter {
  private readonly samples: { t: number; bytes: number }[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs = 3_000,
  ) {}

  /** Records `bytes` done now; returns the rate, undefined until two samples lie apart in time. */
  sample(bytes: number): number | undefined {
    const t = this.now();
    this.samples.push({ t, bytes });
    while (this.samples.length > 2 && t - this.samples[0]!.t > this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    const span = t - first.t;
    return span > 0 ? Math.max(0, ((bytes - first.bytes) * 1000) / span) : undefined;
  }
}

/** How often a transfer's progress line may change: more often only flickers. */
export const PROGRESS_EVERY_MS = 250;

/** What a transfer is told by its caller's progress: Cancel, where progress and notices go. */
export interface TransferReporting {
  readonly signal: AbortSignal;
  onProgress(progress: TransferProgress): void;
  onNotice(text: string): void;
}

/**
 * A transfer's progress reported into `task`: Cancel through its signal; a notice as a line of its
 * own, then in front of each line after it; percent, bytes and rate at most every 250 ms (100%
 * always), the bar moved by the percent gained since the last line (it never moves back).
 */
export function reportTransfer(task: ProgressTask, now: () => number = Date.now): TransferReporting {
  let notice = '';
  let shown = 0;
  let lastAt: number | undefined;
  return {
    signal: task.signal,
    onProgress(p) {
      const at = now();
      if (lastAt !== undefined && at - lastAt < PROGRESS_EVERY_MS && p.percent !== 100) return;
      lastAt = at;
      const percent = p.percent ?? shown;
      task.report({ message: `${notice}${describeProgress(p)}`, increment: Math.max(0, percent - shown) });
      shown = Math.max(shown, percent);
    },
    onNotice(text) {
      notice = `${text} `;
      task.report({ message: text });
    },
  };
}
