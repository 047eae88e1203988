/** `isBase64` (runtime/src/lib/http/patterns.ts): the `byte` format of file fields. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64 } from '../../runtime/src/lib/http/patterns.js';

/** RFC 4648 base64 with its padding, as a regular expression (fine for short texts). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n -_é';

describe('isBase64', () => {
  it('takes what Node writes as base64, of any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(isBase64(Buffer.from(bytes).toString('base64'))).toBe(true);
      }),
    );
  });

  it('agrees with the regular expression on any text of base64 characters and a few others', () => {
    const text = fc.array(fc.constantFrom(...ALPHABET.split('')), { maxLength: 24 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(text, (candidate) => {
        expect(isBase64(candidate), JSON.stringify(candidate)).toBe(BASE64.test(candidate));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a file of several megabytes in one pass, where a regular expression overflows the stack', () => {
    const file = Buffer.alloc(6_000_000, 7).toString('base64');
    expect(isBase64(file)).toBe(true);
    expect(isBase64(`${file.slice(0, -4)}!AAA`)).toBe(false);
  });
});
