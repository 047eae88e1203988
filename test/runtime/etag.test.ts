/**
 * An answer's ETag from the text it is sent as (`taggedJson`, one stringify) is the tag `etagOf`
 * gives it (a stringify without any `_self`): a client's If-Match, and an ETag a client computes
 * with the typed client's `etagOf`, keep matching whichever of the two made it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { etagOf, taggedJson } from '../../runtime/src/lib/http/etag.js';
import { answerText, keepText } from '../../runtime/src/lib/http/answer-text.js';

const SELF = 'http://127.0.0.1:3000/api/items/7';

/** What `taggedJson` gives `object`, and what it should: the text JSON.stringify writes, the tag etagOf gives. */
const both = (object: Record<string, unknown>) => ({
  given: taggedJson(object),
  wanted: { tag: etagOf(object), json: JSON.stringify(object) },
});
const sameTag = (object: Record<string, unknown>) => {
  const { given, wanted } = both(object);
  expect(given).toEqual(wanted);
  return given.tag;
};

describe('an answer tagged from its own text', () => {
  it('has the tag of the object without its _self, whatever the host', () => {
    const item = { id: 7, name: 'seven', _type: 'Item', _pk: '7' };
    const tag = sameTag({ ...item, _self: SELF });
    expect(sameTag({ ...item, _self: 'https://other.example/x/items/7' })).toBe(tag);
    expect(sameTag(item)).toBe(tag);
    expect(sameTag({ ...item, name: 'eight', _self: SELF })).not.toBe(tag);
  });

  it('leaves out the _self of embedded objects too, and holds for _self written anywhere', () => {
    const author = { id: 1, _type: 'User', _pk: '1', _self: 'http://h/users/1' };
    const objects = [
      { id: 2, author, _type: 'Story', _pk: '2', _self: 'http://h/stories/2' },
      { id: 2, author, _type: 'Story', _pk: '2' },
      { _self: SELF, id: 3 },
      { _self: SELF },
      // A value or a key that spells `"_self":` is escaped, and no key.
      { note: '","_self":"x"}', 'a"_self': 1, _self: 'say "hi"\n' },
      { id: 4, _self: null },
    ];
    for (const object of objects) expect(both(object).given).toEqual(both(object).wanted);
  });

  it('agrees with etagOf on any object', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean());
    const object = fc.dictionary(
      fc.oneof(fc.string(), fc.constant('_self')),
      fc.oneof(value, fc.dictionary(fc.constantFrom('_self', 'id', 'a'), value)),
    );
    fc.assert(
      fc.property(object, fc.option(fc.string()), (fields, self) => {
        const { given, wanted } = both(self === null ? fields : { ...fields, _self: self });
        expect(given).toEqual(wanted);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the text an answer is sent as', () => {
  it('is the text kept for it, and a stringify of any other', () => {
    const kept = { id: 1 };
    keepText(kept, '{"id":1}');
    expect(answerText(kept)).toBe('{"id":1}');
    expect(answerText({ id: 2 })).toBe('{"id":2}');
    expect(answerText([1, 'a'])).toBe('[1,"a"]');
    expect(answerText(null)).toBe('null');
    expect(answerText('text')).toBe('"text"');
  });
});
