import * as z from 'zod';

/*
 * Building blocks for tolerant schemas. The service adds fields over time and leaves some out, so
 * every field the extension does not depend on is optional and may be null. Objects strip unknown
 * keys: only the fields the extension reads are declared, which is also what keeps validating
 * 10,000 offers close to the cost of JSON.parse (see `npm run bench`).
 */
export const optNumber = z.number().nullish();
export const optInt = z.int().nullish();
export const optString = z.string().nullish();
export const optBool = z.boolean().nullish();
/** Timestamps come as epoch seconds or as text, depending on the endpoint. */
export const optTime = z.union([z.number(), z.string()]).nullish();
/** `null` is meaningful for some fields (an instance still provisioning has status null). */
export const nullableString = z.string().nullable().optional().transform((v) => v ?? null);

/** Accepts any successful answer: several deletes return a bare message string, others `{success}`. */
export const anyOk = z.unknown().transform(() => undefined);

/** Lists arrive either bare or wrapped in an envelope, depending on the endpoint and its age. */
export function listOf<T extends z.ZodType>(item: T, envelope: string) {
  return z
    .union([z.array(item), z.object({ [envelope]: z.array(item).nullish() })])
    .transform((v): z.output<T>[] => (Array.isArray(v) ? v : ((v as Record<string, z.output<T>[] | null | undefined>)[envelope] ?? [])));
}

/** A value that is sometimes a JSON document in a string (e.g. instance SSH keys, key rights). */
export function jsonInString<T extends z.ZodType>(inner: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }, inner);
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Use this key instead of the account key, e.g. an instance API key for its own instance. */
  apiKey?: string;
  /**
   * Overrides the endpoint's retry policy; the poller passes `never` because it has its own
   * backoff and must make exactly one request per interval.
   */
  retry?: 'never';
}
