/**
 * When a failed call is sent again, and after how long: the retry policy of each call (see
 * RetryPolicy), the service's Retry-After, and exponential backoff with jitter otherwise.
 */
import type { RetryPolicy } from './call';

/** Whether an answer with this status is worth asking again under this policy (a 429, or a gateway's 502-504 to a read). */
export function retryableStatus(retry: RetryPolicy, status: number): boolean {
  return (status === 429 && retry !== 'never') || (retry === 'read' && (status === 502 || status === 503 || status === 504));
}

/** Whether a call that got no answer (network error, timeout) is worth sending again: a read always, a write only if it was never sent. */
export function retryableFailure(retry: RetryPolicy, notSent: boolean): boolean {
  return retry === 'read' || (retry === 'write' && notSent);
}

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
  /** A number in [0, 1); tests pass a fixed one. */
  readonly random: () => number;
}

/** Exponential backoff with equal jitter: half of each step fixed, half random. */
export function backoffMs(attempt: number, backoff: Backoff): number {
  const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + backoff.random() * (step / 2));
}

/** A Retry-After header (seconds, or an HTTP date) in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
