/**
 * Numbers people type into boxes: a bid, a price ceiling, a disk size, a port, a count. Every such
 * box reads its text here, with one strict grammar, so that what a box accepts is exactly the plain
 * decimal number the user sees.
 *
 * JavaScript's `Number()` is not that: it reads `0x10` as 16, `0b1` as 1, `0o7` as 7, `1e3` as
 * 1000, `Infinity`, and an empty box as 0. A bid of `0x10` must not rent at $16/h. The grammar here
 * takes ASCII digits with at most one decimal point (`2`, `2.5`, `.5`, `5.`), surrounding
 * whitespace, and a leading `$` in money boxes (`$0.50`); nothing else: no sign, exponent, prefix,
 * underscore, thousands separator, or other script's digits.
 *
 * The offer query language has its own grammar (src/core/offers/query/numbers.ts): it is a filter
 * language that takes signs and exponents as the CLI does, and is just as closed to prefixes.
 *
 * A box's validator and its parser are one reading (`readBox`): the text a box lets through is the
 * number its caller gets, and text it refuses never becomes one. Pure text in and out, no Node: the
 * Offer Explorer's page uses it too.
 */
import { l10n } from './l10n';

/** ASCII digits with at most one decimal point, and at least one digit. */
const PLAIN_DECIMAL = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/** The number in `text` when it is a plain, finite, non-negative decimal (see the module's comment); undefined otherwise. */
export function readDecimal(text: string, options: { dollars?: boolean } = {}): number | undefined {
  let body = text.trim();
  if (options.dollars && body.startsWith('$')) body = body.slice(1).trimStart();
  if (!PLAIN_DECIMAL.test(body)) return undefined;
  const value = Number(body);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * A number as plain decimal text, never with an exponent (`1e-7` is `0.0000001`), so that the text
 * a box starts with reads back as the very same number (for a finite number of 0 or more; a
 * negative one keeps its sign, and NaN or an infinity reads as `String()` writes it).
 */
export function decimalText(value: number): string {
  const shortest = String(Math.abs(value));
  const m = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(shortest);
  const sign = value < 0 ? '-' : '';
  if (m === null) return sign + shortest;
  const digits = m[1]! + (m[2] ?? '');
  const pointAt = 1 + Number(m[3]); // digits before the decimal point
  if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
  return (
    sign +
    (pointAt >= digits.length ? digits + '0'.repeat(pointAt - digits.length) : `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`)
  );
}

/** What one box takes, and what it says about text it refuses. */
export interface NumberBox {
  /** The smallest number taken (unless `minExclusive`). */
  readonly min: number;
  /** The largest number taken. */
  readonly max: number;
  /** `min` itself is refused too (a price must be above $0). */
  readonly minExclusive?: boolean;
  /** Whole numbers only (counts, ports, GB). `3.0` is 3. */
  readonly integer?: boolean;
  /** A money box: a leading `$` is taken (`$0.50`). */
  readonly dollars?: boolean;
  /**
   * What to type, naming the bounds and an example ("Enter a whole number of GB between 1 and 500.").
   * Said for text that is not a number, and for a number the more specific messages do not cover.
   */
  readonly hint: string;
  /** Said for a number under the bounds, when it deserves its own sentence (a bid under the current minimum). */
  readonly tooLow?: string;
  /** Said for a number over the bounds. */
  readonly tooHigh?: string;
}

/** A box's text read: the number, or why it is refused. */
export type BoxReading =
  { readonly value: number; readonly problem?: undefined } | { readonly value?: undefined; readonly problem: string };

/** Whether a number (typed, or passed to a command) is within the box's bounds. */
export function checkInBox(value: number, box: NumberBox): BoxReading {
  if (!Number.isFinite(value)) return { problem: box.hint };
  if (value < box.min || (box.minExclusive === true && value === box.min)) return { problem: box.tooLow ?? box.hint };
  if (value > box.max) return { problem: box.tooHigh ?? box.hint };
  if (box.integer === true && !Number.isInteger(value)) return { problem: box.hint };
  return { value };
}

/** Reads a box's text: the grammar, then the bounds. */
export function readBox(text: string, box: NumberBox): BoxReading {
  const value = readDecimal(text, { dollars: box.dollars });
  return value === undefined ? { problem: box.hint } : checkInBox(value, box);
}

/** Why the box refuses `text`, or undefined when it takes it: an input box's `validateInput`. */
export function boxProblem(text: string, box: NumberBox): string | undefined {
  return readBox(text, box).problem;
}

/** The number a box takes from `text`; a RangeError with the box's message when it refuses it. */
export function boxValue(text: string, box: NumberBox): number {
  const reading = readBox(text, box);
  if (reading.problem !== undefined) throw new RangeError(reading.problem);
  return reading.value;
}

/** The most GB a disk or volume box takes when nothing smaller is known: 100 TB. */
export const MAX_DISK_GB = 100_000;

/** A disk or volume size: whole GB from 1 to `max`. */
export function gigabytesBox(max: number = MAX_DISK_GB): NumberBox {
  const top = Math.max(1, Math.floor(max));
  return { min: 1, max: top, integer: true, hint: l10n.t('Enter a whole number of GB between 1 and {0}.', top) };
}

/** A TCP port. */
export function portBox(): NumberBox {
  return { min: 1, max: 65_535, integer: true, hint: l10n.t('Enter a port number between 1 and 65535, such as 8888.') };
}

/** A whole number from `min` to `max`, such as a count of workers. */
export function wholeNumberBox(min: number, max: number): NumberBox {
  return { min, max, integer: true, hint: l10n.t('Enter a whole number between {0} and {1}.', min, max) };
}

/** A number from `min` to `max`, fractions allowed. */
export function decimalBox(min: number, max: number, example: string): NumberBox {
  return { min, max, hint: l10n.t('Enter a number between {0} and {1}, such as {2}.', min, max, example) };
}

/** An instance id: a whole number from 1. */
export function instanceIdBox(): NumberBox {
  return { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true, hint: l10n.t('An instance id is a whole number, such as 12345.') };
}
