import assert from 'node:assert/strict';
import {
  ReadError,
  arrayOf,
  integer,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  orElse,
  readableItems,
  recordOf,
  string,
} from '../../../src/core/state/readers';
import { readPendingRent } from '../../../src/core/rent/journal';

/** The error a reader throws for `raw`, as the log would show it. */
function problem(read: (raw: unknown) => unknown, raw: unknown): string {
  try {
    read(raw);
  } catch (error) {
    assert.ok(error instanceof ReadError, 'a ReadError, not another kind');
    return error.message;
  }
  assert.fail('the value was read');
}

describe('stored-state readers', () => {
  it('read the scalars they name, and refuse NaN, infinities and the wrong type', () => {
    assert.equal(string('x'), 'x');
    assert.equal(number(1.5), 1.5);
    assert.equal(integer(3), 3);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '1', null]) assert.match(problem(number, bad), /expected a finite number/);
    assert.match(problem(integer, 1.5), /expected an integer/);
    assert.equal(oneOf(['sending', 'uncertain'])('uncertain'), 'uncertain');
    assert.match(problem(oneOf(['sending', 'uncertain']), 'sent'), /expected one of sending, uncertain/);
  });

  it('say where inside the value the problem is, never what the value was', () => {
    const read = objectOf({ lease: objectOf({ owner: string, until: number }), before: arrayOf(number) });
    assert.equal(problem(read, { lease: { owner: 'w', until: 'secret-ish' }, before: [] }), 'lease.until: expected a finite number');
    assert.equal(problem(read, { lease: { owner: 'w', until: 1 }, before: [1, 'x'] }), 'before.1: expected a finite number');
    assert.equal(problem(read, 'hello'), 'the value: expected an object');
  });

  it('keep only the named fields of an object, and leave a missing optional field out', () => {
    const read = objectOf({ id: number, note: optional(string), machine: optional(nullable(number)) });
    assert.deepEqual(read({ id: 1, extra: true }), { id: 1 });
    assert.deepEqual(read({ id: 1, note: 'n', machine: null }), { id: 1, note: 'n', machine: null });
    assert.ok(!Object.hasOwn(read({ id: 1 }), 'note'));
  });

  it('keep the readable items of a list and drop the others; a strict list refuses any bad item', () => {
    assert.deepEqual(readableItems(objectOf({ id: integer }))([{ id: 1 }, { id: 'x' }, null, { id: 3 }]), [{ id: 1 }, { id: 3 }]);
    assert.match(problem(arrayOf(string), ['a', 2]), /^1: expected a string/);
    assert.match(problem(readableItems(string), { 0: 'a' }), /expected a list/);
  });

  it('fall back on a field alone with orElse, and read maps of maps', () => {
    const read = objectOf({ query: orElse(string, ''), sort: orElse(oneOf(['value', 'price']), 'value') });
    assert.deepEqual(read({ query: 42, sort: 'price' }), { query: '', sort: 'price' });
    assert.deepEqual(recordOf(recordOf(number))({ 'https://a': { fp: 7 } }), { 'https://a': { fp: 7 } });
    assert.match(problem(recordOf(number), { a: 1, b: 'x' }), /^b: expected a finite number/);
    assert.match(problem(recordOf(number), [1]), /expected an object/);
    const odd = recordOf(number)(JSON.parse('{"__proto__": 3, "a": 1}'));
    assert.deepEqual(Object.keys(odd), ['__proto__', 'a'], 'a stored "__proto__" key stays an entry');
    assert.equal(Object.getPrototypeOf(odd), Object.prototype);
  });

  it('read a rent journal entry as it is written, and refuse one without its lease', () => {
    const entry = {
      label: 'gpu-rental-1a2b',
      offerId: 7,
      machineId: null,
      description: 'RTX 4090 in NL',
      perHour: 0.4,
      profileId: 'default',
      baseUrl: 'https://console.vast.ai',
      before: [1, 2],
      sentAt: 1,
      state: 'uncertain',
      lease: { owner: 'w1', until: 2 },
    };
    assert.deepEqual(readPendingRent(entry), entry);
    assert.match(problem(readPendingRent, { ...entry, lease: undefined }), /^lease: expected an object/);
  });
});
