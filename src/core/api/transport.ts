/**
 * The wire: URL, bearer auth, timeouts and the retry loop. What a call is lives in call.ts, where
 * a key may go in baseUrl.ts, when to retry in retry.ts, how an answer is read in responseReader.ts
 * and how a failure becomes an ApiError in errorMapping.ts; this module re-exports what callers
 * have always imported from here.
 */
import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { Logger } from '../log';
import { checkBaseUrl, serverlessUrlFor } from './baseUrl';
import type { Call, RawResponse } from './call';
import { ApiError, secretScrubber, type ApiErrorDetails } from './errors';
import { networkFailure, statusError, TimeoutMarker } from './errorMapping';
import { readAnswer } from './responseReader';
import { backoffMs, defaultSleep, parseRetryAfter, retryableFailure, retryableStatus, type Backoff } from './retry';
import { l10n } from '../l10n';

export type { Call, HttpMethod, RetryPolicy } from './call';
export { checkBaseUrl, isLoopbackHost, serverlessUrlFor } from './baseUrl';
export { formatPath } from './responseReader';
export { parseRetryAfter } from './retry';

/**
 * The one thing the client needs from an undici `Dispatcher`: its promise form of `request`. Any
 * Dispatcher (Agent, EnvHttpProxyAgent, MockAgent) fits; the extension passes one that loads
 * undici only when the first request is made.
 */
export interface RequestDispatcher {
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}

export interface TransportOptions {
  dispatcher: RequestDispatcher;
  baseUrl: string;
  /** Where serverless workers and logs are read; see serverlessUrlFor. */
  serverlessUrl?: string;
  getApiKey: () => string | undefined | Promise<string | undefined>;
  logger: Logger;
  /** Whole-request limit, headers and body, per attempt. */
  timeoutMs: number;
  maxAttempts?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A Retry-After longer than this is not waited for; the error carries it instead. */
  maxRetryAfterMs?: number;
  userAgent?: string;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** Owns the wire: URL, bearer auth, timeouts, retries, error mapping, validation and redaction. */
export class Transport {
  private readonly base: string;
  private readonly serverlessBase: string;
  private readonly maxAttempts: number;
  private readonly backoff: Backoff;
  private readonly maxRetryAfterMs: number;
  private readonly sleep: NonNullable<TransportOptions['sleep']>;
  private readonly userAgent: string;

  constructor(private readonly options: TransportOptions) {
    this.base = checkBaseUrl(options.baseUrl);
    this.serverlessBase = options.serverlessUrl ? checkBaseUrl(options.serverlessUrl) : serverlessUrlFor(this.base);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.backoff = { baseMs: options.retryBaseMs ?? 250, maxMs: options.retryMaxMs ?? 8_000, random: options.random ?? Math.random };
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.sleep = options.sleep ?? defaultSleep;
    this.userAgent = options.userAgent ?? 'gpu-rental-vscode';
  }

  get baseUrl(): string {
    return this.base;
  }

  /** The client's log, for what an endpoint reads around a call (odd records in a list). */
  get logger(): Logger {
    return this.options.logger;
  }

  /**
   * The account key, for the few calls that must also carry it in their body (the autoscaler's,
   * as the official CLI sends it). It is scrubbed from every message like the header's copy.
   */
  async accountKey(): Promise<string | undefined> {
    return this.options.getApiKey();
  }

  /** Waits, or rejects when the signal aborts; tests replace it to run without real delays. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return this.sleep(ms, signal);
  }

  async send<S extends z.ZodType>(call: Call<S>): Promise<z.output<S>> {
    // An absolute URL (a presigned log URL) never gets the key, but the key is still taken out of
    // everything said about it, as is its own query (a signature), which is neither logged nor kept.
    const accountKey = call.apiKey ?? (await this.options.getApiKey());
    const key = call.absoluteUrl ? undefined : accountKey;
    const pathAndQuery = call.path + encodeQuery(call.query);
    const absolute = call.absoluteUrl === undefined ? undefined : URL.canParse(call.absoluteUrl) ? new URL(call.absoluteUrl) : null;
    const secrets = [accountKey, ...(call.secrets ?? []), absolute?.search.slice(1), absolute?.hash.slice(1)];
    // Takes each secret, and any run of 8 or more of its characters, out of a text.
    const redact = secretScrubber(secrets);
    const where: Pick<ApiErrorDetails, 'action' | 'method' | 'path' | 'secrets'> = {
      action: call.action,
      method: call.method,
      path: redact(absolute ? absolute.origin + absolute.pathname : absolute === null ? l10n.t('(an absolute URL)') : pathAndQuery),
      secrets,
    };
    if (absolute === null)
      throw new ApiError({ ...where, kind: 'invalid_response', serverMessage: l10n.t('the service gave a URL that is not valid') });
    if (!call.absoluteUrl && !key) throw new ApiError({ ...where, kind: 'auth' });
    const url = absolute ?? new URL((call.host === 'serverless' ? this.serverlessBase : this.base) + pathAndQuery);

    for (let attempt = 1; ; attempt++) {
      let failure: ApiError;
      let retryable: boolean;
      let delayMs: number | undefined;
      const started = Date.now();
      try {
        const res = await this.once(call, url, key);
        const ms = Date.now() - started;
        this.options.logger.debug(`${call.method} ${where.path} -> ${res.status} (${ms} ms)`);
        if (res.status >= 200 && res.status < 300) return readAnswer(call, where, res, redact);
        failure = statusError(call, where, res, redact);
        const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        retryable = retryableStatus(call.retry, res.status);
        if (retryAfterMs !== undefined) {
          if (retryAfterMs > this.maxRetryAfterMs) retryable = false;
          delayMs = retryAfterMs;
        }
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        if (error instanceof ApiError) throw error;
        const lost = networkFailure(call, where, error, redact);
        failure = lost.failure;
        this.options.logger.debug(`${call.method} ${where.path} -> ${failure.kind}${lost.code ? ` ${lost.code}` : ''}`);
        retryable = retryableFailure(call.retry, lost.notSent);
      }
      if (!retryable || attempt >= this.maxAttempts) throw failure;
      const wait = delayMs ?? backoffMs(attempt, this.backoff);
      this.options.logger.warn(
        `${call.method} ${where.path}: ${failure.kind}${failure.status ? ` ${failure.status}` : ''}; retry ${attempt}/${this.maxAttempts - 1} in ${wait} ms`,
      );
      await this.sleep(wait, call.signal);
    }
  }

  private async once(call: Call<z.ZodType>, url: URL, key: string | undefined): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    if (key) headers['authorization'] = `Bearer ${key}`;
    let body: string | undefined;
    if (call.body !== undefined || call.method === 'POST' || call.method === 'PUT') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.body ?? {});
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    try {
      const res = await this.options.dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: call.method,
        headers,
        body,
        signal,
      });
      if (call.quickRead) {
        // A long answer read in part: its text, as one string, only if the quick reading declines it.
        const chunks: Uint8Array[] = [];
        // Plain views, not Buffers: the reader takes thousands of subarrays of them, and a Buffer's are slower to make.
        for await (const chunk of res.body as AsyncIterable<Uint8Array>)
          chunks.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        let text: string | undefined;
        return {
          status: res.statusCode,
          headers: res.headers,
          chunks,
          get text() {
            return (text ??= decodeChunks(chunks));
          },
        };
      }
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      if (timeout.aborted && !call.signal?.aborted) throw new TimeoutMarker();
      throw error;
    }
  }
}

/** UTF-8 text of a body that came in chunks (a character may straddle two). */
function decodeChunks(chunks: readonly Uint8Array[]): string {
  const decoder = new TextDecoder();
  let text = '';
  for (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Query values that are not strings travel JSON-encoded, then URL-encoded. */
export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
