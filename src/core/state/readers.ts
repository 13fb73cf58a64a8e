import { l10n } from '../l10n';
/**
 * Small readers for values kept in global state: each turns an unknown stored value into a typed
 * one or throws a `ReadError` naming where and why. They are written here rather than with zod
 * because stored state is read while the extension activates, and evaluating zod there costs
 * about 11 ms of the 20 ms activation budget; the API client, and zod with it, load on the first
 * request. Like zod's objects, an object reader keeps only the fields it names.
 */

/** Why a stored value could not be read: the path inside it, and what was wrong. Never the value itself. */
export class ReadError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || l10n.t('the value')}: ${problem}`);
  }
}

/** Reads `raw` as a T, or throws a ReadError; `path` says where `raw` sits in the stored value. */
export type Reader<T> = (raw: unknown, path?: string) => T;

/** The type a reader reads. */
export type ReadType<R> = R extends Reader<infer T> ? T : never;

const at = (path: string | undefined, key: string | number) => (path ? `${path}.${key}` : String(key));

export const string: Reader<string> = (raw, path = '') => {
  if (typeof raw !== 'string') throw new ReadError(path, l10n.t('expected a string'));
  return raw;
};

/** A finite number (not NaN, not ±Infinity). */
export const number: Reader<number> = (raw, path = '') => {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) throw new ReadError(path, l10n.t('expected a finite number'));
  return raw;
};

export const integer: Reader<number> = (raw, path = '') => {
  if (!Number.isInteger(raw)) throw new ReadError(path, l10n.t('expected an integer'));
  return raw as number;
};

/** One of the given strings. */
export function oneOf<const T extends string>(values: readonly T[]): Reader<T> {
  return (raw, path = '') => {
    if (typeof raw !== 'string' || !(values as readonly string[]).includes(raw)) {
      throw new ReadError(path, l10n.t('expected one of {0}', values.join(', ')));
    }
    return raw as T;
  };
}

/** A value a type guard accepts; `what` names it in the error. */
export function guarded<T>(is: (raw: unknown) => raw is T, what: string): Reader<T> {
  return (raw, path = '') => {
    if (!is(raw)) throw new ReadError(path, `expected ${what}`);
    return raw;
  };
}

/** Missing (undefined) reads as undefined; anything else must read. */
export function optional<T>(read: Reader<T>): Reader<T | undefined> {
  return (raw, path) => (raw === undefined ? undefined : read(raw, path));
}

/** null reads as null; anything else must read. */
export function nullable<T>(read: Reader<T>): Reader<T | null> {
  return (raw, path) => (raw === null ? null : read(raw, path));
}

/** Whatever cannot be read reads as `fallback` instead (zod's `.catch`): for a field that may fall back on its own. */
export function orElse<T>(read: Reader<T>, fallback: T): Reader<T> {
  return (raw, path) => {
    try {
      return read(raw, path);
    } catch (error) {
      if (error instanceof ReadError) return fallback;
      throw error;
    }
  };
}

/** An array whose every item reads. */
export function arrayOf<T>(read: Reader<T>): Reader<T[]> {
  return (raw, path = '') => {
    if (!Array.isArray(raw)) throw new ReadError(path, l10n.t('expected a list'));
    return raw.map((item, i) => read(item, at(path, i)));
  };
}

/** An array of which only the items that read are kept: one damaged entry does not cost the rest. */
export function readableItems<T>(read: Reader<T>): Reader<T[]> {
  return (raw, path = '') => {
    if (!Array.isArray(raw)) throw new ReadError(path, l10n.t('expected a list'));
    return raw.flatMap((item, i) => {
      try {
        return [read(item, at(path, i))];
      } catch (error) {
        if (error instanceof ReadError) return [];
        throw error;
      }
    });
  };
}

function isPlainObject(raw: unknown): raw is Record<string, unknown> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw);
}

/** An object used as a map: every own key's value reads. */
export function recordOf<T>(read: Reader<T>): Reader<Record<string, T>> {
  return (raw, path = '') => {
    if (!isPlainObject(raw)) throw new ReadError(path, l10n.t('expected an object'));
    // fromEntries defines each key as data, so a stored "__proto__" key stays a plain entry.
    return Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, read(value, at(path, key))]));
  };
}

/**
 * An object with the named fields, each read by its reader; other fields are dropped. A field whose
 * reader gives undefined (an optional one that is missing) is left out rather than set to undefined.
 */
export function objectOf<S extends Record<string, Reader<unknown>>>(shape: S): Reader<{ [K in keyof S]: ReadType<S[K]> }> {
  return (raw, path = '') => {
    if (!isPlainObject(raw)) throw new ReadError(path, l10n.t('expected an object'));
    const out: Record<string, unknown> = {};
    for (const [key, read] of Object.entries(shape)) {
      const value = read(Object.hasOwn(raw, key) ? raw[key] : undefined, at(path, key));
      if (value !== undefined) out[key] = value;
    }
    return out as { [K in keyof S]: ReadType<S[K]> };
  };
}

/** A value read, then changed (e.g. checked further, or cleaned). */
export function mapped<T, U>(read: Reader<T>, change: (value: T) => U): Reader<U> {
  return (raw, path) => change(read(raw, path));
}
