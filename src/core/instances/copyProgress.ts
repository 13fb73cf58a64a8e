import type { Instance } from '../api/instances';
import { instancePhase, type InstancePhase } from './phase';
import { realTimers, type InstancePoller, type Timers } from './poller';

/*
 * The service's copy commands (copy between instances, cloud sync) answer only that the work
 * started; what happens next shows in the destination instance's status message ("check instance
 * status bar for progress updates", some 30 s late). The wording is not documented, so it is read
 * loosely: words of failure, words of completion, a percentage, and anything else as news.
 */

/** What one status message says about a running transfer. */
export type TransferReading =
  { kind: 'progress'; message: string; percent?: number } | { kind: 'done'; message: string } | { kind: 'failed'; message: string };

const FAILED = /\b(fail(s|ed|ure)?|error(s|ed)?|cancel(l)?ed|abort(ed)?|no space|denied|not found|no such)\b/i;
const DONE = /\b(done|complete(d)?|finished|succeeded)\b/i;
const PERCENT = /(\d{1,3}(?:\.\d+)?)\s*%/;
/** "12/40 files": the share done, when no percentage is given. */
const FRACTION = /(\d+)\s*\/\s*(\d+)\s*files?\b/i;

/**
 * Reads a status message against the one the instance showed before the transfer started: the
 * same text (or none) says nothing new yet, so it reads as undefined. A stale "done" of an earlier
 * copy is thereby never taken for this one's.
 */
export function readTransferStatus(message: string | null | undefined, before: string | null | undefined): TransferReading | undefined {
  const text = (message ?? '').trim();
  if (!text || text === (before ?? '').trim()) return undefined;
  if (FAILED.test(text)) return { kind: 'failed', message: text };
  if (DONE.test(text)) return { kind: 'done', message: text };
  const percent = PERCENT.exec(text);
  const fraction = percent ? undefined : FRACTION.exec(text);
  const value = percent
    ? Number(percent[1])
    : fraction && Number(fraction[2]) > 0
      ? (100 * Number(fraction[1])) / Number(fraction[2])
      : undefined;
  return { kind: 'progress', message: text, ...(value !== undefined && value <= 100 ? { percent: value } : {}) };
}

/** How following a transfer ended. */
export type TransferEnd =
  /** The status message said it finished. */
  | { outcome: 'done'; message: string }
  /** The status message said it failed (or was cancelled). */
  | { outcome: 'failed'; message: string }
  /** The destination stopped, failed or was destroyed before the transfer said it ended. */
  | { outcome: 'interrupted'; phase: InstancePhase }
  /** No new word for `quietMs`: whether it finished is not known. */
  | { outcome: 'quiet'; lastMessage: string | undefined }
  /** The signal aborted the wait (the user cancelled); the transfer itself is not touched. */
  | { outcome: 'cancelled' };

export interface FollowTransferOptions {
  /** The destination's status message before the transfer was started. */
  before: string | null | undefined;
  /** Told every new reading that is not the end. */
  onProgress?: (reading: TransferReading) => void;
  signal?: AbortSignal;
  /** Ends the wait as `quiet` when no new message arrives for this long (default 10 min). */
  quietMs?: number;
  timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
}

const STILL_THERE: readonly InstancePhase[] = ['running', 'stopping', 'rebooting', 'loading', 'starting', 'provisioning'];

/**
 * Follows instance `dstId`'s status message through the poller until it says the transfer ended.
 * It keeps the poller polling meanwhile (a running instance alone would not) and withdraws that
 * when done. Never rejects; the result says how the wait ended.
 */
export function followTransfer(
  poller: Pick<InstancePoller, 'onDidUpdate' | 'refresh' | 'setInterest'>,
  dstId: number,
  options: FollowTransferOptions,
): Promise<TransferEnd> {
  const { signal, onProgress } = options;
  const timers = options.timers ?? realTimers;
  const quietMs = options.quietMs ?? 10 * 60_000;
  if (signal?.aborted) return Promise.resolve({ outcome: 'cancelled' });
  const interest = `transfer:${dstId}`;
  return new Promise<TransferEnd>((resolve) => {
    let last: string | undefined;
    let timer: unknown;
    const armQuiet = () => {
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = timers.setTimeout(() => done({ outcome: 'quiet', lastMessage: last }), quietMs);
    };
    const done = (end: TransferEnd) => {
      subscription.dispose();
      signal?.removeEventListener('abort', onAbort);
      if (timer !== undefined) timers.clearTimeout(timer);
      poller.setInterest(interest, false);
      resolve(end);
    };
    const onAbort = () => done({ outcome: 'cancelled' });
    const subscription = poller.onDidUpdate((snapshot) => {
      const instance: Instance | undefined = snapshot.instances.find((i) => i.id === dstId);
      // Once the message has changed, news is judged against the last one seen: a copy made twice
      // ends with the same words as the first, and that end must still be seen.
      const reading = instance ? readTransferStatus(instance.status_msg, last ?? options.before) : undefined;
      if (reading?.kind === 'done' || reading?.kind === 'failed') return done({ outcome: reading.kind, message: reading.message });
      const phase = instance ? instancePhase(instance) : 'gone';
      if (!STILL_THERE.includes(phase)) return done({ outcome: 'interrupted', phase });
      if (reading && reading.message !== last) {
        last = reading.message;
        armQuiet();
        onProgress?.(reading);
      }
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    armQuiet();
    poller.setInterest(interest, true);
    void poller.refresh();
  });
}
