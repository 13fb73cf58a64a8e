import * as z from 'zod';
import type { Logger } from '../log';
import { type Unreadable, MAX_REASONS, unreadableOf, withUnreadable, describeUnreadable } from './unreadable';
import { l10n } from '../l10n';

/*
 * Building blocks for tolerant schemas. The service adds fields over time, leaves some out, and now
 * and then sends one of the wrong type (`ssh_port: "22"`, `gpu_util: "N/A"`), so every field the
 * extension does not depend on is optional, may be null, and becomes unknown (undefined) when its
 * type is unexpected: one odd field never costs the record, and one odd record never costs the list
 * (see `tolerantArray`). Numbers sent as numeric strings are read as numbers. Objects strip unknown
 * keys: only the fields the extension reads are declared, which is also what keeps validating
 * 10,000 offers close to the cost of JSON.parse (see `npm run bench`). The fallbacks run only when
 * a value fails its type, so well-formed answers pay nothing for them.
 */

/** Decimal text such as "22", "-1.5" or "2e3", surrounding blanks allowed; not "", "N/A", "0x10", "Infinity". */
const NUMERIC_TEXT = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/** A number, or a string that plainly is one, as a number; anything else undefined. */
export function numberFrom(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !NUMERIC_TEXT.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** As `numberFrom`, for whole numbers only (ids, counts, ports). */
export function intFrom(value: unknown): number | undefined {
  const n = numberFrom(value);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

/*
 * The fallbacks cost a little on every field (each `.catch` is one more step), which adds up over
 * 10,000 offers. So each tolerant field may have a strict form that reads well-formed values to
 * the same result, and a list first validates with the record's strict twin (see `strictTwin`):
 * only when that fails does it read record by record with the fallbacks.
 */
const STRICT_FORM = new WeakMap<z.ZodType, z.ZodType>();
function withStrictForm<T extends z.ZodType>(tolerant: T, strict: z.ZodType): T {
  STRICT_FORM.set(tolerant, strict);
  return tolerant;
}

export const optNumber = z
  .number()
  .nullish()
  .catch((ctx) => numberFrom(ctx.value));
export const optInt = z
  .int()
  .nullish()
  .catch((ctx) => intFrom(ctx.value));
export const optString = z.string().nullish().catch(undefined);
export const optBool = z.boolean().nullish().catch(undefined);
/** Timestamps come as epoch seconds or as text, depending on the endpoint. */
export const optTime = z.union([z.number(), z.string()]).nullish().catch(undefined);
/**
 * `null` is meaningful for some fields (an instance still provisioning has status null), so such a
 * field of another type cannot be taken as unknown: it makes the record unreadable (see tolerantArray).
 */
export const nullableString = z
  .string()
  .nullish()
  .transform((v) => v ?? null);
/** A TCP port: 1-65535, also when sent as text ("22"); anything else unknown. */
export const optPort = z
  .unknown()
  .transform((v) => {
    const n = intFrom(v);
    return n !== undefined && n > 0 && n < 65_536 ? n : undefined;
  })
  .optional();

/** A field the extension depends on: a number, or a numeric string read as one (counts, prices). */
export const reqNumber = withStrictForm(
  z.number().or(
    z
      .string()
      .regex(NUMERIC_TEXT)
      .transform((v, ctx) => {
        const n = Number(v);
        if (!Number.isFinite(n)) ctx.issues.push({ code: 'custom', message: l10n.t('not a finite number'), input: v });
        return n;
      }),
  ),
  z.number(),
);
/** A record's id: an integer, or an integer sent as text. */
export const recordId = withStrictForm(
  z.int().or(
    z
      .string()
      .regex(/^\s*\d{1,15}\s*$/)
      .transform((v) => Number(v)),
  ),
  z.int(),
);

/**
 * A record schema's fast twin: the same object with each field in its strict form (a `.catch`
 * unwrapped). It accepts only values the tolerant schema reads to the same result, so where it
 * succeeds its output is the tolerant one's. Undefined for anything but a plain object schema.
 */
export function strictTwin(item: z.ZodType): z.ZodType | undefined {
  if (!(item instanceof z.ZodObject) || item.def.catchall !== undefined) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(item.shape as Record<string, z.ZodType>)) {
    shape[key] = STRICT_FORM.get(field) ?? (field instanceof z.ZodCatch ? (field.unwrap() as z.ZodType) : field);
  }
  return z.object(shape);
}

/** Accepts any successful answer: several deletes return a bare message string, others `{success}`. */
export const anyOk = z.unknown().transform(() => undefined);

// ---- Lists that survive an odd record --------------------------------------------------------------

function recordIdOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = intFrom((value as { id?: unknown }).id);
  return id !== undefined && id >= 0 ? id : undefined;
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
}

/** What was wrong with one value, in words that name types and never the value itself. */
function expectation(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  if (issue.code === 'invalid_union') {
    const first = issue.errors[0]?.[0];
    if (first && first.path.length === 0) return expectation(first);
  }
  if (issue.code === 'custom') return issue.message;
  return issue.code.replace(/_/g, ' ');
}

/** The value at a path, to say what type it had ("missing", "string"): never echoed itself. */
function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let here = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}

/** A reason that names the field and the expected type, and never echoes what the service sent. */
function reasonFor(index: number, value: unknown, error: z.ZodError): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return l10n.t('[{0}]: {1} instead of an object', index, kindOf(value));
  const issue = error.issues[0];
  if (!issue) return `[${index}]: unreadable`;
  const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
  const found = valueAt(value, issue.path);
  return `[${index}]${path}: ${expectation(issue)}, got ${found === undefined ? 'nothing' : kindOf(found)}`;
}

export interface TolerantOptions<T> {
  /** Makes the stand-in for a record that has a usable id but cannot be read otherwise; without it such records are left out. */
  byId?: (id: number) => T;
  /** A missing or null list: an empty list (the default) or an invalid answer. */
  missing?: 'empty' | 'invalid';
}

/**
 * Reads a list record by record: records that fail `item` are kept by id (`byId`) or left out, and
 * counted in the report `unreadableOf` returns. Well-formed lists are validated in one pass, as a
 * plain `z.array` would; the record-by-record pass runs only when that fails.
 */
function readRecords<T extends z.ZodType>(
  item: T,
  strict: z.ZodType,
  input: unknown[],
  options: TolerantOptions<z.output<T>>,
  places?: readonly number[],
): z.output<T>[] {
  const whole = strict.safeParse(input);
  if (whole.success) return whole.data as z.output<T>[];
  const out: z.output<T>[] = [];
  const report: Unreadable = { count: 0, listedById: 0, dropped: 0, reasons: [] };
  for (let i = 0; i < input.length; i++) {
    const value: unknown = input[i];
    const one = item.safeParse(value);
    if (one.success) {
      out.push(one.data);
      continue;
    }
    report.count++;
    if (report.reasons.length < MAX_REASONS) report.reasons.push(reasonFor(places?.[i] ?? i, value, one.error));
    const id = recordIdOf(value);
    if (id !== undefined && options.byId) {
      out.push(options.byId(id));
      report.listedById++;
    } else report.dropped++;
  }
  return withUnreadable(out, report);
}

/**
 * A list field that survives odd records (see `readRecords`). A missing or null list is empty
 * unless `missing` says otherwise; anything else that is not a list is still an invalid answer.
 */
export function tolerantArray<T extends z.ZodType>(item: T, options: TolerantOptions<z.output<T>> = {}) {
  const strict = z.array(strictTwin(item) ?? item);
  return z.unknown().transform((input, ctx): z.output<T>[] => {
    if ((input === null || input === undefined) && options.missing !== 'invalid') return [];
    if (Array.isArray(input)) return readRecords(item, strict, input, options);
    ctx.issues.push({ code: 'custom', message: l10n.t('expected a list, got {0}', kindOf(input)), input });
    return z.NEVER;
  });
}

/**
 * Reads some records of a list as `tolerantArray(item, options)` reads the whole: for a list read in
 * part (see listReuse.ts). `places` are the records' places in the whole list, which the reasons name.
 */
export function recordsReader<T extends z.ZodType>(item: T, options: TolerantOptions<z.output<T>> = {}) {
  const strict = z.array(strictTwin(item) ?? item);
  return (values: unknown[], places: readonly number[]): z.output<T>[] => readRecords(item, strict, values, options, places);
}

/**
 * Lists arrive either bare or wrapped in an envelope (`{"ssh_keys": [...]}`), depending on the
 * endpoint and its age; either way odd records are read as `tolerantArray` does.
 */
export function listOf<T extends z.ZodType>(item: T, envelope: string, options: TolerantOptions<z.output<T>> = {}) {
  const strict = z.array(strictTwin(item) ?? item);
  return z.unknown().transform((input, ctx): z.output<T>[] => {
    if (Array.isArray(input)) return readRecords(item, strict, input, options);
    const inner = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[envelope] : undefined;
    if (Array.isArray(inner)) return readRecords(item, strict, inner, options);
    if (typeof input === 'object' && input !== null && (inner === null || inner === undefined) && options.missing !== 'invalid') return [];
    ctx.issues.push({
      code: 'custom',
      message: l10n.t('expected a list or {{0}: [...]}', envelope),
      input,
      path: typeof input === 'object' && input !== null ? [envelope] : [],
    });
    return z.NEVER;
  });
}

/**
 * Logs a list's report as one warning, with the field paths and never the records. A poll repeats
 * the same list every few seconds, so an unchanged report is logged again only at debug level.
 */
export function logUnreadable(logger: Logger, action: string, list: readonly unknown[]): void {
  const report = unreadableOf(list);
  let last = lastReports.get(logger);
  if (!last) lastReports.set(logger, (last = new Map()));
  if (!report) {
    last.delete(action);
    return;
  }
  const line = `${action}: ${describeUnreadable(report)} (${report.reasons.join('; ')})`;
  if (last.get(action) === line) logger.debug(line);
  else logger.warn(`${line}; the rest of the list is shown`);
  last.set(action, line);
}
const lastReports = new WeakMap<Logger, Map<string, string>>();

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
