import assert from 'node:assert/strict';
import fc from 'fast-check';
import { serverlessFieldBox } from '../../src/core/account/serverless';
import { parseLink } from '../../src/core/links';
import {
  boxProblem,
  boxValue,
  checkInBox,
  decimalText,
  gigabytesBox,
  instanceIdBox,
  portBox,
  readBox,
  readDecimal,
  type NumberBox,
} from '../../src/core/numbers';
import { filterBarProblem } from '../../src/core/offers/explorer/filterBar';
import { parseScaledDecimal } from '../../src/core/offers/query/numbers';
import { rentDiskBox, UNLISTED_DISK_MAX_GB } from '../../src/core/rent/plan';
import { boundedNumber, NUMBER_RULES, spendCap } from '../../src/core/settings';
import { SETTINGS } from '../../src/core/ids';

/** Text JavaScript's Number() reads as a number, but that is not the plain decimal a person sees. */
const NOT_PLAIN = [
  '0x10',
  '0X10',
  '0b1',
  '0B1',
  '0o7',
  '0O7',
  '1e3',
  '1E3',
  '2e-1',
  '-1',
  '+1',
  '-0',
  'Infinity',
  '-Infinity',
  ' ',
  '',
  '\t\n',
];

/** Text a person might type that must be refused, not guessed at. */
const NOT_A_NUMBER = [
  'NaN',
  '1_000',
  '1,000',
  '1,5',
  '1 000',
  '1\u00a0000',
  '1.2.3',
  '.',
  '..5',
  '5..',
  '0x',
  '$1', // only a money box takes a dollar sign
  '1$',
  '½',
  '²',
  '\u0661\u0662', // Arabic-Indic digits
  '\u0031\u0663', // a digit, then an Arabic-Indic three
  '\uff11\uff12', // full-width digits
  '\u0966', // Devanagari zero
  '12abc',
  'abc',
  '0.5\u0000',
];

describe('typed numbers: one strict decimal grammar for every box', () => {
  it('refuses hexadecimal, binary, octal, exponents, signs, infinities and empty text, which Number() reads', () => {
    for (const text of NOT_PLAIN) {
      assert.equal(readDecimal(text), undefined, JSON.stringify(text));
      assert.equal(readDecimal(text, { dollars: true }), undefined, `$ box: ${JSON.stringify(text)}`);
    }
    // The same prefixes after a dollar sign.
    for (const text of ['$0x10', '$ 0b1', '$0o7', '$1e2', '$-1', '-$1', '$$1', '$Infinity'])
      assert.equal(readDecimal(text, { dollars: true }), undefined, text);
  });

  it('refuses separators, underscores, other scripts’ digits and anything else that is not ASCII digits and one point', () => {
    for (const text of NOT_A_NUMBER) assert.equal(readDecimal(text), undefined, JSON.stringify(text));
  });

  it('reads plain decimals as written: spaces around, a leading or trailing point, leading zeros', () => {
    const cases: Array<[string, number]> = [
      ['2', 2],
      ['  2.5 ', 2.5],
      ['\t3\n', 3],
      ['.5', 0.5],
      ['5.', 5],
      ['0', 0],
      ['0.0', 0],
      ['007', 7],
      ['010', 10], // decimal ten, never octal eight
      ['0.45', 0.45],
      ['128', 128],
      ['123456789012', 123_456_789_012],
    ];
    for (const [text, value] of cases) assert.equal(readDecimal(text), value, JSON.stringify(text));
    assert.equal(readDecimal('$0.50', { dollars: true }), 0.5);
    assert.equal(readDecimal(' $ 2 ', { dollars: true }), 2);
    assert.equal(readDecimal('$.5', { dollars: true }), 0.5);
  });

  it('refuses digits too many for a finite number', () => {
    assert.equal(readDecimal('9'.repeat(400)), undefined);
    assert.equal(readDecimal(`0.${'0'.repeat(400)}1`), 0, 'a tiny number is still a number (a box’s bounds refuse it)');
  });

  it('writes numbers without an exponent, so a box’s starting text reads back', () => {
    const cases: Array<[number, string]> = [
      [0, '0'],
      [0.45, '0.45'],
      [16, '16'],
      [1e-7, '0.0000001'],
      [1.5e-10, '0.00000000015'],
      [1e21, '1000000000000000000000'],
      [1.2345e22, '12345000000000000000000'],
      [-1e-7, '-0.0000001'],
    ];
    for (const [value, text] of cases) assert.equal(decimalText(value), text, String(value));
  });

  describe('a box: bounds, whole numbers, and messages that name them', () => {
    const box: NumberBox = { min: 1, max: 500, integer: true, hint: 'hint', tooLow: 'low', tooHigh: 'high' };

    it('says why, in the box’s own words', () => {
      assert.equal(boxProblem('0x10', box), 'hint');
      assert.equal(boxProblem('0', box), 'low');
      assert.equal(boxProblem('501', box), 'high');
      assert.equal(boxProblem('2.5', box), 'hint');
      assert.equal(boxProblem('3.0', box), undefined, '3.0 is a whole number');
      assert.equal(boxProblem(' 500 ', box), undefined);
      assert.equal(boxValue(' 500 ', box), 500);
      assert.throws(
        () => boxValue('0x10', box),
        (e: unknown) => e instanceof RangeError && e.message === 'hint',
      );
      const exclusive: NumberBox = { min: 0, minExclusive: true, max: 1, hint: 'hint' };
      assert.equal(boxProblem('0', exclusive), 'hint', 'without tooLow, the hint');
      assert.equal(boxValue('0.001', exclusive), 0.001);
    });

    it('holds a number given to a command to the same bounds', () => {
      assert.deepEqual(checkInBox(16, box), { value: 16 });
      for (const value of [0, 501, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) assert.ok(checkInBox(value, box).problem, String(value));
    });
  });

  describe('properties (seeded)', () => {
    /** Text near the grammar: digits, points, signs, prefixes, exponents, separators, other digits, spaces. */
    const nearNumbers = fc
      .array(
        fc.constantFrom(
          ...'0123456789'.split(''),
          '.',
          '.',
          ' ',
          '$',
          '-',
          '+',
          'e',
          'E',
          'x',
          'b',
          'o',
          '_',
          ',',
          '\u0661',
          '\uff11',
          '\u00a0',
          'Infinity',
          'NaN',
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(''));
    const anyText = fc.oneof(
      nearNumbers,
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.stringMatching(/^\s*\$?\d{0,6}(\.\d{0,6})?\s*$/),
    );

    it('any text it takes is ASCII digits with one point at most, and means its plain decimal value', () => {
      let taken = 0;
      fc.assert(
        fc.property(anyText, fc.boolean(), (text, dollars) => {
          const value = readDecimal(text, { dollars });
          if (value === undefined) return;
          taken++;
          let body = text.trim();
          if (dollars && body.startsWith('$')) body = body.slice(1).trim();
          assert.match(body, /^[0-9]*\.?[0-9]*$/);
          // The query language's reader scales digits exactly in BigInt: an independent reading of the same decimal.
          assert.equal(value, parseScaledDecimal(body, 1n));
          assert.ok(Number.isFinite(value) && value >= 0);
          assert.equal(readDecimal(decimalText(value)), value, 'round trip');
        }),
        { seed: 20_240_611, numRuns: 3000 },
      );
      assert.ok(taken > 300, `only ${taken} cases were numbers`);
    });

    it('every finite number of 0 or more is written as text it reads back exactly', () => {
      fc.assert(
        fc.property(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), (value) => {
          const text = decimalText(value);
          assert.doesNotMatch(text, /e/i);
          assert.equal(readDecimal(text), value === 0 ? 0 : value, text); // -0 is written 0
        }),
        { seed: 7_331, numRuns: 3000 },
      );
    });

    it('a box’s validator and parser never disagree', () => {
      const box: NumberBox = { min: 0.5, max: 100, dollars: true, hint: 'hint' };
      fc.assert(
        fc.property(anyText, (text) => {
          const problem = boxProblem(text, box);
          if (problem === undefined) {
            const value = boxValue(text, box);
            assert.ok(value >= 0.5 && value <= 100);
            assert.deepEqual(readBox(text, box), { value });
          } else assert.throws(() => boxValue(text, box), RangeError);
        }),
        { seed: 99, numRuns: 2000 },
      );
    });
  });

  describe('each box a user types a number into', () => {
    it('the rent wizard’s disk refuses 0x10 and the like, and takes whole GB up to the machine’s free disk', () => {
      const box = rentDiskBox({ disk_space: 500.7 });
      assert.equal(box.max, 500);
      for (const text of ['0x10', '0b1', '0o7', '1e2', '10.5', '0', '501', '-10', ''])
        assert.equal(boxProblem(text, box), 'Enter a whole number of GB between 1 and 500.', text);
      assert.equal(boxValue(' 16 ', box), 16);
      assert.equal(boxValue('500', box), 500);
      assert.equal(rentDiskBox({ disk_space: null }).max, UNLISTED_DISK_MAX_GB);
      assert.equal(rentDiskBox({ disk_space: Number.NaN }).max, UNLISTED_DISK_MAX_GB);
      assert.equal(rentDiskBox({ disk_space: 0.4 }).max, 1, 'at least 1 GB can be asked, as the disk step starts at 1');
    });

    it('a new volume’s size, a template’s disk, and a new volume from the Account view take whole GB only', () => {
      assert.equal(boxProblem('0x10', gigabytesBox(200)), 'Enter a whole number of GB between 1 and 200.');
      assert.equal(boxValue('50', gigabytesBox()), 50);
      assert.ok(boxProblem('1e3', gigabytesBox()));
    });

    it('a port to forward', () => {
      for (const text of ['0x1F90', '0o17620', '8e3', '0', '65536', '80.5', '']) assert.ok(boxProblem(text, portBox()), text);
      assert.equal(boxValue(' 8888 ', portBox()), 8888);
      assert.equal(checkInBox(65_535, portBox()).value, 65_535);
    });

    it('the Offers view’s filter editors (the Offer Explorer’s boxes); empty removes the filter', () => {
      assert.equal(filterBarProblem('count', ''), undefined);
      assert.equal(filterBarProblem('count', '2'), undefined);
      assert.equal(filterBarProblem('price', '$1.50'), undefined);
      for (const [field, text] of [
        ['count', '0x2'],
        ['count', '0'],
        ['vram', '0b11000'],
        ['price', '1e0'],
        ['price', '0'],
        ['reliability', '1.5'],
        ['reliability', '0o1'],
      ] as const)
        assert.ok(filterBarProblem(field, text), `${field} ${text}`);
    });

    it('serverless counts are whole, the target utilisation a fraction', () => {
      assert.ok(boxProblem('0x10', serverlessFieldBox('max_workers')));
      assert.ok(boxProblem('1.5', serverlessFieldBox('cold_workers')));
      assert.equal(boxValue('0', serverlessFieldBox('cold_workers')), 0);
      assert.ok(boxProblem('2', serverlessFieldBox('target_util')));
      assert.equal(boxValue('.9', serverlessFieldBox('target_util')), 0.9);
      assert.equal(boxValue('2.5', serverlessFieldBox('cold_mult')), 2.5);
      assert.ok(boxProblem('1e3', serverlessFieldBox('inactivity_timeout')));
    });

    it('an API key’s instance', () => {
      assert.ok(boxProblem('0x10', instanceIdBox()));
      assert.ok(boxProblem('0', instanceIdBox()));
      assert.ok(boxProblem('9007199254740993', instanceIdBox()), 'beyond exact integers');
      assert.equal(boxValue('12345', instanceIdBox()), 12_345);
    });

    it('a link’s instance id is read as strictly', () => {
      for (const id of ['0x10', '0b1', '0o7', '1e3', '+7', '07', '\uff11'])
        assert.equal(parseLink('/connect', `instance=${encodeURIComponent(id)}`, []).kind, 'refused', id);
      assert.deepEqual(parseLink('/connect', 'instance=16', []), { kind: 'connect', instanceId: 16 });
    });

    it('settings take JSON numbers only: text such as "0x10" in settings.json is the default, not 16', () => {
      const rule = NUMBER_RULES[SETTINGS.rentFailoverAttempts];
      assert.equal(boundedNumber('0x10', rule), rule.fallback);
      assert.equal(boundedNumber('5', rule), rule.fallback);
      assert.equal(spendCap('0x10'), undefined);
      assert.equal(spendCap('16'), undefined);
    });
  });
});
