/**
 * JSON read as bytes, for a long answer read in part (listReuse.ts): the body's chunks as they came
 * off the wire, read front to back through a window of contiguous bytes, and scanners that find
 * where a string, a number, an object or any value ends without decoding it.
 */
import { Buffer } from 'node:buffer';

export const QUOTE = 34;
const BACKSLASH = 92;
export const OPEN = 123;
export const CLOSE = 125;
export const OPEN_LIST = 91;
export const CLOSE_LIST = 93;
export const COMMA = 44;
export const COLON = 58;
export const ZERO = 48;

/** The least a window grows by when what is scanned runs past it. */
const MIN_GROWTH = 1 << 14;
const EMPTY = new Uint8Array(0);

// Node 22 and newer copy natively here, making no view of the source (a subarray is one each time):
// thousands of copies a poll.
const bufferCopy = Buffer.prototype.copy as (this: Uint8Array, target: Uint8Array, at: number, from: number, to: number) => number;

/** Copies `source` from `from` up to `to` into `target` at `at`. */
export function copyBytes(source: Uint8Array, from: number, to: number, target: Uint8Array, at: number): void {
  if (to > from) bufferCopy.call(source, target, at, from, to);
}

/**
 * The body read front to back through a window of contiguous bytes: a chunk itself while what is
 * read lies inside one, else a copy of just the bytes that straddle chunks. `pos` is where reading
 * stands in `buf`; code that scans `buf` from `pos` gets a longer window from `ensure` or `scan`.
 */
export class Window {
  buf: Uint8Array = EMPTY;
  pos = 0;
  /** Where `buf` starts in the body. */
  private base = 0;
  /** Where each chunk starts in the body. */
  private readonly starts: number[] = [];
  private readonly size: number;
  /** The chunk that holds the byte reading last moved to: reading only goes forward. */
  private chunk = 0;

  constructor(private readonly chunks: readonly Uint8Array[]) {
    let at = 0;
    for (const c of chunks) {
      this.starts.push(at);
      at += c.length;
    }
    this.size = at;
  }

  /** Where reading stands in the whole body. */
  at(): number {
    return this.base + this.pos;
  }

  /** Whether `buf` holds the rest of the body. */
  private atEnd(): boolean {
    return this.base + this.buf.length >= this.size;
  }

  /** The first byte from `pos` on that is not blank (`pos` moved to it), or undefined at the body's end. */
  peek(): number | undefined {
    for (;;) {
      const bytes = this.buf;
      let i = this.pos;
      while (i < bytes.length) {
        const c = bytes[i]!;
        if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
          this.pos = i;
          return c;
        }
        i++;
      }
      this.pos = i;
      if (!this.ensure(1)) return undefined;
    }
  }

  /**
   * Makes `buf` hold `n` bytes from `pos` on (`buf` and `pos` may then be others for the same
   * byte), or all that is left of the body when fewer are: false then. The chunk that holds them
   * is the window itself; only bytes that straddle chunks are copied, into a window of their own.
   */
  ensure(n: number): boolean {
    if (this.buf.length - this.pos >= n) return true;
    const at = this.base + this.pos;
    const { chunks, starts } = this;
    while (this.chunk < chunks.length && starts[this.chunk]! + chunks[this.chunk]!.length <= at) this.chunk++;
    if (this.chunk >= chunks.length) {
      this.buf = EMPTY;
      this.base = at;
      this.pos = 0;
      return false;
    }
    const chunk = chunks[this.chunk]!;
    const offset = at - starts[this.chunk]!;
    if (chunk.length - offset >= n) {
      this.buf = chunk;
      this.base = starts[this.chunk]!;
      this.pos = offset;
      return true;
    }
    const out = new Uint8Array(Math.min(n, this.size - at));
    let filled = 0;
    for (let k = this.chunk; filled < out.length; k++) {
      const c = chunks[k]!;
      const from = k === this.chunk ? offset : 0;
      const take = Math.min(out.length - filled, c.length - from);
      copyBytes(c, from, from + take, out, filled);
      filled += take;
    }
    this.buf = out;
    this.base = at;
    this.pos = 0;
    return out.length === n;
  }

  /**
   * Just past what `end` finds from `pos` (in `buf`, as `ensure` may have moved it), or -1: `end`
   * is given longer windows while what it finds runs up to the window's end and more of the body is left.
   */
  scan(end: (bytes: Uint8Array, start: number) => number): number {
    for (;;) {
      const found = end(this.buf, this.pos);
      if ((found >= 0 && found < this.buf.length) || this.atEnd()) return found;
      this.ensure(2 * (this.buf.length - this.pos) + MIN_GROWTH);
    }
  }
}

/** The body's bytes from `from` up to `to` (or its end), in one piece. */
export function joined(chunks: readonly Uint8Array[], from: number, to: number): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const c of chunks) {
    const start = Math.max(from, at);
    const end = Math.min(to, at + c.length);
    if (end > start) parts.push(c.subarray(start - at, end - at));
    at += c.length;
  }
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
}

/** Whether the bytes from `from` to `to` are `word`. */
export function equalAt(bytes: Uint8Array, from: number, to: number, word: Uint8Array): boolean {
  if (to - from !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (bytes[from + k] !== word[k]) return false;
  return true;
}

export function skipBlank(bytes: Uint8Array, i: number): number {
  for (;;) {
    const c = bytes[i];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;

/** Just past the JSON number (or `null`) that starts at `i`; `i` itself when there is none. */
export function numberEnd(bytes: Uint8Array, i: number): number {
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
export function stringEnd(bytes: Uint8Array, i: number): number {
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
export function nestedEnd(bytes: Uint8Array, i: number, topString?: (from: number, to: number) => void): number {
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
export function valueEnd(bytes: Uint8Array, i: number): number {
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
