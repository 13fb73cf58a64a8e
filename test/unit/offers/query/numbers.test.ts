import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatScaledDecimal, isDecimalLiteral, parseScaledDecimal } from '../../../../src/core/offers/query/numbers';

describe('offer query: exact unit scaling', () => {
  it('scales decimal literals without a second rounding', () => {
    assert.equal(parseScaledDecimal('24', 1000n), 24_000);
    assert.equal(parseScaledDecimal('1.005', 1000n), 1005); // 1.005 * 1000 in doubles is 1004.9999999999999
    assert.equal(parseScaledDecimal('0.5', 86400n), 43_200);
    assert.equal(parseScaledDecimal('.25', 1000n), 250);
    assert.equal(parseScaledDecimal('3.', 1n), 3);
    assert.equal(parseScaledDecimal('+7', 1n), 7);
    assert.equal(parseScaledDecimal('2.5e-3', 1000n), 2.5);
    assert.equal(parseScaledDecimal('1E3', 1n), 1000);
    assert.ok(Object.is(parseScaledDecimal('-0', 1000n), -0));
    assert.equal(parseScaledDecimal('1e999', 1n), Infinity);
    assert.equal(parseScaledDecimal('1e-99999999999999999999', 1n), 0);
  });

  it('rejects what is not a decimal literal', () => {
    for (const text of ['', '.', '-', 'e5', '1e', '0x10', '1_000', 'Infinity', 'NaN', '1.2.3', ' 1', '1 ']) {
      assert.equal(parseScaledDecimal(text, 1n), undefined, text);
      assert.equal(isDecimalLiteral(text), false, text);
    }
    assert.equal(isDecimalLiteral('-.5e+2'), true);
  });

  it('prints the shortest decimal in user units', () => {
    assert.equal(formatScaledDecimal(24_000, 1000n), '24');
    assert.equal(formatScaledDecimal(1005, 1000n), '1.005');
    assert.equal(formatScaledDecimal(500, 1000n), '0.5');
    assert.equal(formatScaledDecimal(43_200, 86400n), '0.5');
    assert.equal(formatScaledDecimal(259_200, 86400n), '3');
    assert.equal(formatScaledDecimal(3600, 86400n), '0.041666666666666666');
    assert.equal(formatScaledDecimal(-2_000_000, 1000n), '-2000');
    assert.equal(formatScaledDecimal(1e30, 1000n), '1e27');
    assert.equal(formatScaledDecimal(0.001, 1000n), '0.000001');
    assert.equal(formatScaledDecimal(0.0001, 1000n), '1e-7');
    assert.equal(formatScaledDecimal(-0, 1000n), '-0');
    assert.equal(formatScaledDecimal(0.1, 1n), '0.1');
    assert.throws(() => formatScaledDecimal(Number.NaN, 1000n), RangeError);
    assert.throws(() => formatScaledDecimal(-Infinity, 1n), RangeError);
  });

  it('reads back every finite double exactly, for each factor', () => {
    for (const factor of [1n, 1000n, 86400n]) {
      fc.assert(
        fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
          const text = formatScaledDecimal(value, factor);
          assert.ok(isDecimalLiteral(text), text);
          assert.ok(Object.is(parseScaledDecimal(text, factor), value), `${value} printed as ${text} (factor ${factor})`);
        }),
        { numRuns: 2000 },
      );
    }
  });
});
