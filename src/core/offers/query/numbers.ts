import { l10n } from '../../l10n';
/**
 * Exact decimal scaling for the offer query language.
 *
 * People type some fields in larger units than the API uses (GB for MB, days for seconds). Multiplying
 * the parsed double by the factor would round twice and could not always be undone when printing, so a
 * literal is scaled as a decimal (digits times the factor, exactly, in BigInt) and rounded to a double
 * once. Printing searches for the shortest decimal that scales back to the very same double.
 */

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Beyond this the exponent means overflow or underflow for any literal that fits in memory. */
const EXPONENT_CLAMP = 1e15;

/** Whether `text` is a plain decimal literal such as `2`, `-0.5`, `.5`, `1.`, `3e-2` or `+7`. */
export function isDecimalLiteral(text: string): boolean {
  const m = DECIMAL.exec(text);
  return m !== null && (m[2] ?? '') + (m[3] ?? '') !== '';
}

/** `digits * 10^exponent * factor`, rounded once to the nearest double. `digits` is non-negative. */
function scaledValue(digits: bigint, exponent: number, factor: bigint): number {
  const e = Math.max(-EXPONENT_CLAMP, Math.min(EXPONENT_CLAMP, exponent));
  return Number(`${digits * factor}e${e}`);
}

/**
 * Parses a decimal literal and multiplies it by `factor` with a single rounding.
 * Returns undefined when `text` is not a decimal literal; the result may be infinite for huge literals.
 */
export function parseScaledDecimal(text: string, factor: bigint): number | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = m;
  if (whole + fraction === '') return undefined;
  const exponent = Number(exponentText) - fraction.length;
  const magnitude = scaledValue(BigInt(whole + fraction), exponent, factor);
  return sign === '-' ? -magnitude : magnitude;
}

/** Writes `digits * 10^exponent` the way people read numbers: plain unless very large or very small. */
function decimalText(negative: boolean, digits: bigint, exponent: number): string {
  let s = digits.toString();
  let exp = exponent;
  while (s.length > 1 && s.endsWith('0')) {
    s = s.slice(0, -1);
    exp += 1;
  }
  const pointAt = s.length + exp; // digits before the decimal point
  const scientific = pointAt - 1;
  let body: string;
  if (scientific <= -7 || scientific >= 21) {
    body = `${s[0]}${s.length > 1 ? `.${s.slice(1)}` : ''}e${scientific}`;
  } else if (exp >= 0) {
    body = s + '0'.repeat(exp);
  } else if (pointAt > 0) {
    body = `${s.slice(0, pointAt)}.${s.slice(pointAt)}`;
  } else {
    body = `0.${'0'.repeat(-pointAt)}${s}`;
  }
  return negative ? `-${body}` : body;
}

function digitCount(n: bigint): number {
  return n === 0n ? 0 : n.toString().length;
}

/** floor(num / den * 10^k) for positive num and den. */
function floorShifted(num: bigint, den: bigint, k: number): bigint {
  return k >= 0 ? (num * 10n ** BigInt(k)) / den : num / (den * 10n ** BigInt(-k));
}

/**
 * The shortest decimal text `t` with `parseScaledDecimal(t, factor) === value` (-0 included).
 * Throws a RangeError for NaN and infinities, which the language cannot express.
 */
export function formatScaledDecimal(value: number, factor: bigint): string {
  if (!Number.isFinite(value)) throw new RangeError(l10n.t('{0} cannot be written in an offer query', value));
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  if (factor === 1n) return String(value);
  const negative = value < 0;
  const target = Math.abs(value);
  // target = num / 2^e exactly: doubling is exact until the value is an integer.
  let mantissa = target;
  let twos = 0;
  while (!Number.isInteger(mantissa)) {
    mantissa *= 2;
    twos += 1;
  }
  const num = BigInt(mantissa);
  const den = (1n << BigInt(twos)) * factor;
  // num / den is the exact value in user units; log10 of it is this, give or take one.
  const magnitude = num.toString().length - den.toString().length;
  for (let precision = 1; precision <= 60; precision++) {
    let k = precision - 1 - magnitude;
    let r = floorShifted(num, den, k);
    while (digitCount(r) > precision) r = floorShifted(num, den, --k);
    while (digitCount(r) < precision) r = floorShifted(num, den, ++k);
    for (const candidate of [r, r + 1n]) {
      if (scaledValue(candidate, -k, factor) === target) return decimalText(negative, candidate, -k);
    }
  }
  // Unreachable: at 60 significant digits the decimal grid is far finer than one ulp of a double.
  throw new RangeError(l10n.t('cannot write {0} in user units', value));
}
