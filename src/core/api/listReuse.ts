/**
 * A long list answer read in part. The instance list of a large account is megabytes of JSON that
 * says, poll after poll, nearly the same thing: parsing and validating all of it on every poll
 * would cost the extension host about 100 ms at 5,000 instances (`npm run bench`, "Scale"). This
 * reads the answer's bytes as they came (never the whole as one string), recognises each record
 * whose bytes are the same as in the previous answer (by a SHA-256 digest of them, so the previous
 * answer is not kept) and hands back the record read from them then, the very same object; only
 * the records whose bytes changed are decoded, parsed and validated, as the list's schema reads them.
 *
 * Clock fields: the service recomputes some fields from its clock for every answer (an instance's
 * `duration`, `uptime_mins`, `client_run_time`, `host_run_time`, to the millisecond), so no record's
 * bytes are ever the same twice. Their number values are left out of the digest; the list's schema
 * must not read them (a unit test holds the instance schema to that).
 *
 * Anything it does not take for a plain `{"<key>": [{...}, ...], ...}` answer, or that fails to
 * parse, it leaves to the usual reading (undefined), which then says what is wrong: so an answer
 * reads to the same data, or the same error, either way.
 */
import * as crypto from 'node:crypto';
import { unreadableOf, withUnreadable } from './unreadable';

export interface ListReuseOptions<T> {
  /** The answer's key that holds the list: `instances`. */
  key: string;
  /** Reads fresh records as the list's schema does; `places` are their places in the whole list (see recordsReader). */
  readFresh: (values: unknown[], places: readonly number[]) => T[];
  /** Top-level fields of a record whose number values the service recomputes for every answer, and the schema does not read. */
  clockFields?: readonly string[];
}

/** What a quick read found: the list, and the rest of the body (the list's place holding 0). */
export interface QuickRead<T> {
  list: T[];
  rest: Record<string, unknown>;
}

interface Known<T> {
  record: T;
  /** Its place in the answer it was read from. */
  place: number;
}

/**
 * A record as the digest reads it ("stable form"): its bytes with each clock field's value written
 * as `0`. `clocks` are where those values stand in the stable form; `length` is its length.
 */
interface Layout {
  digest: string;
  length: number;
  clocks: number[];
}

/** A record found in this answer: just past its end, and its layout. */
interface Spanned {
  end: number;
  layout: Layout;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN = 123;
const CLOSE = 125;
const OPEN_LIST = 91;
const CLOSE_LIST = 93;
const COMMA = 44;
const COLON = 58;
const ZERO = 48;

/** After this many guesses in a row that missed (an answer in which everything moved), the reader stops guessing. */
const MISSES_BEFORE_SCANNING = 16;

// `crypto.hash` (Node 20.12 and newer) skips the stream object that `createHash` builds.
const hashOne = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'binary') => string }).hash;
const digestOf: (bytes: Uint8Array) => string = hashOne
  ? (bytes) => hashOne('sha256', bytes, 'binary')
  : (bytes) => crypto.createHash('sha256').update(bytes).digest('binary');
const utf8 = new TextDecoder();

export class ListReuse<T extends object> {
  private readonly quotedKey: Uint8Array;
  private readonly clockKeys: Uint8Array[];
  /** The records of the previous answer by the digest of their stable form (records read in full only). */
  private known = new Map<string, Known<T>>();
  /** The previous answer's layouts in order: where the next record probably ends. */
  private layouts: Layout[] = [];
  /** Where a record's stable form is put together for its digest. */
  private scratch = new Uint8Array(1 << 14);

  constructor(private readonly o: ListReuseOptions<T>) {
    const encoder = new TextEncoder();
    this.quotedKey = encoder.encode(JSON.stringify(o.key));
    this.clockKeys = (o.clockFields ?? []).map((f) => encoder.encode(JSON.stringify(f)));
  }

  /** The answer's list and the rest of its body, or undefined to leave the answer to the usual reading. */
  read(bytes: Uint8Array): QuickRead<T> | undefined {
    let i = skipBlank(bytes, 0);
    if (bytes[i] !== OPEN) return undefined;
    i = skipBlank(bytes, i + 1);
    let listAt = -1;
    let listEnd = -1;
    let found: Found<T> | undefined;
    if (bytes[i] !== CLOSE) {
      for (;;) {
        if (bytes[i] !== QUOTE) return undefined;
        const nameEnd = stringEnd(bytes, i);
        if (nameEnd < 0) return undefined;
        const isList = equalAt(bytes, i, nameEnd, this.quotedKey);
        i = skipBlank(bytes, nameEnd);
        if (bytes[i] !== COLON) return undefined;
        i = skipBlank(bytes, i + 1);
        if (isList) {
          if (found || bytes[i] !== OPEN_LIST) return undefined;
          listAt = i;
          found = this.records(bytes, i);
          if (!found) return undefined;
          i = listEnd = found.end;
        } else {
          i = valueEnd(bytes, i);
          if (i < 0) return undefined;
        }
        i = skipBlank(bytes, i);
        const c = bytes[i];
        if (c === COMMA) {
          i = skipBlank(bytes, i + 1);
          continue;
        }
        if (c === CLOSE) break;
        return undefined;
      }
    }
    if (!found) return undefined;
    // The rest is parsed as a whole, which also checks everything around the list. The list's place
    // holds 0: a later key of the same name (the last one wins in JSON.parse) shows as anything else.
    let rest: unknown;
    try {
      rest = JSON.parse(utf8.decode(bytes.subarray(0, listAt)) + '0' + utf8.decode(bytes.subarray(listEnd)));
    } catch {
      return undefined;
    }
    if (typeof rest !== 'object' || rest === null || (rest as Record<string, unknown>)[this.o.key] !== 0) return undefined;
    const list = this.finish(found);
    return list && { list, rest: rest as Record<string, unknown> };
  }

  /** Reads the list that opens at `open`: each record recognised, or parsed for `finish` to validate. */
  private records(bytes: Uint8Array, open: number): Found<T> | undefined {
    const found: Found<T> = { list: [], known: new Map(), layouts: [], fresh: [], freshPlaces: [], freshDigests: [], end: -1 };
    let i = skipBlank(bytes, open + 1);
    if (bytes[i] === CLOSE_LIST) {
      found.end = i + 1;
      return found;
    }
    let expect = 0;
    let misses = 0;
    for (let place = 0; ; place++) {
      if (bytes[i] !== OPEN) return undefined;
      // Most records are where they were, as long as they were: one digest says whether this is one.
      const guess = misses < MISSES_BEFORE_SCANNING ? this.layouts[expect] : undefined;
      let span = guess ? this.guessed(bytes, i, guess) : undefined;
      if (guess && !span) misses++;
      span ??= this.scanned(bytes, i);
      if (!span) return undefined;
      const digest = span.layout.digest;
      const before = this.known.get(digest);
      if (before && !found.known.has(digest)) {
        found.list.push(before.record);
        found.known.set(digest, { record: before.record, place });
        expect = before.place + 1;
        misses = 0;
      } else {
        let value: unknown;
        try {
          value = JSON.parse(utf8.decode(bytes.subarray(i, span.end)));
        } catch {
          return undefined;
        }
        found.list.push(undefined);
        found.fresh.push(value);
        found.freshPlaces.push(place);
        found.freshDigests.push(digest);
        expect++;
      }
      found.layouts.push(span.layout);
      i = skipBlank(bytes, span.end);
      const c = bytes[i];
      if (c === COMMA) {
        i = skipBlank(bytes, i + 1);
        continue;
      }
      if (c !== CLOSE_LIST) return undefined;
      found.end = i + 1;
      return found;
    }
  }

  /**
   * The record that opens at `start`, read byte by byte: its end, and where its clock values stand
   * (top-level keys only, number or null values only). Undefined when it never closes.
   */
  private scanned(bytes: Uint8Array, start: number): Spanned | undefined {
    const cuts: number[] = [];
    const end = nestedEnd(bytes, start, (from, to) => {
      if (!this.isClockKey(bytes, from, to)) return;
      const colon = skipBlank(bytes, to);
      if (bytes[colon] !== COLON) return;
      const at = skipBlank(bytes, colon + 1);
      const valueEnd = numberEnd(bytes, at);
      if (valueEnd > at) cuts.push(at, valueEnd);
    });
    return end < 0 ? undefined : this.spanOf(bytes, start, end, cuts);
  }

  /**
   * The record at `i` if its stable form is the one `was` describes: its clock values may differ
   * (and be of another length), nothing else. Undefined otherwise.
   */
  private guessed(bytes: Uint8Array, i: number, was: Layout): Spanned | undefined {
    if (was.clocks.length === 0) {
      const end = i + was.length;
      if (bytes[end - 1] !== CLOSE) return undefined;
      return digestOf(bytes.subarray(i, end)) === was.digest ? { end, layout: was } : undefined;
    }
    const cuts: number[] = [];
    let shift = 0;
    for (const at of was.clocks) {
      const valueAt = i + at + shift;
      const valueEnd = numberEnd(bytes, valueAt);
      if (valueEnd <= valueAt) return undefined;
      cuts.push(valueAt, valueEnd);
      shift += valueEnd - valueAt - 1;
    }
    const end = i + was.length + shift;
    if (bytes[end - 1] !== CLOSE) return undefined;
    const span = this.spanOf(bytes, i, end, cuts);
    return span.layout.digest === was.digest ? span : undefined;
  }

  /** The record from `start` to `end` with the values between each pair of `cuts` written as 0. */
  private spanOf(bytes: Uint8Array, start: number, end: number, cuts: readonly number[]): Spanned {
    if (cuts.length === 0) return { end, layout: { digest: digestOf(bytes.subarray(start, end)), length: end - start, clocks: [] } };
    if (this.scratch.length < end - start) this.scratch = new Uint8Array(2 * (end - start));
    const stable = this.scratch;
    const clocks: number[] = [];
    let from = start;
    let length = 0;
    for (let k = 0; k < cuts.length; k += 2) {
      stable.set(bytes.subarray(from, cuts[k]), length);
      length += cuts[k]! - from;
      clocks.push(length);
      stable[length++] = ZERO;
      from = cuts[k + 1]!;
    }
    stable.set(bytes.subarray(from, end), length);
    length += end - from;
    return { end, layout: { digest: digestOf(stable.subarray(0, length)), length, clocks } };
  }

  private isClockKey(bytes: Uint8Array, from: number, to: number): boolean {
    for (const key of this.clockKeys) if (equalAt(bytes, from, to, key)) return true;
    return false;
  }

  /** Validates the fresh records in one pass and keeps what this answer said for the next one. */
  private finish(found: Found<T>): T[] | undefined {
    const { list, known, fresh, freshPlaces, freshDigests } = found;
    const read = fresh.length > 0 ? this.o.readFresh(fresh, freshPlaces) : [];
    // A reader that leaves records out cannot be matched back to places: the usual reading does it.
    if (read.length !== fresh.length) return undefined;
    for (let k = 0; k < read.length; k++) {
      const record = read[k]!;
      const place = freshPlaces[k]!;
      list[place] = record;
      // A record that could not be read is read again each time, so that it is reported each time.
      if (!(record as { unreadable?: true }).unreadable) known.set(freshDigests[k]!, { record, place });
    }
    this.known = known;
    this.layouts = found.layouts;
    return withUnreadable(list as T[], unreadableOf(read));
  }
}

interface Found<T> {
  list: Array<T | undefined>;
  known: Map<string, Known<T>>;
  layouts: Layout[];
  fresh: unknown[];
  freshPlaces: number[];
  freshDigests: string[];
  /** Just past the list's `]`. */
  end: number;
}

/** Whether the bytes from `from` to `to` are `word`. */
function equalAt(bytes: Uint8Array, from: number, to: number, word: Uint8Array): boolean {
  if (to - from !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (bytes[from + k] !== word[k]) return false;
  return true;
}

function skipBlank(bytes: Uint8Array, i: number): number {
  for (;;) {
    const c = bytes[i];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;

/** Just past the JSON number (or `null`) that starts at `i`; `i` itself when there is none. */
function numberEnd(bytes: Uint8Array, i: number): number {
  if (bytes[i] === 110) return bytes[i + 1] === 117 && bytes[i + 2] === 108 && bytes[i + 3] === 108 ? i + 4 : i;
  let j = i;
  if (bytes[j] === 45) j++;
  if (bytes[j] === ZERO) j++;
  else if (isDigit(bytes[j])) while (isDigit(bytes[j])) j++;
  else return i;
  if (bytes[j] === 46) {
    if (!isDigit(bytes[j + 1])) return i;
    j++;
    while (isDigit(bytes[j])) j++;
  }
  if (bytes[j] === 101 || bytes[j] === 69) {
    let k = j + 1;
    if (bytes[k] === 43 || bytes[k] === 45) k++;
    if (!isDigit(bytes[k])) return i;
    while (isDigit(bytes[k])) k++;
    j = k;
  }
  return j;
}

/** Just past the string whose opening quote is at `i`, or -1 when it never closes. */
function stringEnd(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  for (let j = i + 1; j < n; j++) {
    const c = bytes[j];
    if (c === QUOTE) return j + 1;
    // A backslash escapes the byte after it (in UTF-8, no byte of a longer character is a quote).
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/**
 * Just past the object or list that opens at `i`, or -1 when it never closes. `topString` is told
 * where each string directly inside it stands (an object's keys, and its string values).
 */
function nestedEnd(bytes: Uint8Array, i: number, topString?: (from: number, to: number) => void): number {
  let depth = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i];
    if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      if (end < 0) return -1;
      if (depth === 1 && topString) topString(i, end);
      i = end;
      continue;
    }
    if (c === OPEN || c === OPEN_LIST) depth++;
    else if ((c === CLOSE || c === CLOSE_LIST) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/** Just past the value that starts at `i` (a number, true, false and null run up to a delimiter), or -1. */
function valueEnd(bytes: Uint8Array, i: number): number {
  const c = bytes[i];
  if (c === QUOTE) return stringEnd(bytes, i);
  if (c === OPEN || c === OPEN_LIST) return nestedEnd(bytes, i);
  let j = i;
  for (;;) {
    const d = bytes[j];
    if (d === undefined || d === COMMA || d === CLOSE || d === CLOSE_LIST || d === 32 || d === 10 || d === 13 || d === 9) break;
    j++;
  }
  return j > i ? j : -1;
}
