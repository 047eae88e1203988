/**
 * An item's ETag (runtime/src/lib/http/etag.ts) is a digest of the object without its URLs. A GET
 * of one item writes the object's JSON once and tags that text (`etagOfJson`); a write's If-Match
 * compares with `etagOf` of the object: for every object the two must give the same tag, or every
 * conditional write after a GET would fail with 412 (or one after a change would pass).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { etagOf, etagOfJson } from '../../runtime/src/lib/http/etag.js';

type Rec = Record<string, unknown>;

/** Text that looks like what the tag cuts: keys and values naming `_self`, quotes, escapes. */
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('_self', '"_self":', ',"_self":"x"}', '\\', '"', '}', 'http://h/v1/a/1', 'é\u2028\u0000'),
);
const value: fc.Arbitrary<unknown> = fc.oneof(tricky, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));

/** An object as serialize.ts makes one: fields, then `_type`, `_pk`, `_self`; embedded objects have theirs. */
const presented: fc.Arbitrary<Rec> = fc.letrec<{ object: Rec }>((tie) => ({
  object: fc
    .tuple(
      fc.dictionary(
        fc.oneof(fc.string(), fc.constantFrom('_self', 'name', '"_self":')),
        fc.oneof(
          { weight: 4, arbitrary: value },
          { weight: 1, arbitrary: tie('object') },
          { weight: 1, arbitrary: fc.array(tie('object'), { maxLength: 2 }) },
        ),
        { maxKeys: 5 },
      ),
      fc.oneof(tricky, fc.constant(undefined)),
    )
    .map(([fields, self]) => {
      const { _self: _dropped, ...rest } = fields;
      return self === undefined
        ? { ...rest, _type: 'Item', _pk: '1' }
        : { ...rest, _type: 'Item', _pk: '1', _self: self };
    }),
})).object;

describe('the ETag of an object written once', () => {
  it('is the tag of the object for every object, embedded ones and tricky text included', () => {
    fc.assert(
      fc.property(presented, (object) => {
        expect(etagOfJson(object, JSON.stringify(object))).toBe(etagOf(object));
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves out the URL, so the tag is the same through any host', () => {
    const object = (host: string) => ({
      id: 7,
      name: 'x',
      _type: 'Item',
      _pk: '7',
      _self: `http://${host}/v1/items/7`,
    });
    const a = object('a.example');
    const b = object('b.example:8080');
    expect(etagOfJson(a, JSON.stringify(a))).toBe(etagOfJson(b, JSON.stringify(b)));
    const changed = { ...a, name: 'y' };
    expect(etagOfJson(changed, JSON.stringify(changed))).not.toBe(etagOfJson(a, JSON.stringify(a)));
  });
});
