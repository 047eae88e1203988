/**
 * Numbers JSON.parse changes are found in the body's text, with where they are: a dict's `1e400`
 * was stored as null, `1e-400` as 0 and 9223372036854775807 as ...776000, each with a 200.
 */
import { describe, expect, it } from 'vitest';
import { lossyNumber } from '../../runtime/src/lib/http/json-numbers.js';

const found = (text: string) => {
  const lossy = lossyNumber(text, JSON.parse(text));
  return lossy && [lossy.path.join('.'), lossy.sent, lossy.problem];
};

describe('numbers a JSON body does not keep', () => {
  it('are those too large, too small, or whole past 2^53, named where they are', () => {
    expect(found('{"nutrition":{"a":1,"b":1e400}}')).toEqual([
      'nutrition.b',
      '1e400',
      'is too large for a JSON number',
    ]);
    expect(found('{"x":[0, 2, -1E-400]}')).toEqual([
      'x.2',
      '-1E-400',
      'is too small for a JSON number (it reads as 0)',
    ]);
    expect(found('{"c":9223372036854775807}')).toEqual([
      'c',
      '9223372036854775807',
      'is a number past 2^53, which a JSON number does not keep exactly (it reads as 9223372036854776000)',
    ]);
    // However written: a fraction, an exponent (a probe's, each stored as ...992).
    for (const spelled of [
      '9007199254740993.0',
      '9.007199254740993e15',
      '9007199254740993e0',
      '90071992547409930e-1',
      '-9007199254740993.0',
      '9007199254740992.5',
    ])
      expect(found(`{"a":${spelled}}`)?.[2], spelled).toMatch(/^is a number past 2\^53/);
  });

  it('are none where the number is kept, or is text', () => {
    for (const text of [
      '{"a":9007199254740992,"b":1e300,"c":0e-999,"d":-0,"e":1.5e-300,"f":100000000000000000000}',
      '{"a":9007199254740992.0,"b":9.1e15,"c":1e20,"d":1.7976931348623157e308,"e":-2e300}',
      '{"a":"1e400","b":"9223372036854775807 \\" 1e-999"}',
      '{"a":1234567890123456.5}',
    ])
      expect(found(text), text).toBeUndefined();
  });

  it("names the body's top where keys that are whole numbers changed the order", () => {
    expect(found('{"b":{"2":1e400,"1":5}}')).toEqual(['', '1e400', 'is too large for a JSON number']);
    expect(found('{"b":{"1":5,"2":1e400}}')?.[0]).toBe('b.2');
  });
});
