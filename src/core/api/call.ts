/**
 * What one request to the service is: its method, path, schema, the permission it needs and how
 * it may be repeated. The transport (transport.ts) sends it; the readers beside it map its answer.
 */
import type * as z from 'zod';
import type { ApiErrorDetails, ApiErrorKind } from './errors';
import type { PermissionCategory } from './permissions';

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
  /**
   * A quicker reading of a long answer that repeats itself from one poll to the next (see
   * listReuse.ts): the data as `schema` reads it, and the rest of the body, which is still checked
   * for a refusal. Undefined leaves the answer to the usual reading.
   */
  quickRead?: (body: readonly Uint8Array[]) => { data: z.output<S>; rest: Record<string, unknown> } | undefined;
  signal?: AbortSignal;
}

/** An answer as it came off the wire, before it is read. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /**
   * The body's bytes in the chunks they came in, kept for a call with a quick reading (the text is
   * then decoded only when asked for). Never joined into one buffer: at 5,000 instances that would
   * be another 12 MB each poll, outside the heap, that the garbage collector runs after.
   */
  chunks?: readonly Uint8Array[];
}

/** Where a call went, in the words every error about it carries (its path already redacted). */
export type CallPlace = Pick<ApiErrorDetails, 'action' | 'method' | 'path'>;

/** Takes the call's secrets out of a text (see secretScrubber). */
export type Redact = (text: string) => string;

/** Whether the call may have changed something at the service, so that a lost answer leaves its outcome unknown. */
export function changesSomething(call: Call<z.ZodType>): boolean {
  return call.method !== 'GET' && !call.readOnly;
}
