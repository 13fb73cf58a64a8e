/**
 * Turns what went wrong with a call into an ApiError: an answer outside 2xx (statusError), or no
 * answer at all (networkFailure). Decides which refusals mean a bad key, a missing permission or a
 * two-factor login, and when the outcome of a request that changes something is unknown.
 */
import type * as z from 'zod';
import { changesSomething, type Call, type CallPlace, type RawResponse, type Redact } from './call';
import { ApiError } from './errors';
import { isRecord, serverSays } from './responseReader';
import { parseRetryAfter } from './retry';

/** Errors whose request never reached the service, so nothing can have been done. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Thrown by the transport when its own whole-request limit ran out (not the caller's signal). */
export class TimeoutMarker extends Error {}

/** A call that got no answer, as an ApiError; `notSent` when the request certainly never reached the service. */
export function networkFailure(
  call: Call<z.ZodType>,
  where: CallPlace,
  error: unknown,
  redact: Redact,
): { failure: ApiError; code: string | undefined; notSent: boolean } {
  const timedOut = isTimeout(error);
  const code = errorCode(error);
  const notSent = code !== undefined && NOT_SENT_CODES.has(code);
  const failure = new ApiError({
    ...where,
    kind: timedOut ? 'timeout' : 'network',
    serverMessage: timedOut ? undefined : redact(code ?? (error instanceof Error ? error.message : String(error))),
    cause: error,
    outcomeUnknown: changesSomething(call) && !notSent,
  });
  return { failure, code, notSent };
}

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

/** An answer outside 2xx, as an ApiError of the kind that says what the user can do about it. */
export function statusError(call: Call<z.ZodType>, where: CallPlace, res: RawResponse, redact: Redact): ApiError {
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

/** A non-JSON error body in a few words: a gateway's HTML page is reduced to its title. */
function plainText(text: string): string {
  if (/^\s*</.test(text)) return /<title>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim() ?? '';
  return text.slice(0, 200);
}
