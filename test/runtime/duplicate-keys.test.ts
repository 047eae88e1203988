/**
 * A body that names a key twice in one object is told from one that does not, however the key is
 * written (an escape, a colon inside a string, nested objects and lists).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
const { duplicateKey } = (await import(
  new URL('../../runtime/src/lib/http/duplicate-keys.ts', import.meta.url).href
)) as { duplicateKey: (text: string, value: unknown) => string | undefined };

const read = (text: string) => duplicateKey(text, JSON.parse(text));

describe('a key named twice in one object of a body', () => {
  it('is found wherever it is, and however it is written', () => {
    expect(read('{"nickname":"a","nickname":"b"}')).toBe('nickname');
    expect(read('{"a":{"b":1,"c":2,"b":3}}')).toBe('b');
    expect(read('[{"x":1},{"y":[{"z":1,"z":2}]}]')).toBe('z');
    expect(read('{"name":"a","\\u006eame":"b"}')).toBe('name');
    expect(read('{"time":"12:00","k":1,"k":2}')).toBe('k');
    expect(read('{"a\\"b":1,"a\\"b":2}')).toBe('a"b');
  });

  it('is none where each object names each key once, colons in strings or not', () => {
    expect(read('{"time":"12:00","url":"http://x"}')).toBeUndefined();
    expect(read('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(read('{"a":{"a":{"a":1}}}')).toBeUndefined();
    expect(read('"a:b"')).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(read(JSON.stringify(value))).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
