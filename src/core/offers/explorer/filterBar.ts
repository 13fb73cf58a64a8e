/**
 * The explorer's filter bar: each control edits one clause of the same query text the Offers view
 * searches with (through `withFilter`), and shows what the text says now. Values are typed in the
 * units people use (GB, $/h); the query holds the service's (MB).
 */
import { countryCode, DEFAULT_OFFER_FILTERS } from '../present';
import { parseQuery, withFilter } from '../search';
import { OfferQueryError } from '../query/parse';
import { printOfferQuery } from '../query/print';
import type { FieldFilter, FilterScalar, OfferQuery, OfferType } from '../../api/offerQuery';
import { formatDollars } from '../../format';
import { l10n } from '../../l10n';
import { boxProblem, boxValue, decimalText, type NumberBox } from '../../numbers';

export const FILTER_BAR_FIELDS = ['gpu', 'count', 'vram', 'price', 'reliability', 'verified', 'region', 'type'] as const;
export type FilterBarField = (typeof FILTER_BAR_FIELDS)[number];

/** What each control shows: text as typed, '' when the query has no such clause. */
export type FilterBarValues = Record<FilterBarField, string>;

/** The query field each control writes, and the operator it owns. */
const CLAUSES: Record<
  Exclude<FilterBarField, 'type' | 'verified' | 'region'>,
  { field: string; op: 'eq' | 'gte' | 'lte'; scale: number }
> = {
  gpu: { field: 'gpu_name', op: 'eq', scale: 1 },
  count: { field: 'num_gpus', op: 'gte', scale: 1 },
  vram: { field: 'gpu_ram', op: 'gte', scale: 1000 },
  price: { field: 'dph_total', op: 'lte', scale: 1 },
  reliability: { field: 'reliability', op: 'gte', scale: 1 },
};

export const FILTER_BAR_LABELS: Readonly<Record<FilterBarField, string>> = {
  gpu: l10n.t('GPU model'),
  count: l10n.t('GPUs at least'),
  vram: l10n.t('VRAM at least (GB)'),
  price: l10n.t('Price at most ($/h)'),
  reliability: l10n.t('Reliability at least (0..1)'),
  verified: 'Verified',
  region: l10n.t('Countries (US,CA)'),
  type: l10n.t('Rental type'),
};

function scalarText(v: FilterScalar | FilterScalar[] | undefined, scale: number): string {
  if (v === undefined || v === null || Array.isArray(v)) return '';
  if (typeof v === 'number') return decimalText(Math.round((v / scale) * 1e6) / 1e6);
  return String(v);
}

/** What the controls show for a parsed query. */
export function filterBarValues(query: OfferQuery): FilterBarValues {
  const out = {} as FilterBarValues;
  for (const [key, c] of Object.entries(CLAUSES) as Array<[keyof typeof CLAUSES, (typeof CLAUSES)[keyof typeof CLAUSES]]>) {
    out[key] = scalarText(query.filters[c.field]?.[c.op], c.scale);
  }
  const verified = query.filters['verified'];
  out.verified = verified === undefined ? 'any' : verified.eq === true ? 'yes' : verified.eq === false ? 'no' : 'any';
  const region = query.filters['geolocation'];
  const list = region?.in ?? (region?.eq === undefined ? undefined : [region.eq]);
  out.region = Array.isArray(list) ? list.map(String).join(',') : '';
  out.type = query.type;
  return out;
}

/** The controls that take a number, in the units people type. */
export type FilterBarNumberField = 'count' | 'vram' | 'price' | 'reliability';

/** The most GPUs, GB of VRAM per GPU, and $/h a filter takes: far over any machine, under a typing slip. */
const MAX_FILTER_GPUS = 128;
const MAX_FILTER_VRAM_GB = 1000;
const MAX_FILTER_PRICE = 1000;

/**
 * What a number control takes (src/core/numbers.ts); its message names the control. The Offers
 * view's filter editors ask through the same boxes.
 */
export function filterBarBox(field: FilterBarNumberField): NumberBox {
  switch (field) {
    case 'count':
      return {
        min: 1,
        max: MAX_FILTER_GPUS,
        integer: true,
        hint: l10n.t('GPUs at least: enter a whole number between 1 and {0}, such as 2.', MAX_FILTER_GPUS),
      };
    case 'vram':
      return {
        min: 0,
        minExclusive: true,
        max: MAX_FILTER_VRAM_GB,
        hint: l10n.t('VRAM at least: enter GB per GPU, above 0 and at most {0}, such as 24.', MAX_FILTER_VRAM_GB),
      };
    case 'price':
      return {
        min: 0,
        minExclusive: true,
        max: MAX_FILTER_PRICE,
        dollars: true,
        hint: l10n.t('Price at most: enter dollars per hour, above $0 and at most {0}, such as 1.50.', formatDollars(MAX_FILTER_PRICE)),
      };
    case 'reliability':
      return { min: 0, max: 1, hint: l10n.t('Reliability at least: enter a number between 0 and 1, such as 0.98.') };
  }
}

/** Why a number control refuses `text`, or undefined when it takes it; empty text is taken (it removes the clause). */
export function filterBarProblem(field: FilterBarNumberField, text: string): string | undefined {
  return text.trim() === '' ? undefined : boxProblem(text, filterBarBox(field));
}

/**
 * The query text with one control's value applied: '' removes the control's clause (for verified,
 * 'any' does). Other clauses and other operators of the same field are kept. Throws a RangeError
 * with a message for the user when the value cannot be read.
 */
export function applyFilterBar(text: string, field: FilterBarField, value: string): string {
  const query = parseQuery(text);
  const trimmed = value.trim();
  if (field === 'type') {
    if (trimmed !== 'on-demand' && trimmed !== 'bid' && trimmed !== 'reserved')
      throw new RangeError(l10n.t('Rental type: "{0}" is not one', trimmed));
    return printOfferQuery({ ...query, type: trimmed as OfferType }, { defaults: DEFAULT_OFFER_FILTERS });
  }
  if (field === 'verified') {
    const filter: FieldFilter | undefined = trimmed === 'yes' ? { eq: true } : trimmed === 'no' ? { eq: false } : undefined;
    return withFilter(text, 'verified', filter);
  }
  if (field === 'region') {
    const codes = trimmed
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((c) => countryCode(c) ?? c);
    if (codes.some((c) => !/^[A-Za-z]{2}$/.test(c))) throw new RangeError(l10n.t('Countries: write two-letter codes such as US,CA'));
    return withFilter(text, 'geolocation', codes.length === 0 ? undefined : { in: codes.map((c) => c.toUpperCase()) });
  }
  const c = CLAUSES[field];
  const rest: FieldFilter = { ...query.filters[c.field] };
  delete rest[c.op];
  if (trimmed === '') return withFilter(text, c.field, Object.keys(rest).length > 0 ? rest : undefined);
  const scalar: FilterScalar = field === 'gpu' ? trimmed.replaceAll('_', ' ') : boxValue(trimmed, filterBarBox(field)) * c.scale;
  return withFilter(text, c.field, { ...rest, [c.op]: scalar });
}

/** Why the query text cannot be read, with where, for the inline error; undefined when it reads. */
export function queryProblem(text: string): { message: string; start?: number; length?: number } | undefined {
  try {
    parseQuery(text);
    return undefined;
  } catch (error) {
    if (error instanceof OfferQueryError) return { message: error.message, start: error.position, length: error.length };
    return { message: error instanceof Error ? error.message : String(error) };
  }
}
