/**
 * Reads offer query text into clauses, `field op value`, each part with its position in the text. It
 * knows the operators and how values are quoted and listed, but not what any field or value means:
 * that is parse.ts's job.
 */
import type { FilterOp } from '../../api/offerQuery';
import { l10n } from '../../l10n';

/**
 * A query the parser cannot read. `position` is the 0-based offset of the problem in the text and
 * `length` how many characters it covers; the message gives the 1-based `column`.
 */
export class OfferQueryError extends Error {
  readonly position: number;
  readonly length: number;
  /** `position + 1`, as the message shows it. */
  readonly column: number;
  /** The message without the column prefix. */
  readonly problem: string;

  constructor(problem: string, position: number, length = 1) {
    super(l10n.t('at column {0}: {1}', position + 1, problem));
    this.name = 'OfferQueryError';
    this.position = position;
    this.length = length;
    this.column = position + 1;
    this.problem = problem;
  }
}

const SYMBOL_OPS: ReadonlyMap<string, FilterOp> = new Map([
  ['<', 'lt'],
  ['<=', 'lte'],
  ['=', 'eq'],
  ['==', 'eq'],
  ['!=', 'neq'],
  ['>=', 'gte'],
  ['>', 'gt'],
]);

const WORD_OPS: ReadonlyMap<string, FilterOp> = new Map([
  ['eq', 'eq'],
  ['neq', 'neq'],
  ['noteq', 'neq'],
  ['gt', 'gt'],
  ['gte', 'gte'],
  ['lt', 'lt'],
  ['lte', 'lte'],
  ['in', 'in'],
  ['notin', 'notin'],
  ['nin', 'notin'],
]);

const OPERATOR_HINT = l10n.t('(use one of = != < <= > >= in notin)');

const FIELD_AT = /[A-Za-z_]\w*/y;
const SYMBOLS_AT = /[<>=!]+/y;
const WORD_AT = /\w+/y;
const WHITESPACE = /\s/;

/** A piece of the text and where it is: `start` inclusive, `end` exclusive, 0-based. */
export interface Token {
  text: string;
  start: number;
  end: number;
}

/** One value: a bare word as typed, or a double-quoted string with its escapes undone. */
export interface ScalarToken extends Token {
  kind: 'bare' | 'quoted';
}

/** `[a, b, "c d"]`; `text` is the whole list as typed. */
export interface ListToken extends Token {
  kind: 'list';
  items: ScalarToken[];
}

/** The value of a clause. */
export type ValueToken = ScalarToken | ListToken;

/** One condition or setting, `field op value`, before anything knows what the field means. */
export interface Clause {
  field: Token;
  op: FilterOp;
  opToken: Token;
  value: ValueToken;
}

/** A cursor over the text that reads one clause at a time and throws where it cannot. */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  get atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  isSpaceAt(i: number): boolean {
    const c = this.text[i];
    return c !== undefined && WHITESPACE.test(c);
  }

  /** Skips whitespace; tells whether there was any. */
  skipSpace(): boolean {
    const from = this.pos;
    while (this.isSpaceAt(this.pos)) this.pos++;
    return this.pos > from;
  }

  match(re: RegExp): Token | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m === null) return undefined;
    const start = this.pos;
    this.pos += m[0].length;
    return { text: m[0], start, end: this.pos };
  }

  /** The run of non-space characters from `from`, for error messages. */
  wordAt(from: number): string {
    let end = from;
    while (end < this.text.length && !this.isSpaceAt(end)) end++;
    return this.text.slice(from, end);
  }

  clause(): Clause {
    const field = this.match(FIELD_AT);
    if (field === undefined) {
      const found = this.wordAt(this.pos);
      throw new OfferQueryError(l10n.t("expected a field name, found '{0}'", found), this.pos, found.length);
    }
    const [op, opToken] = this.operator(field);
    const spaced = this.skipSpace();
    if (this.atEnd)
      throw new OfferQueryError(l10n.t("missing value after '{0}'", opToken.text), opToken.start, opToken.end - opToken.start);
    const c = this.text[this.pos];
    let value: ValueToken;
    if (c === '[') value = this.list();
    else if (c === '"') value = this.quoted();
    else value = this.bare(opToken, spaced);
    if (value.kind !== 'bare' && !this.atEnd && !this.isSpaceAt(this.pos)) {
      const what = value.kind === 'list' ? "']'" : l10n.t('the closing quote');
      throw new OfferQueryError(l10n.t("expected a space after {0}, found '{1}'", what, this.text[this.pos] ?? ''), this.pos, 1);
    }
    return { field, op, opToken, value };
  }

  operator(field: Token): [FilterOp, Token] {
    const spaced = this.skipSpace();
    if (this.atEnd) {
      throw new OfferQueryError(
        l10n.t("'{0}' needs an operator and a value, e.g. {1}=... {2}", field.text, field.text, OPERATOR_HINT),
        field.start,
        field.end - field.start,
      );
    }
    const symbols = this.match(SYMBOLS_AT);
    if (symbols !== undefined) {
      const op = SYMBOL_OPS.get(symbols.text);
      if (op === undefined) throw unknownOperator(symbols);
      return [op, symbols];
    }
    const word = spaced ? this.match(WORD_AT) : undefined;
    if (word !== undefined) {
      const lower = word.text.toLowerCase();
      if (lower === 'not') {
        const save = this.pos;
        if (this.skipSpace()) {
          const next = this.match(WORD_AT);
          const nextLower = next?.text.toLowerCase();
          if (next !== undefined && (nextLower === 'in' || nextLower === 'eq')) {
            const token = { text: this.text.slice(word.start, next.end), start: word.start, end: next.end };
            return [nextLower === 'in' ? 'notin' : 'neq', token];
          }
        }
        this.pos = save;
        throw unknownOperator(word);
      }
      const op = WORD_OPS.get(lower);
      if (op === undefined) throw unknownOperator(word);
      return [op, word];
    }
    // Something else right after the field, e.g. `num_gpus:2` or `gpu_name"x"`.
    const start = this.pos;
    const rest = this.wordAt(start);
    const junk = /^[^\w"[\]]+/.exec(rest)?.[0] ?? rest.slice(0, 1);
    throw unknownOperator({ text: junk, start, end: start + junk.length });
  }

  /** A double-quoted string; `\"` and `\\` are escapes, any other backslash is literal. */
  quoted(): ScalarToken {
    const start = this.pos;
    let text = '';
    let i = start + 1;
    for (;;) {
      const c = this.text[i];
      if (c === undefined) throw new OfferQueryError(l10n.t('unterminated quote: add the closing "'), start, 1);
      if (c === '"') break;
      if (c === '\\' && (this.text[i + 1] === '"' || this.text[i + 1] === '\\')) {
        text += this.text[i + 1];
        i += 2;
        continue;
      }
      text += c;
      i++;
    }
    this.pos = i + 1;
    return { kind: 'quoted', text, start, end: this.pos };
  }

  bare(opToken: Token, spaced: boolean): ScalarToken {
    const start = this.pos;
    const text = this.wordAt(start);
    this.pos += text.length;
    const stray = /["[\]]/.exec(text);
    if (stray !== null) {
      throw new OfferQueryError(
        l10n.t("unexpected '{0}' in value '{1}' (put the whole value in double quotes)", stray[0], text),
        start + stray.index,
        1,
      );
    }
    const opChar = /[<>=]/.exec(text);
    if (opChar !== null) {
      // `num_gpus>= verified=true`: the value is missing and the next condition got read as one.
      if (spaced && /^[A-Za-z_]\w*[<>=!]/.test(text)) {
        throw new OfferQueryError(l10n.t("missing value after '{0}'", opToken.text), opToken.start, opToken.end - opToken.start);
      }
      throw new OfferQueryError(
        l10n.t("unexpected '{0}' in value '{1}' (separate conditions with spaces, or quote the value)", opChar[0], text),
        start + opChar.index,
        1,
      );
    }
    return { kind: 'bare', text, start, end: this.pos };
  }

  /** `[a, b, "c d"]`: comma-separated items, spaces around them ignored. */
  list(): ListToken {
    const start = this.pos;
    const items: ScalarToken[] = [];
    const unterminated = () => new OfferQueryError(l10n.t("unterminated list: add the closing ']'"), start, 1);
    this.pos++;
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { kind: 'list', items, text: this.text.slice(start, this.pos), start, end: this.pos };
    }
    for (;;) {
      this.skipSpace();
      const c = this.text[this.pos];
      if (c === undefined) throw unterminated();
      let item: ScalarToken;
      if (c === '"') {
        item = this.quoted();
        this.skipSpace();
      } else {
        const itemStart = this.pos;
        while (this.pos < this.text.length && !',]"['.includes(this.text[this.pos] ?? '')) this.pos++;
        const raw = this.text.slice(itemStart, this.pos);
        const stop = this.text[this.pos];
        if (stop === '"' || stop === '[') {
          throw new OfferQueryError(l10n.t("unexpected '{0}' in a list item (quote the whole item)", stop), this.pos, 1);
        }
        if (stop === undefined) throw unterminated();
        const text = raw.trimEnd();
        if (text === '') throw new OfferQueryError(l10n.t('empty item in list'), this.pos, 1);
        item = { kind: 'bare', text, start: itemStart, end: itemStart + text.length };
      }
      items.push(item);
      const next = this.text[this.pos];
      if (next === undefined) throw unterminated();
      this.pos++;
      if (next === ']') break;
      if (next !== ',') throw new OfferQueryError(l10n.t("expected ',' or ']' in list, found '{0}'", next), this.pos - 1, 1);
    }
    return { kind: 'list', items, text: this.text.slice(start, this.pos), start, end: this.pos };
  }
}

function unknownOperator(token: Token): OfferQueryError {
  return new OfferQueryError(l10n.t("unknown operator '{0}' {1}", token.text, OPERATOR_HINT), token.start, token.end - token.start);
}

/**
 * The clauses of `text`, one at a time, so that a caller that rejects a clause stops before a later
 * syntax error is found (the first problem in the text is the one reported).
 * Throws OfferQueryError where the text cannot be read.
 */
export function* readClauses(text: string): Generator<Clause, void, undefined> {
  const reader = new Reader(text);
  reader.skipSpace();
  while (!reader.atEnd) {
    yield reader.clause();
    reader.skipSpace();
  }
}
