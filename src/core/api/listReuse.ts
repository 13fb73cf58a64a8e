/**
 * A long list answer read in part. The instance list of a large account is megabytes of JSON that
 * says, poll after poll, nearly the same thing: parsing and validating all of it on every poll
 * would cost the extension host about 100 ms at 5,000 instances (`npm run bench`, "Scale"). This
 * reads the answer's bytes as they came, chunk by chunk (never the whole as one string, nor as one
 * buffer: a record that straddles two chunks is the only thing copied), recognises each record
 * whose bytes are the same as in the previous answer (by a SHA-256 digest of them, so the previous
 * answer is not kept) and hands back the record read from them then, the very same object; only
 * the records whose bytes changed are decoded, parsed and validated, as the list's schema reads them.
 * A short list is read whole, with one `JSON.parse`, and nothing is kept: below LIST_REUSE_MIN_RECORDS
 * (src/core/scale.ts) that is under a millisecond, and the reuse would save less than that.
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
import {
  CLOSE,
  CLOSE_LIST,
  COLON,
  COMMA,
  copyBytes,
  equalAt,
  joined,
  nestedEnd,
  numberEnd,
  OPEN,
  OPEN_LIST,
  QUOTE,
  skipBlank,
  stringEnd,
  valueEnd,
  Window,
  ZERO,
} from './jsonBytes';
import { unreadableOf, withUnreadable } from './unreadable';
import { LIST_REUSE_MIN_RECORDS } from '../scale';

export interface ListReuseOptions<T> {
  /** The answer's key that holds the list: `instances`. */
  key: string;
  /** Reads fresh records as the list's schema does; `places` are their places in the whole list (see recordsReader). */
  readFresh: (values: unknown[], places: readonly number[]) => T[];
  /** Top-level fields of a record whose number values the service recomputes for every answer, and the schema does not read. */
  clockFields?: readonly string[];
  /**
   * The least records the previous answer held for this one to be read in part: below, the body is
   * read whole with one `JSON.parse`, and nothing is kept. LIST_REUSE_MIN_RECORDS unless told.
   */
  minRecords?: number;
}

/** What a quick read found: the list, and the rest of the body (the list's place holding 0). */
export interface QuickRead<T> {
  list: T[];
  rest: Record<string, unknown>;
}

interface Known<T> {
  record: T;
  /** Its place in the last answer that held it. */
  place: number;
  /** The read that last found it (see ListReuse.reads). */
  seen: number;
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

/** Room past a guessed record's old length for its clock values to have grown. */
const GUESS_SLACK = 256;

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
  /** Reads begun: a record found in this read is not handed out twice, and those not found are forgotten after it. */
  private reads = 0;
  /** The previous answer's layouts in order: where the next record probably ends. */
  private layouts: Layout[] = [];
  /** Where a record's stable form is put together for its digest. */
  private scratch = new Uint8Array(1 << 14);
  private readonly minRecords: number;
  /** Records in the last answer read (undefined before the first): whether the next one is read in part. */
  private lastCount: number | undefined;

  constructor(private readonly o: ListReuseOptions<T>) {
    const encoder = new TextEncoder();
    this.quotedKey = encoder.encode(JSON.stringify(o.key));
    this.clockKeys = (o.clockFields ?? []).map((f) => encoder.encode(JSON.stringify(f)));
    this.minRecords = o.minRecords ?? LIST_REUSE_MIN_RECORDS;
  }

  /**
   * The answer's list and the rest of its body, or undefined to leave the answer to the usual
   * reading. `chunks` are the body's bytes in order, as they came off the wire. The first answer is
   * read in part, to know its records for the next one (for a short list that costs well under a
   * millisecond, once); after it, an answer is read in part only when the last one held at least
   * `minRecords` records, and otherwise whole (see `plain`).
   */
  read(chunks: readonly Uint8Array[]): QuickRead<T> | undefined {
    if (this.lastCount !== undefined && this.lastCount < this.minRecords) return this.plain(chunks);
    const s = new Window(chunks);
    if (s.peek() !== OPEN) return undefined;
    s.pos++;
    let listAt = -1;
    let listEnd = -1;
    let found: Found<T> | undefined;
    if (s.peek() !== CLOSE) {
      for (;;) {
        if (s.peek() !== QUOTE) return undefined;
        const nameEnd = s.scan(stringEnd);
        if (nameEnd < 0) return undefined;
        const isList = equalAt(s.buf, s.pos, nameEnd, this.quotedKey);
        s.pos = nameEnd;
        if (s.peek() !== COLON) return undefined;
        s.pos++;
        const c = s.peek();
        if (isList) {
          if (found || c !== OPEN_LIST) return undefined;
          listAt = s.at();
          found = this.records(s);
          if (!found) return undefined;
          listEnd = s.at();
        } else {
          const end = s.scan(valueEnd);
          if (end < 0) return undefined;
          s.pos = end;
        }
        const next = s.peek();
        if (next === COMMA) {
          s.pos++;
          continue;
        }
        if (next === CLOSE) break;
        return undefined;
      }
    }
    if (!found) return undefined;
    // The rest is parsed as a whole, which also checks everything around the list. The list's place
    // holds 0: a later key of the same name (the last one wins in JSON.parse) shows as anything else.
    let rest: unknown;
    try {
      rest = JSON.parse(utf8.decode(joined(chunks, 0, listAt)) + '0' + utf8.decode(joined(chunks, listEnd, Infinity)));
    } catch {
      return undefined;
    }
    if (typeof rest !== 'object' || rest === null || (rest as Record<string, unknown>)[this.o.key] !== 0) return undefined;
    const list = this.finish(found);
    if (list) this.lastCount = list.length;
    return list && { list, rest: rest as Record<string, unknown> };
  }

  /**
   * The whole body with one `JSON.parse`, its records read as the list's schema reads them, and
   * nothing kept for the next answer. Undefined, as `read`, for anything but an object with a list
   * at the key (the usual reading then says what is wrong).
   */
  private plain(chunks: readonly Uint8Array[]): QuickRead<T> | undefined {
    let body: unknown;
    try {
      body = JSON.parse(utf8.decode(joined(chunks, 0, Infinity)));
    } catch {
      return undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const rest = body as Record<string, unknown>;
    const values: unknown = rest[this.o.key];
    if (!Array.isArray(values)) return undefined;
    const list = values.length > 0 ? this.o.readFresh(values, [...values.keys()]) : [];
    rest[this.o.key] = 0;
    this.known.clear();
    this.layouts = [];
    this.lastCount = values.length;
    return { list, rest };
  }

  /** Reads the list that opens where `s` stands: each record recognised, or parsed for `finish` to validate. Leaves `s` past its `]`. */
  private records(s: Window): Found<T> | undefined {
    const found: Found<T> = { read: ++this.reads, list: [], layouts: [], fresh: [], freshPlaces: [], freshDigests: [] };
    s.pos++;
    if (s.peek() === CLOSE_LIST) {
      s.pos++;
      return found;
    }
    let expect = 0;
    let misses = 0;
    for (let place = 0; ; place++) {
      if (s.peek() !== OPEN) return undefined;
      // Most records are where they were, as long as they were: one digest says whether this is one.
      const guess = misses < MISSES_BEFORE_SCANNING ? this.layouts[expect] : undefined;
      let span: Spanned | undefined;
      if (guess) {
        s.ensure(guess.length + GUESS_SLACK);
        span = this.guessed(s.buf, s.pos, guess);
        if (!span) misses++;
      }
      span ??= this.scanned(s);
      if (!span) return undefined;
      const bytes = s.buf;
      const digest = span.layout.digest;
      const before = this.known.get(digest);
      if (before && before.seen !== found.read) {
        found.list.push(before.record);
        expect = before.place + 1;
        before.place = place;
        before.seen = found.read;
        misses = 0;
      } else {
        let value: unknown;
        try {
          value = JSON.parse(utf8.decode(bytes.subarray(s.pos, span.end)));
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
      s.pos = span.end;
      const c = s.peek();
      if (c === COMMA) {
        s.pos++;
        continue;
      }
      if (c !== CLOSE_LIST) return undefined;
      s.pos++;
      return found;
    }
  }

  /**
   * The record that opens where `s` stands, read byte by byte: its end, and where its clock values
   * stand (top-level keys only, number or null values only). Undefined when it never closes.
   */
  private scanned(s: Window): Spanned | undefined {
    let cuts: number[] = [];
    const end = s.scan((bytes, start) => {
      cuts = [];
      return nestedEnd(bytes, start, (from, to) => {
        if (!this.isClockKey(bytes, from, to)) return;
        const colon = skipBlank(bytes, to);
        if (bytes[colon] !== COLON) return;
        const at = skipBlank(bytes, colon + 1);
        const valueEnd = numberEnd(bytes, at);
        if (valueEnd > at) cuts.push(at, valueEnd);
      });
    });
    return end < 0 ? undefined : this.spanOf(s.buf, s.pos, end, cuts);
  }

  /**
   * The record at `i` if its stable form is the one `was` describes: its clock values may differ
   * (and be of another length), nothing else. Undefined otherwise, and when `bytes` end before it does.
   * The stable form is put together as the clock values are found, and on a match `was` stands for it.
   */
  private guessed(bytes: Uint8Array, i: number, was: Layout): Spanned | undefined {
    if (was.clocks.length === 0) {
      const end = i + was.length;
      if (end > bytes.length || bytes[end - 1] !== CLOSE) return undefined;
      return digestOf(bytes.subarray(i, end)) === was.digest ? { end, layout: was } : undefined;
    }
    const stable = this.scratchOf(was.length);
    let from = i;
    let length = 0;
    for (const at of was.clocks) {
      // The clock value stands where its 0 stood in the stable form, moved by the values before it.
      const valueAt = from + at - length;
      const valueEnd = numberEnd(bytes, valueAt);
      if (valueEnd <= valueAt) return undefined;
      copyBytes(bytes, from, valueAt, stable, length);
      length = at;
      stable[length++] = ZERO;
      from = valueEnd;
    }
    const end = from + was.length - length;
    if (end > bytes.length || bytes[end - 1] !== CLOSE) return undefined;
    copyBytes(bytes, from, end, stable, length);
    return digestOf(stable.subarray(0, was.length)) === was.digest ? { end, layout: was } : undefined;
  }

  /** The record from `start` to `end` with the values between each pair of `cuts` written as 0. */
  private spanOf(bytes: Uint8Array, start: number, end: number, cuts: readonly number[]): Spanned {
    if (cuts.length === 0) return { end, layout: { digest: digestOf(bytes.subarray(start, end)), length: end - start, clocks: [] } };
    const stable = this.scratchOf(end - start);
    const clocks: number[] = [];
    let from = start;
    let length = 0;
    for (let k = 0; k < cuts.length; k += 2) {
      copyBytes(bytes, from, cuts[k]!, stable, length);
      length += cuts[k]! - from;
      clocks.push(length);
      stable[length++] = ZERO;
      from = cuts[k + 1]!;
    }
    copyBytes(bytes, from, end, stable, length);
    length += end - from;
    return { end, layout: { digest: digestOf(stable.subarray(0, length)), length, clocks } };
  }

  /** Where a record's stable form of up to `length` bytes is put together. */
  private scratchOf(length: number): Uint8Array {
    if (this.scratch.length < length) this.scratch = new Uint8Array(2 * length);
    return this.scratch;
  }

  private isClockKey(bytes: Uint8Array, from: number, to: number): boolean {
    for (const key of this.clockKeys) if (equalAt(bytes, from, to, key)) return true;
    return false;
  }

  /** Validates the fresh records in one pass and keeps what this answer said for the next one. */
  private finish(found: Found<T>): T[] | undefined {
    const { read: now, list, fresh, freshPlaces, freshDigests } = found;
    const known = this.known;
    const read = fresh.length > 0 ? this.o.readFresh(fresh, freshPlaces) : [];
    // A reader that leaves records out cannot be matched back to places: the usual reading does it.
    if (read.length !== fresh.length) return undefined;
    for (let k = 0; k < read.length; k++) {
      const record = read[k]!;
      const place = freshPlaces[k]!;
      list[place] = record;
      // A record that could not be read is read again each time, so that it is reported each time.
      if (!(record as { unreadable?: true }).unreadable) known.set(freshDigests[k]!, { record, place, seen: now });
    }
    // Records this answer did not hold are forgotten (deleting while iterating a Map is safe).
    for (const [digest, k] of known) if (k.seen !== now) known.delete(digest);
    this.layouts = found.layouts;
    return withUnreadable(list as T[], unreadableOf(read));
  }
}

interface Found<T> {
  /** Which read this is (ListReuse.reads). */
  read: number;
  list: Array<T | undefined>;
  layouts: Layout[];
  fresh: unknown[];
  freshPlaces: number[];
  freshDigests: string[];
}
