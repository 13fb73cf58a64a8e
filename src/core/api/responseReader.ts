/**
 * Reads a 2xx answer: parses its body, turns the service's refusals dressed as success into
 * errors, and validates the rest against the call's schema.
 */
import type * as z from 'zod';
import { changesSomething, type Call, type CallPlace, type RawResponse, type Redact } from './call';
import { ApiError } from './errors';
import { l10n } from '../l10n';

/** The data of a 2xx answer, or the ApiError saying why it cannot be used. */
export function readAnswer<S extends z.ZodType>(call: Call<S>, where: CallPlace, res: RawResponse, redact: Redact): z.output<S> {
  const quick = call.quickRead && res.chunks && call.responseType !== 'text' ? call.quickRead(res.chunks) : undefined;
  if (quick && !refuses(quick.rest)) return quick.data;
  const json = bodyOf(call, where, res);
  if (call.stringAnswer && call.responseType !== 'text' && typeof json === 'string') {
    throw new ApiError({
      ...where,
      kind: call.stringAnswer,
      status: res.status,
      serverMessage: redact(json.trim()).slice(0, 300) || undefined,
    });
  }
  if (isRecord(json) && refuses(json)) {
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

/** `success: false` is the service's usual refusal; the team endpoints say `status: "failure"`. */
function refuses(body: Record<string, unknown>): boolean {
  return body['success'] === false || body['status'] === 'failure';
}

/** The body as the schema reads it: the raw text for a text call, parsed JSON otherwise (null when empty). */
function bodyOf(call: Call<z.ZodType>, where: CallPlace, res: RawResponse): unknown {
  if (call.responseType === 'text') return res.text;
  if (res.text.trim() === '') return null;
  try {
    return JSON.parse(res.text);
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

/** The service puts its words in `msg`, `message`, `error` or `detail`, depending on the endpoint. */
export function serverSays(body: Record<string, unknown>): { message?: string; code?: string } {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
  return {
    message: text(body['msg']) ?? text(body['message']) ?? text(body['detail']) ?? text(body['error']),
    code: text(body['error']),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema issue's path as people read it: `instances[3].ssh_port`, or `(root)`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}
