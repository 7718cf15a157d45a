// Money amounts travel as decimal strings; comparing them through floats
// would make 19.99 and 20 disagree at the edges. Scaled BigInts do not.

const SCALE = 6;

function toScaled(value: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!match) throw new RangeError(`not a decimal: ${value}`);
  const [, sign, whole, fraction = ''] = match;
  const scaled = BigInt(`${whole}${fraction.padEnd(SCALE, '0').slice(0, SCALE)}`);
  return sign === '-' ? -scaled : scaled;
}

/** -1, 0 or 1, as a is less than, equal to or greater than b. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const difference = toScaled(a) - toScaled(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/** Whole points for an amount at a rate of points per unit, rounded half up. */
export function pointsFor(amount: string, pointsPerUnit: number): number {
  const scaledRate = BigInt(Math.round(pointsPerUnit * 10 ** SCALE));
  const product = toScaled(amount) * scaledRate; // scaled twice
  const unit = 10n ** BigInt(SCALE * 2);
  const absolute = product < 0n ? -product : product;
  return Number((absolute + unit / 2n) / unit);
}

/** The sum of decimal strings, as a decimal string. */
export function sumDecimal(values: readonly string[]): string {
  return fromScaled(values.reduce((sum, value) => sum + toScaled(value), 0n));
}

/** The product of two decimal strings, as a decimal string (to six places, rounded down). */
export function multiplyDecimal(a: string, b: string): string {
  const product = (toScaled(a) * toScaled(b)) / 10n ** BigInt(SCALE);
  return fromScaled(product);
}

/** a / b for positive decimals, to six places, rounded up. */
export function divideDecimalUp(a: string, b: string): string {
  const numerator = toScaled(a) * 10n ** BigInt(SCALE);
  const denominator = toScaled(b);
  return fromScaled((numerator + denominator - 1n) / denominator);
}

function fromScaled(scaled: bigint): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(SCALE + 1, '0');
  const whole = digits.slice(0, -SCALE);
  const fraction = digits.slice(-SCALE).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
