import type { Dispatcher } from 'undici';
import type * as z from 'zod';
import type { Logger } from '../log';
import { ApiError, secretScrubber, type ApiErrorDetails, type ApiErrorKind } from './errors';
import type { PermissionCategory } from './permissions';
import { l10n } from '../l10n';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * How a call may be repeated after a failure:
 * - `read`: safe to repeat (reads, and writes that set a state): network errors, timeouts, 429, 502-504.
 * - `write`: repeat only when the service certainly did nothing (429, or a connection never made).
 * - `never`: renting; a lost answer is reconciled by the caller, never retried blindly.
 */
export type RetryPolicy = 'read' | 'write' | 'never';

export interface Call<S extends z.ZodType> {
  /** What the user is doing, in words: "list instances". Starts every error message. */
  action: string;
  method: HttpMethod;
  /** Path under the base URL, e.g. `/api/v0/instances/12/`. */
  path: string;
  /** Values that are not strings are JSON-encoded, as the service expects. */
  query?: Record<string, unknown>;
  body?: unknown;
  schema: S;
  /** The category a scoped key needs; named in `forbidden` errors. */
  permission: PermissionCategory | null;
  /**
   * The key check (`GET /users/current/`): a 401 here with no other explanation means the key is
   * bad. Elsewhere a 401 is taken as bad key only when its body says so (see statusError).
   */
  keyCheck?: boolean;
  retry: RetryPolicy;
  /**
   * A POST or PUT that changes nothing (an offer search, a log request): a lost or unreadable
   * answer to it never leaves an outcome in doubt. Without it, any method but GET changes things.
   */
  readOnly?: boolean;
  /** A URL outside the API (such as a presigned log URL): fetched without the key. */
  absoluteUrl?: string;
  /** `serverless`: the path is under the serverless base URL (workers and logs), with the key. */
  host?: 'api' | 'serverless';
  /** Overrides the account key, e.g. with an instance API key. */
  apiKey?: string;
  /**
   * Other secrets the request carries (an endpoint's routing key in the body): taken out of every
   * message, as the key is. The body itself is never logged.
   */
  secrets?: ReadonlyArray<string | undefined>;
  /**
   * What a bare JSON string in a 2xx answer means. The autoscaler answers an unknown id or a
   * refused key with 200 and its message as the whole body; that must become an error, never data.
   * Without it, a string is handed to the schema like any other body.
   */
  stringAnswer?: ApiErrorKind;
  /** `text` hands the raw body to the schema instead of parsed JSON (log files). */
  responseType?: 'json' | 'text';
  signal?: AbortSignal;
}

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

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Errors whose request never reached the service, so nothing can have been done. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

const LOOPBACK_HOSTS = new Set(['localhost', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Checks a base URL before any key goes near it: https anywhere, plain http only to this machine.
 * Returns the URL without a trailing slash.
 */
export function checkBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(l10n.t('The base URL "{0}" is not a valid URL. Use a full address such as https://console.vast.ai.', baseUrl));
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(
      l10n.t(
        'Refusing to send the API key over plain http to {0}. Use an https:// base URL (plain http is allowed only for 127.0.0.1 and localhost).',
        url.host,
      ),
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(l10n.t('The base URL must start with https:// (got {0}).', url.protocol));
  }
  if (url.search || url.hash) throw new Error(l10n.t('The base URL must not contain a query or a fragment.'));
  return url.href.replace(/\/+$/, '');
}

/**
 * The production service answers serverless workers and logs from another host than its API
 * (run.vast.ai beside console.vast.ai); any other base URL (the simulator, a proxy) serves them
 * itself. The key goes only to that host, and only over https (or to this machine).
 */
export function serverlessUrlFor(baseUrl: string): string {
  const base = checkBaseUrl(baseUrl);
  return new URL(base).hostname === 'console.vast.ai' ? 'https://run.vast.ai' : base;
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
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

/** Owns the wire: URL, bearer auth, timeouts, retries, error mapping, validation and redaction. */
export class Transport {
  private readonly base: string;
  private readonly serverlessBase: string;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly sleep: NonNullable<TransportOptions['sleep']>;
  private readonly random: () => number;
  private readonly userAgent: string;

  constructor(private readonly options: TransportOptions) {
    this.base = checkBaseUrl(options.baseUrl);
    this.serverlessBase = options.serverlessUrl ? checkBaseUrl(options.serverlessUrl) : serverlessUrlFor(this.base);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 4);
    this.retryBaseMs = options.retryBaseMs ?? 250;
    this.retryMaxMs = options.retryMaxMs ?? 8_000;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
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
    const redact = makeRedactor(secrets);
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
        if (res.status >= 200 && res.status < 300) return this.accept(call, where, res, redact);
        failure = statusError(call, where, res, redact);
        const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        retryable =
          (res.status === 429 && call.retry !== 'never') ||
          (call.retry === 'read' && (res.status === 502 || res.status === 503 || res.status === 504));
        if (retryAfterMs !== undefined) {
          if (retryAfterMs > this.maxRetryAfterMs) retryable = false;
          delayMs = retryAfterMs;
        }
      } catch (error) {
        if (call.signal?.aborted) throw call.signal.reason;
        if (error instanceof ApiError) throw error;
        const timedOut = isTimeout(error);
        const code = errorCode(error);
        const notSent = code !== undefined && NOT_SENT_CODES.has(code);
        failure = new ApiError({
          ...where,
          kind: timedOut ? 'timeout' : 'network',
          serverMessage: timedOut ? undefined : redact(code ?? (error instanceof Error ? error.message : String(error))),
          cause: error,
          outcomeUnknown: changesSomething(call) && !notSent,
        });
        this.options.logger.debug(`${call.method} ${where.path} -> ${failure.kind}${code ? ` ${code}` : ''}`);
        retryable = call.retry === 'read' || (call.retry === 'write' && notSent);
      }
      if (!retryable || attempt >= this.maxAttempts) throw failure;
      const wait = delayMs ?? this.backoff(attempt);
      this.options.logger.warn(
        `${call.method} ${where.path}: ${failure.kind}${failure.status ? ` ${failure.status}` : ''}; retry ${attempt}/${this.maxAttempts - 1} in ${wait} ms`,
      );
      await this.sleep(wait, call.signal);
    }
  }

  /** Exponential backoff with equal jitter: half of each step fixed, half random. */
  private backoff(attempt: number): number {
    const step = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** (attempt - 1));
    return Math.round(step / 2 + this.random() * (step / 2));
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
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      if (timeout.aborted && !call.signal?.aborted) throw new TimeoutMarker();
      throw error;
    }
  }

  private accept<S extends z.ZodType>(
    call: Call<S>,
    where: Pick<ApiErrorDetails, 'action' | 'method' | 'path'>,
    res: RawResponse,
    redact: (text: string) => string,
  ): z.output<S> {
    let json: unknown = null;
    if (call.responseType === 'text') json = res.text;
    else if (res.text.trim() !== '') {
      try {
        json = JSON.parse(res.text);
      } catch {
        throw new ApiError({
          ...where,
          kind: 'invalid_response',
          status: res.status,
          serverMessage: l10n.t('the body is not valid JSON'),
          outcomeUnknown: changesSomething(call),
        });
      }
    }
    if (call.stringAnswer && call.responseType !== 'text' && typeof json === 'string') {
      throw new ApiError({
        ...where,
        kind: call.stringAnswer,
        status: res.status,
        serverMessage: redact(json.trim()).slice(0, 300) || undefined,
      });
    }
    // `success: false` is the service's usual refusal; the team endpoints say `status: "failure"`.
    if (isRecord(json) && (json['success'] === false || json['status'] === 'failure')) {
      const said = serverSays(json);
      throw new ApiError({
        ...where,
        kind: 'bad_request',
        status: res.status,
        code: said.code,
        serverMessage: redact(said.message ?? '') || undefined,
      });
    }
    const parsed = call.schema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new ApiError({
      ...where,
      kind: 'invalid_response',
      status: res.status,
      // A 2xx to a request that changes something: it was most likely done, but that is not seen.
      outcomeUnknown: changesSomething(call),
      fieldPath: issue ? formatPath(issue.path) : undefined,
      serverMessage: issue?.message,
    });
  }
}

class TimeoutMarker extends Error {}

function isTimeout(error: unknown): boolean {
  if (error instanceof TimeoutMarker) return true;
  const code = errorCode(error);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function statusError(
  call: Call<z.ZodType>,
  where: Pick<ApiErrorDetails, 'action' | 'method' | 'path'>,
  res: RawResponse,
  redact: (text: string) => string,
): ApiError {
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    json = undefined;
  }
  const said = isRecord(json) ? serverSays(json) : { message: typeof json === 'string' ? json : plainText(res.text) };
  const message = said.message ? redact(said.message.trim()) : undefined;
  const base = { ...where, status: res.status, code: said.code, serverMessage: message || undefined };
  const status = res.status;
  const refusal = authRefusal(status, said.code, message, call.keyCheck === true);
  if (refusal === 'auth') return new ApiError({ ...base, kind: 'auth' });
  if (refusal === 'two_factor') return new ApiError({ ...base, kind: 'forbidden', reason: 'two_factor' });
  if (refusal === 'permission')
    return new ApiError({ ...base, kind: 'forbidden', reason: 'permission', permission: call.permission ?? undefined });
  if (status === 404 || status === 410) return new ApiError({ ...base, kind: 'not_found' });
  // A gateway in front of the service may answer 429 or any 5xx after the service acted: for a
  // request that changes something, the outcome is unknown.
  const changes = changesSomething(call);
  if (status === 429)
    return new ApiError({
      ...base,
      kind: 'rate_limited',
      retryAfterMs: parseRetryAfter(res.headers['retry-after']),
      outcomeUnknown: changes,
    });
  if (status >= 500) return new ApiError({ ...base, kind: 'server', outcomeUnknown: changes });
  return new ApiError({ ...base, kind: 'bad_request' });
}

const TWO_FACTOR = /two[- ]?factor|\b2fa\b|\btfa\b/i;
const KEY_INVALID = /requires login|invalid (?:user |api )?key|not provided as bearer|key (?:was |has been )?(?:deleted|revoked)/i;
const PERMISSION_WORDS = /permission|scope|not allowed|not permitted|not authori[sz]ed|forbidden|lacks?\b/i;

/**
 * What a refusal means, read from the body first. The service answers 401 for three different
 * things (GUIDE and CLI, see the service notes §1.2): a key that is deleted or unknown ("Invalid
 * user key", `auth_error`), a scoped key without the permission, and an action that needs a
 * two-factor login. Only the first is a bad key, which signs the window out; the other two refuse
 * one action of a good key. So a 401 is `auth` only when its body says the key is invalid, or on
 * the key check itself when the body does not say otherwise; any other 401 or 403 is a refusal of
 * this action. Undefined: not a refusal of the key (404, 400 and the rest, mapped by status).
 */
function authRefusal(
  status: number,
  code: string | undefined,
  message: string | undefined,
  keyCheck: boolean,
): 'auth' | 'permission' | 'two_factor' | undefined {
  const text = message ?? '';
  const refused = status === 401 || status === 403;
  if (refused && (TWO_FACTOR.test(text) || /tfa|two_factor/i.test(code ?? ''))) return 'two_factor';
  const keyInvalid = code === 'auth_error' || KEY_INVALID.test(text);
  if (keyInvalid && (refused || status === 404 || status === 400)) return 'auth';
  if (!refused) return undefined;
  if (PERMISSION_WORDS.test(text) || (code !== undefined && PERMISSION_WORDS.test(code))) return 'permission';
  return status === 401 && keyCheck ? 'auth' : 'permission';
}

function changesSomething(call: Call<z.ZodType>): boolean {
  return call.method !== 'GET' && !call.readOnly;
}

/** A non-JSON error body in a few words: a gateway's HTML page is reduced to its title. */
function plainText(text: string): string {
  if (/^\s*</.test(text)) return /<title>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim() ?? '';
  return text.slice(0, 200);
}

/** The service puts its words in `msg`, `message`, `error` or `detail`, depending on the endpoint. */
function serverSays(body: Record<string, unknown>): { message?: string; code?: string } {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return {
    message: text(body['msg']) ?? text(body['message']) ?? text(body['detail']) ?? text(body['error']),
    code: text(body['error']),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
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

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}

/** Takes each secret, and any run of 8 or more of its characters, out of a text; see secretScrubber. */
function makeRedactor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  return secretScrubber(secrets);
}
