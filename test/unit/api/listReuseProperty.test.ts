// The instance list read in part (ListReuse) against one JSON.parse of the whole body, on generated
// answers: two or three polls of a list whose records stay, move, change (their clock fields alone,
// or another field), leave, come in and repeat, with odd field values, unicode and escapes in
// strings and keys, numbers in every JSON form, blanks or none, each body cut into chunks at any
// byte (inside a multi-byte character and inside an escape included). Every answer must read to
// what the schema reads from JSON.parse of the whole body: the records, their unreadable report and
// the rest of the body.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as z from 'zod';
import { recordsReader } from '../../../src/core/api/fields';
import {
  INSTANCE_CLOCK_FIELDS,
  InstanceListSchema,
  InstanceSchema,
  unreadableInstance,
  type Instance,
} from '../../../src/core/api/instanceSchemas';
import { ListReuse } from '../../../src/core/api/listReuse';
import { unreadableOf } from '../../../src/core/api/unreadable';

const CASES = 200;
const utf8 = new TextDecoder();
const V0 = z.object({ instances: InstanceListSchema });

// ---- JSON text in every form ----

const digits = (min: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: 4 });
/** A JSON number as any writer may spell it: sign, leading zero, fraction, exponent in either case with or without a sign. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
  fc
    .record({
      minus: fc.boolean(),
      whole: fc.oneof(
        fc.constant('0'),
        fc.tuple(fc.constantFrom(...'123456789'), digits(0)).map(([a, b]) => a + b),
      ),
      fraction: fc.option(digits(1)),
      exponent: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1))),
    })
    .map((n) => `${n.minus ? '-' : ''}${n.whole}${n.fraction === null ? '' : `.${n.fraction}`}${n.exponent?.join('') ?? ''}`),
);

/** Text that is hard on a byte scanner: quotes, backslashes, brackets, multi-byte characters, line separators. */
const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '/', '{', '}', '[', ']', ',', ':', 'é', '日', '🚀', '\u2028', '\n', '\u0000', 'a', '0'),
    maxLength: 12,
  }),
);

/** A JSON string for `s`: plain, every character not ASCII escaped (surrogate pairs as two escapes), or every other one, in either case. */
function stringText(s: string, mode: number): string {
  if (mode === 0) return JSON.stringify(s);
  let out = '"';
  let k = 0;
  for (const unit of s.split('')) {
    const code = unit.charCodeAt(0);
    const escape =
      mode === 1 ? code > 126 || unit === '"' || unit === '\\' || code < 32 : k++ % 2 === 0 || code < 32 || unit === '"' || unit === '\\';
    if (unit === '/' && mode === 2) out += '\\/';
    else if (escape) {
      const hex = code.toString(16).padStart(4, '0');
      out += `\\u${mode === 1 ? hex : hex.toUpperCase()}`;
    } else out += unit;
  }
  return out + '"';
}
const stringOf = (text: fc.Arbitrary<string>) => fc.tuple(text, fc.integer({ min: 0, max: 2 })).map(([s, mode]) => stringText(s, mode));

const { value: valueText } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText,
    stringOf(oddText),
    fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc.array(fc.tuple(stringOf(oddText), tie('value')), { maxLength: 3 }).map((kv) => `{${kv.map(([k, v]) => `${k}:${v}`).join(',')}}`),
  ),
}));

// ---- instance records, as [key, value] texts ----

type Field = readonly [string, string];
interface Rec {
  id: number;
  /** The id's own field apart: the record's other fields, in their order. */
  idText: string | undefined;
  fields: Field[];
}

const key = (name: string) => JSON.stringify(name);
const clockField = fc.tuple(
  fc.constantFrom(...INSTANCE_CLOCK_FIELDS),
  fc.oneof({ weight: 4, arbitrary: numberText }, { weight: 1, arbitrary: valueText }),
);
const otherField: fc.Arbitrary<Field> = fc.oneof(
  fc.tuple(
    fc.constant(key('actual_status')),
    fc.oneof(fc.constantFrom('"running"', '"stopped"', '"loading"', 'null', '7'), stringOf(oddText)),
  ),
  fc.tuple(fc.constant(key('label')), fc.oneof(stringOf(oddText), valueText)),
  {
    weight: 3,
    arbitrary: fc.tuple(
      fc.constantFrom(key('ssh_port'), key('gpu_util'), key('start_date'), key('dph_total'), key('num_gpus')),
      fc.oneof({ weight: 3, arbitrary: numberText }, { weight: 1, arbitrary: valueText }),
    ),
  },
  fc.tuple(fc.constant(key('ports')), valueText),
  // Unknown keys, a clock field's name escaped among them (not a clock field to a byte scanner).
  fc.tuple(fc.oneof(stringOf(oddText), fc.constant('"dur\\u0061tion"')), valueText),
);
const idText = (id: number) =>
  fc.constantFrom(String(id), `${id}.0`, `${id}e0`, `${id * 10}E-1`, `${id}.000e+0`, `"${id}"`) as fc.Arbitrary<string>;

function recordArb(id: number): fc.Arbitrary<Rec> {
  return fc.record({
    id: fc.constant(id),
    // Rarely none: a record without an id is left out of the list, which only the usual reading does.
    idText: fc.oneof({ weight: 200, arbitrary: idText(id) }, { weight: 1, arbitrary: fc.constant(undefined) }),
    fields: fc.array(
      fc.oneof({ weight: 2, arbitrary: clockField.map(([k, v]): Field => [key(k), v]) }, { weight: 3, arbitrary: otherField }),
      {
        maxLength: 7,
      },
    ),
  });
}

interface Format {
  colon: string;
  comma: string;
}
const recordText = (r: Rec, f: Format) => {
  const fields = r.idText === undefined ? r.fields : [...r.fields.slice(0, 1), [key('id'), r.idText] as Field, ...r.fields.slice(1)];
  return `{${fields.map(([k, v]) => `${k}${f.colon}${v}`).join(f.comma)}}`;
};
const bodyText = (records: Rec[], f: Format, envelope: Field[]) => {
  const list: Field = [key('instances'), `[${records.map((r) => recordText(r, f)).join(f.comma)}]`];
  const fields = [...envelope.slice(0, 1), list, ...envelope.slice(1)];
  return `{${fields.map(([k, v]) => `${k}${f.colon}${v}`).join(f.comma)}}`;
};

/** What becomes of a record of the first poll in the next one. */
type Op =
  | { kind: 'same' }
  | { kind: 'clock'; value: string }
  | { kind: 'value'; at: number; value: string }
  | { kind: 'change'; field: Field }
  | { kind: 'leave' }
  | { kind: 'twice' };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'same' as const }) },
  { weight: 3, arbitrary: numberText.map((value) => ({ kind: 'clock' as const, value })) },
  // One field's value in place, often a number for a number: the record's shape stays, only that value moves.
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.nat(), fc.oneof({ weight: 3, arbitrary: numberText }, { weight: 1, arbitrary: valueText }))
      .map(([at, value]) => ({ kind: 'value' as const, at, value })),
  },
  { weight: 1, arbitrary: otherField.map((field) => ({ kind: 'change' as const, field })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'leave' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'twice' as const }) },
);

const CLOCKS: ReadonlySet<string> = new Set(INSTANCE_CLOCK_FIELDS.map(key));

function next(records: Rec[], ops: Op[], added: Rec[], order: number[] | null): Rec[] {
  const out: Rec[] = [];
  records.forEach((r, k) => {
    const op = ops[k % ops.length] ?? { kind: 'same' };
    if (op.kind === 'leave') return;
    if (op.kind === 'twice') out.push(r, r);
    else if (op.kind === 'clock') out.push({ ...r, fields: r.fields.map(([fk, v]): Field => (CLOCKS.has(fk) ? [fk, op.value] : [fk, v])) });
    else if (op.kind === 'value') {
      const others = r.fields.flatMap(([fk], i) => (CLOCKS.has(fk) ? [] : [i]));
      const at = others.length > 0 ? others[op.at % others.length] : undefined;
      out.push({ ...r, fields: r.fields.map(([fk, v], i): Field => (i === at ? [fk, op.value] : [fk, v])) });
    } else if (op.kind === 'change') out.push({ ...r, fields: [...r.fields.slice(1), op.field] });
    else out.push(r);
  });
  out.push(...added);
  if (!order) return out;
  return out
    .map((r, k) => [r, order[k % order.length]! + k / 1e3] as const)
    .sort((a, b) => a[1] - b[1])
    .map(([r]) => r);
}

/** Where a body is cut: anywhere, at a multi-byte character's inner byte, or just past a backslash. */
const cutsArb = fc.record({
  every: fc.integer({ min: 0, max: 20 }),
  anywhere: fc.array(fc.nat(), { maxLength: 12 }),
  inside: fc.array(fc.nat(), { maxLength: 6 }),
});
function chunksOf(bytes: Uint8Array, cuts: { every: number; anywhere: number[]; inside: number[] }): Uint8Array[] {
  const at = new Set<number>();
  // One case in twenty is cut at every byte (a short body) or at every few bytes.
  if (cuts.every === 1 && bytes.length <= 1000) for (let i = 1; i < bytes.length; i++) at.add(i);
  if (cuts.every === 2) for (let i = 7; i < bytes.length; i += 7) at.add(i);
  for (const n of cuts.anywhere) at.add(n % (bytes.length + 1));
  const inner: number[] = [];
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80 || bytes[i - 1] === 92) inner.push(i);
  if (inner.length > 0) for (const n of cuts.inside) at.add(inner[n % inner.length]!);
  const sorted = [...at].filter((i) => i > 0 && i < bytes.length).sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const i of [...sorted, bytes.length]) {
    out.push(bytes.slice(from, i));
    from = i;
  }
  return out;
}

const reuseWith = (minRecords: number) =>
  new ListReuse<Instance>({
    key: 'instances',
    readFresh: recordsReader(InstanceSchema, { byId: unreadableInstance }),
    clockFields: INSTANCE_CLOCK_FIELDS,
    minRecords,
  });

describe(`the instance list read in part equals JSON.parse of the whole body (property, ${CASES} cases)`, function () {
  this.timeout(60_000);

  it('reads every generated poll, in every chunking, to what the schema reads from JSON.parse', () => {
    const counts = { polls: 0, records: 0, declined: 0, chunks: 0 };
    const poll = fc.record({
      ops: fc.array(opArb, { minLength: 1, maxLength: 16 }),
      added: fc.array(fc.nat({ max: 9 }), { maxLength: 4 }),
      order: fc.option(fc.array(fc.nat({ max: 100 }), { minLength: 1, maxLength: 16 }), { freq: 3 }),
      cuts: cutsArb,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 16 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => recordArb(k + 1)))),
        fc.array(recordArb(1_000), { minLength: 10, maxLength: 10 }),
        fc.record({ colon: fc.constantFrom(':', ': '), comma: fc.constantFrom(',', ', ') }),
        fc.array(fc.tuple(stringOf(oddText), valueText), { maxLength: 3 }),
        // Thresholds the lists cross (LIST_REUSE_MIN_RECORDS itself is held in listReuse.test.ts).
        fc.constantFrom(0, 1, 4, 8, 17),
        fc.array(poll, { minLength: 2, maxLength: 3 }),
        (first, spare, format, around, minRecords, polls) => {
          // A second "instances" key around the list is a case of its own (listReuse.test.ts).
          const envelope = around.filter(([k]) => JSON.parse(k) !== 'instances');
          const reuse = reuseWith(minRecords);
          let records: Rec[] = first;
          polls.forEach((p, k) => {
            if (k > 0) {
              const added = p.added.map((n, j) => ({ ...spare[n]!, id: 1_000 + 10 * k + j, idText: String(1_000 + 10 * k + j) }));
              records = k === 2 ? first : next(records, p.ops, added, p.order);
            }
            const bytes = new TextEncoder().encode(bodyText(records, format, envelope));
            const chunks = chunksOf(bytes, p.cuts);
            const whole = JSON.parse(utf8.decode(bytes)) as Record<string, unknown>;
            const expected = V0.parse(whole).instances;
            const got = reuse.read(chunks);
            counts.polls++;
            counts.chunks += chunks.length;
            counts.records += records.length;
            if (!got) {
              // Declined, the usual reading then reads it: only for a record without an id, which is left out.
              counts.declined++;
              assert.ok(records.some((r) => r.idText === undefined));
              return;
            }
            assert.deepStrictEqual(got.list, expected);
            assert.deepStrictEqual(unreadableOf(got.list), unreadableOf(expected));
            assert.deepStrictEqual(got.rest, { ...whole, instances: 0 });
          });
        },
      ),
      { numRuns: CASES },
    );
    // The generator reaches what it is for: records read in part, cut in many places, few declined.
    assert.ok(counts.records > CASES * 10, JSON.stringify(counts));
    assert.ok(counts.chunks > counts.polls * 5, JSON.stringify(counts));
    assert.ok(counts.declined < counts.polls / 4, JSON.stringify(counts));
  });
});
