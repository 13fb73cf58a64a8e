/**
 * What the offer query parser and printer agree on: the words that drop a filter, the operators that
 * take a list, the default offer type, the bounds of the search settings, and what an unquoted value
 * means. The printer reads back what it writes with the same `readBare`, so both sides cannot drift.
 */
import type { FilterOp, FilterScalar, OfferFilters, OfferType } from '../../api/offerQuery';
import { DRIVER_VERSION_FIELD, UNIT_FACTORS } from './fields';
import { parseScaledDecimal } from './numbers';
import { l10n } from '../../l10n';

export interface QueryOptions {
  /** Filters applied before the text, in API units (e.g. verified=true rentable=true external=false rented=false). */
  defaults?: OfferFilters;
}

export const LIST_OPS: ReadonlySet<FilterOp> = new Set<FilterOp>(['in', 'notin']);

/** `field=any` (or `*`, `?`) drops the filter on that field. */
export const ANY_WORDS: ReadonlySet<string> = new Set(['any', '*', '?']);

export const DEFAULT_TYPE: OfferType = 'on-demand';

/** The most offers one search may ask for with `limit=`. */
export const MAX_OFFER_LIMIT = 1000;
/** The largest disk `allocated_storage=` may price in, in GB. */
export const MAX_ALLOCATED_STORAGE_GB = 100_000;

const DRIVER_VERSION = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export type BareValue = { ok: true; value: FilterScalar } | { ok: false; problem: string };

/** What an unquoted value means for `field`: booleans, null, numbers (in API units) or a string. */
export function readBare(text: string, field: string): BareValue {
  switch (text) {
    case 'true':
    case 'True':
      return { ok: true, value: true };
    case 'false':
    case 'False':
      return { ok: true, value: false };
    case 'None':
    case 'null':
      return { ok: true, value: null };
  }
  if (field === DRIVER_VERSION_FIELD) {
    const m = DRIVER_VERSION.exec(text);
    if (m !== null) return { ok: true, value: Number(m[1]) * 1_000_000 + Number(m[2]) * 1_000 + Number(m[3]) };
  }
  const number = parseScaledDecimal(text, UNIT_FACTORS.get(field) ?? 1n);
  if (number !== undefined) {
    return Number.isFinite(number) ? { ok: true, value: number } : { ok: false, problem: l10n.t("number '{0}' is too large", text) };
  }
  return { ok: true, value: text.replaceAll('_', ' ') };
}

/** An own property only, so `__proto__` and `constructor` read as absent. */
export function getOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
