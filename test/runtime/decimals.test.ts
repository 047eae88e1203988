/**
 * Decimals are rounded to their scale as the client wrote them (runtime/src/lib/values.ts
 * roundDecimal), half away from zero, as PostgreSQL's `numeric` rounds, so every engine stores the
 * same value. `toFixed` rounded the float instead: 1.005 (the float 1.00499…) became 1.00.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { roundDecimal } from '../../runtime/src/lib/values.js';

/** `text` (a plain decimal) rounded to `scale` digits half away from zero, in exact integer arithmetic. */
function rounded(text: string, scale: number): string {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace('-', '').split('.');
  const digits = BigInt(whole + fraction.padEnd(scale + 1, '0').slice(0, scale + 1));
  const kept = (digits + 5n) / 10n;
  const padded = kept.toString().padStart(scale + 1, '0');
  const result = scale ? `${padded.slice(0, -scale)}.${padded.slice(-scale)}` : padded;
  return kept === 0n ? '0' : `${negative ? '-' : ''}${result}`;
}

describe('roundDecimal', () => {
  it.each([
    [1.005, 2, 1.01],
    [-2.675, 2, -2.68],
    [0.005, 2, 0.01],
    [19.99, 2, 19.99],
    [120.456, 2, 120.46],
    [123456.785, 2, 123456.79],
    [2.5, 0, 3],
    [-2.5, 0, -3],
    [-0.001, 2, 0],
    [1e-7, 2, 0],
    [1e300, 2, 1e300],
  ])('%d to %d digits is %d', (value, scale, expected) => {
    expect(Object.is(roundDecimal(value, scale), expected)).toBe(true);
  });

  it('rounds what the client wrote, half away from zero, for any decimal of up to 9 digits and 6 after the point', () => {
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 999n }), fc.integer({ min: 0, max: 999_999 }), fc.nat(6))
      .map(
        ([negative, whole, fraction, places]) =>
          `${negative ? '-' : ''}${whole}.${String(fraction)
            .padStart(6, '0')
            .slice(0, places || 1)}`,
      );
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 4 }), (text, scale) => {
        expect(roundDecimal(Number(text), scale)).toBe(Number(rounded(text, scale)));
      }),
      { numRuns: 5_000 },
    );
  });
});
