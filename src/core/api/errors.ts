import { PERMISSION_CATEGORIES, type PermissionCategory } from './permissions';
import { l10n, sentences } from '../l10n';
import { visibleText } from '../text';

/**
 * Every failure of a call to the service is one of these. The set is closed so that the UI can
 * answer each kind with the right next step (set a key, use another key, wait, retry, report).
 */
export type ApiErrorKind =
  | 'auth' // key missing, wrong or revoked: 401 on the key check, or a body saying the key is invalid
  | 'forbidden' // the key is good but may not do this: a missing permission, or a two-factor login needed (see ForbiddenReason)
  | 'not_found'
  | 'bad_request' // the service refused the request itself (400, 409, 410, 422, `success: false`)
  | 'rate_limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'invalid_response'; // the body did not match what the extension relies on

/**
 * Why a good key was refused. `permission`: a scoped key lacks the category the call needs.
 * `two_factor`: the service wants a login with two-factor authentication for this action, which no
 * API key can give; the key itself is fine for everything else. Both leave the session signed in.
 */
export type ForbiddenReason = 'permission' | 'two_factor';

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  /** What the user was doing, e.g. "list instances"; starts the message. */
  action: string;
  method: string;
  /** Path and query as sent, never containing a secret. */
  path: string;
  status?: number;
  /** The service's own error code, e.g. `no_such_ask`. */
  code?: string;
  /** The service's own message, already redacted. */
  serverMessage?: string;
  /** For `forbidden`: the category the key lacks. */
  permission?: PermissionCategory;
  /** For `forbidden`: why; `permission` when not given. */
  reason?: ForbiddenReason;
  /** For `rate_limited`: how long the service asked us to wait. */
  retryAfterMs?: number;
  /** For `invalid_response`: where the body differed, e.g. `offers[3].dph_total`. */
  fieldPath?: string;
  /**
   * True when a request that changes something may have been carried out although no answer
   * arrived (connection lost after sending, timeout, gateway error). The caller must look before
   * it tries again, so that nothing is done twice.
   */
  outcomeUnknown?: boolean;
  /** The underlying failure (a socket error); kept only as its name, code and scrubbed message. */
  cause?: unknown;
  /**
   * Every secret the request carried (the key, an instance key, a routing key, a presigned query).
   * Each is taken out of every string the error keeps, together with any run of 8 or more of its
   * characters; the secrets themselves are never stored on the error.
   */
  secrets?: ReadonlyArray<string | undefined>;
}

/** What is left of an underlying failure: nothing but scrubbed text. */
export interface SafeCause {
  name: string;
  message: string;
  code?: string;
}

/** Fields that JSON, `util.inspect` and logs may show; all scrubbed when the error was made. */
export type ApiErrorJson = Omit<ApiErrorDetails, 'secrets' | 'cause' | 'outcomeUnknown'> & {
  name: string;
  message: string;
  outcomeUnknown: boolean;
  cause?: SafeCause;
};

const REDACTED = '[redacted]';
/** A run this long that also occurs in a secret is taken out: a server echoing a key's prefix. */
export const SECRET_RUN = 8;
/** Shorter secrets are left alone: taking out every "abc" would mangle messages and hide nothing. */
const MIN_SECRET = 4;

/**
 * A function that takes every secret out of a text: each one whole, and any run of at least
 * SECRET_RUN characters that also occurs in a secret of that length or more. Built once per call:
 * the secret's windows of SECRET_RUN characters go in a set, and a text is scanned once, each of
 * its windows looked up; windows found mark their characters, and each marked stretch becomes
 * "[redacted]". The cost is one set lookup per character of the text.
 */
export function secretScrubber(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const usable = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET))];
  if (usable.length === 0) return (text) => text;
  const windows = new Set<string>();
  for (const secret of usable) {
    for (let i = 0; i + SECRET_RUN <= secret.length; i++) windows.add(secret.slice(i, i + SECRET_RUN));
  }
  // Secrets too short for a window are taken out whole, longest first.
  const short = usable.filter((s) => s.length < SECRET_RUN).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    if (windows.size > 0 && out.length >= SECRET_RUN) {
      let marks: Uint8Array | undefined;
      for (let i = 0; i + SECRET_RUN <= out.length; i++) {
        if (!windows.has(out.slice(i, i + SECRET_RUN))) continue;
        marks ??= new Uint8Array(out.length);
        marks.fill(1, i, i + SECRET_RUN);
      }
      if (marks) {
        let kept = '';
        for (let i = 0; i < out.length;) {
          let j = i;
          while (j < out.length && marks[j] === marks[i]) j++;
          kept += marks[i] ? REDACTED : out.slice(i, j);
          i = j;
        }
        out = kept;
      }
    }
    for (const secret of short) out = out.split(secret).join(REDACTED);
    return out;
  };
}

function scrubCause(cause: unknown, scrub: (text: string) => string): SafeCause | undefined {
  if (cause === undefined || cause === null) return undefined;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { name: scrub(cause.name), message: scrub(cause.message), ...(typeof code === 'string' ? { code: scrub(code) } : {}) };
  }
  return { name: typeof cause, message: scrub(String(cause)) };
}

/**
 * How much of the service's own text an error keeps (its message, code and the path of a field it
 * got wrong), and how much of its message a sentence quotes. The kept text is longer, so that code
 * reading the message (what a refusal means) sees what the service said.
 */
const KEPT_CHARS = { serverMessage: 1000, code: 100, fieldPath: 200 } as const;
const QUOTED_CHARS = 300;

/**
 * The details with every string scrubbed, and without the secrets. The service's own text also has
 * its hidden characters (bidi controls, zero-width and control characters) shown as escapes, since
 * every one of these strings may end up in a message: a crafted answer cannot read reversed there.
 */
function scrubbed(details: ApiErrorDetails): Omit<ApiErrorDetails, 'secrets' | 'cause'> & { cause?: SafeCause } {
  const scrub = secretScrubber(details.secrets ?? []);
  const said = (text: string | undefined, field: keyof typeof KEPT_CHARS) =>
    text === undefined ? undefined : visibleText(scrub(text), KEPT_CHARS[field]);
  return {
    kind: details.kind,
    action: scrub(details.action),
    method: scrub(details.method),
    path: scrub(details.path),
    status: details.status,
    code: said(details.code, 'code'),
    serverMessage: said(details.serverMessage, 'serverMessage'),
    permission: details.permission,
    reason: details.reason,
    retryAfterMs: details.retryAfterMs,
    fieldPath: said(details.fieldPath, 'fieldPath'),
    outcomeUnknown: details.outcomeUnknown,
    cause: scrubCause(details.cause, scrub),
  };
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly action: string;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly serverMessage: string | undefined;
  readonly permission: PermissionCategory | undefined;
  readonly reason: ForbiddenReason | undefined;
  readonly retryAfterMs: number | undefined;
  readonly fieldPath: string | undefined;
  readonly outcomeUnknown: boolean;
  declare readonly cause: SafeCause | undefined;

  constructor(raw: ApiErrorDetails) {
    // Scrubbed before Error sees the message: the stack's first line is fixed at construction.
    const details = scrubbed(raw);
    super(secretScrubber(raw.secrets ?? [])(describe(details)));
    this.name = 'ApiError';
    Object.defineProperty(this, 'cause', { value: details.cause, enumerable: false, writable: false, configurable: true });
    this.kind = details.kind;
    this.action = details.action;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.code = details.code;
    this.serverMessage = details.serverMessage;
    this.permission = details.permission;
    this.reason = details.kind === 'forbidden' ? (details.reason ?? 'permission') : undefined;
    this.retryAfterMs = details.retryAfterMs;
    this.fieldPath = details.fieldPath;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
  }

  /** One line for logs: kind, request and status, no secrets (none are ever stored here). */
  toLogString(): string {
    const status = this.status === undefined ? '' : ` ${this.status}`;
    return `${this.kind}: ${this.method} ${this.path}${status}: ${this.message}`;
  }

  /** Only the known, scrubbed fields: nothing attached to the object later is serialised. */
  toJSON(): ApiErrorJson {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      action: this.action,
      method: this.method,
      path: this.path,
      status: this.status,
      code: this.code,
      serverMessage: this.serverMessage,
      permission: this.permission,
      reason: this.reason,
      retryAfterMs: this.retryAfterMs,
      fieldPath: this.fieldPath,
      outcomeUnknown: this.outcomeUnknown,
      cause: this.cause,
    };
  }

  /** `util.inspect` (and so console.log and debuggers' previews) shows the stack and toJSON's fields. */
  [Symbol.for('nodejs.util.inspect.custom')](
    depth: number,
    options: object,
    inspect?: (value: unknown, options?: object) => string,
  ): string {
    const { name: _name, message: _message, ...fields } = this.toJSON();
    for (const field of Object.keys(fields) as Array<keyof typeof fields>) if (fields[field] === undefined) delete fields[field];
    const head = this.stack ?? `${this.name}: ${this.message}`;
    return depth < 0 || !inspect ? head : `${head} ${inspect(fields, options)}`;
  }
}

export function isApiError(value: unknown, kind?: ApiErrorKind): value is ApiError {
  return value instanceof ApiError && (kind === undefined || value.kind === kind);
}

function describe(details: ApiErrorDetails): string {
  // A sentence quotes less of the service's message than the error keeps.
  const d = { ...details, serverMessage: details.serverMessage && visibleText(details.serverMessage, QUOTED_CHARS) };
  const what = l10n.t('Could not {0}', d.action);
  // Whole sentences, joined by a space: what happened, what the service said, what to do next.
  const said = d.serverMessage ? l10n.t('The service said: "{0}".', d.serverMessage) : undefined;
  const unknown = unknownOutcome(d);
  switch (d.kind) {
    case 'auth':
      return d.status === undefined
        ? l10n.t('{0}: no API key is set. Set an API key and try again.', what)
        : l10n.t(
            '{0}: the API key was rejected (HTTP {1}). It may be mistyped or revoked; set a valid API key and try again.',
            what,
            d.status,
          );
    case 'forbidden': {
      if (d.reason === 'two_factor') {
        return sentences(
          d.status
            ? l10n.t(
                '{0}: the service allows this only after a login with two-factor authentication (HTTP {1}), which an API key cannot give.',
                what,
                d.status,
              )
            : l10n.t('{0}: the service allows this only after a login with two-factor authentication, which an API key cannot give.', what),
          said,
          l10n.t(
            "Do it on the service's web console, signed in with two-factor authentication. The API key is still signed in and works for everything else.",
          ),
        );
      }
      return d.permission
        ? l10n.t(
            '{0}: this API key lacks the "{1}" permission ({2}). Use a key that has it, or create one with that permission.',
            what,
            d.permission,
            PERMISSION_CATEGORIES[d.permission],
          )
        : l10n.t(
            '{0}: this API key does not have the permission this needs. Use a key that has it, or create one with that permission.',
            what,
          );
    }
    case 'not_found':
      return sentences(
        d.status === undefined || d.status === 200
          ? l10n.t('{0}: it was not found.', what)
          : l10n.t('{0}: it was not found (HTTP {1}).', what, d.status),
        said,
      );
    case 'bad_request':
      return sentences(
        d.status
          ? l10n.t('{0}: the service refused the request (HTTP {1}).', what, d.status)
          : l10n.t('{0}: the service refused the request.', what),
        said,
      );
    case 'rate_limited': {
      const wait = d.retryAfterMs ? l10n.t('It asked to wait {0} s.', Math.ceil(d.retryAfterMs / 1000)) : undefined;
      return d.outcomeUnknown
        ? sentences(l10n.t('{0}: the service answered "too many requests" (HTTP 429).', what), wait, unknown)
        : sentences(
            l10n.t('{0}: the service is limiting how often requests may be made (HTTP 429).', what),
            wait,
            l10n.t('Wait a moment and try again.'),
          );
    }
    case 'server':
      return sentences(
        l10n.t('{0}: the service had an error (HTTP {1}).', what, String(d.status)),
        said,
        d.outcomeUnknown ? unknown : l10n.t('Try again in a minute.'),
      );
    case 'network':
      return sentences(
        l10n.t(
          '{0}: the connection to the service failed ({1}). Check the network and the base URL setting, then try again.',
          what,
          d.serverMessage ?? l10n.t('no answer'),
        ),
        unknown,
      );
    case 'timeout':
      return sentences(
        l10n.t('{0}: the service did not answer in time. Try again; if it keeps happening, check the network.', what),
        unknown,
      );
    case 'invalid_response': {
      const at = d.fieldPath;
      const detail = d.serverMessage;
      const first =
        at !== undefined && at !== '' && detail
          ? l10n.t('{0}: the service sent a response the extension does not understand at "{1}" ({2}).', what, at, detail)
          : at
            ? l10n.t('{0}: the service sent a response the extension does not understand at "{1}".', what, at)
            : detail
              ? l10n.t('{0}: the service sent a response the extension does not understand ({1}).', what, detail)
              : l10n.t('{0}: the service sent a response the extension does not understand.', what);
      return sentences(first, d.outcomeUnknown ? unknown : l10n.t('Check that the base URL points at the GPU marketplace API.'));
    }
  }
}

function unknownOutcome(d: ApiErrorDetails): string | undefined {
  return d.outcomeUnknown ? l10n.t('The request may have been carried out; check before repeating it.') : undefined;
}

/**
 * What a failed create, add or delete means for the caller: `refused` when the service said no (or
 * the request never left this machine), so nothing changed; `unknown` when it may have been done
 * (a lost answer, a gateway's 5xx or 429, an unreadable 2xx, a cancel), so look before trying again.
 */
export function writeOutcome(error: unknown): 'refused' | 'unknown' {
  return error instanceof ApiError && !error.outcomeUnknown ? 'refused' : 'unknown';
}
