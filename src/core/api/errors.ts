import { PERMISSION_CATEGORIES, type PermissionCategory } from './permissions';

/**
 * Every failure of a call to the service is one of these. The set is closed so that the UI can
 * answer each kind with the right next step (set a key, use another key, wait, retry, report).
 */
export type ApiErrorKind =
  | 'auth' // key missing, wrong or revoked (401; also 403 "requires login" and 404 auth_error)
  | 'forbidden' // a scoped key without the permission the endpoint needs
  | 'not_found'
  | 'bad_request' // the service refused the request itself (400, 409, 410, 422, `success: false`)
  | 'rate_limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'invalid_response'; // the body did not match what the extension relies on

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
  readonly retryAfterMs: number | undefined;
  readonly fieldPath: string | undefined;
  readonly outcomeUnknown: boolean;

  constructor(details: ApiErrorDetails) {
    super(describe(details));
    this.name = 'ApiError';
    this.kind = details.kind;
    this.action = details.action;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.code = details.code;
    this.serverMessage = details.serverMessage;
    this.permission = details.permission;
    this.retryAfterMs = details.retryAfterMs;
    this.fieldPath = details.fieldPath;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
  }

  /** One line for logs: kind, request and status, no secrets (none are ever stored here). */
  toLogString(): string {
    const status = this.status === undefined ? '' : ` ${this.status}`;
    return `${this.kind}: ${this.method} ${this.path}${status}: ${this.message}`;
  }
}

export function isApiError(value: unknown, kind?: ApiErrorKind): value is ApiError {
  return value instanceof ApiError && (kind === undefined || value.kind === kind);
}

function describe(d: ApiErrorDetails): string {
  const what = `Could not ${d.action}`;
  const said = d.serverMessage ? ` The service said: "${d.serverMessage}".` : '';
  switch (d.kind) {
    case 'auth':
      return d.status === undefined
        ? `${what}: no API key is set. Set an API key and try again.`
        : `${what}: the API key was rejected (HTTP ${d.status}). It may be mistyped or revoked; set a valid API key and try again.`;
    case 'forbidden': {
      const lacks = d.permission
        ? ` lacks the "${d.permission}" permission (${PERMISSION_CATEGORIES[d.permission]})`
        : ' does not have the permission this needs';
      return `${what}: this API key${lacks}. Use a key that has it, or create one with that permission.`;
    }
    case 'not_found':
      return `${what}: it was not found${d.status === undefined || d.status === 200 ? '' : ` (HTTP ${d.status})`}.${said}`;
    case 'bad_request':
      return `${what}: the service refused the request${d.status ? ` (HTTP ${d.status})` : ''}.${said}`;
    case 'rate_limited': {
      const wait = d.retryAfterMs ? ` It asked to wait ${Math.ceil(d.retryAfterMs / 1000)} s.` : '';
      return `${what}: the service is limiting how often requests may be made (HTTP 429).${wait} Wait a moment and try again.`;
    }
    case 'server':
      return `${what}: the service had an error (HTTP ${d.status}).${said} Try again in a minute.${unknownOutcome(d)}`;
    case 'network':
      return `${what}: the connection to the service failed (${d.serverMessage ?? 'no answer'}). Check the network and the base URL setting, then try again.${unknownOutcome(d)}`;
    case 'timeout':
      return `${what}: the service did not answer in time. Try again; if it keeps happening, check the network.${unknownOutcome(d)}`;
    case 'invalid_response':
      return `${what}: the service sent a response the extension does not understand${d.fieldPath ? ` at "${d.fieldPath}"` : ''}${d.serverMessage ? ` (${d.serverMessage})` : ''}. Check that the base URL points at the GPU marketplace API.`;
  }
}

function unknownOutcome(d: ApiErrorDetails): string {
  return d.outcomeUnknown ? ' The request may have been carried out; check before repeating it.' : '';
}
