/**
 * The words of full-text search (runtime/src/lib/search.ts): the one definition
 * every engine's index and query follow: punctuation and the
 * operators of the engines' query languages separate words, case and diacritics do not count.
 */
import { describe, expect, it } from 'vitest';
import { queryWords, searchOf, withoutSearch, words } from '../../runtime/src/lib/search.js';

describe('words', () => {
  it.each([
    ['The Hobbit', ['the', 'hobbit']],
    ['isbn-310', ['isbn', '310']],
    ["Le Guin's", ['le', 'guin', 's']],
    ['naïve café', ['naive', 'cafe']],
    ['C++', ['c']],
    ['jane.doe@example.com', ['jane', 'doe', 'example', 'com']],
    ['foo_bar', ['foo', 'bar']],
    ['3.14 · e-mail', ['3', '14', 'e', 'mail']],
    ['don’t foo—bar', ['don', 't', 'foo', 'bar']],
    ['Straße Ærø', ['straße', 'ærø']],
    ['ВОЙНА и мир', ['воина', 'и', 'мир']],
    ['東京 guide', ['東京', 'guide']],
    ['"NEAR(x, 2)" OR -y title:z *', ['near', 'x', '2', 'or', 'y', 'title', 'z']],
    ['+++ \\ %', []],
  ])('%s', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });
});

describe('queryWords', () => {
  it('keeps each word once, and how it was spelled where its diacritics are not those SQLite removes', () => {
    expect(queryWords('Hobbit hobbit HOBBIT')).toEqual({ words: ['hobbit'] });
    expect(queryWords('Война и ВОЙНА')).toEqual({ words: ['воина', 'и'], spellings: { воина: ['война'] } });
    expect(queryWords('naïve')).toEqual({ words: ['naive'], spellings: { naive: ['naïve'] } });
  });
});

describe('withoutSearch', () => {
  const search = { words: ['hobbit'], fields: ['title'] };

  it('takes the search out where searchOf finds it, at the top or in ANDs, and keeps every other condition', () => {
    expect(withoutSearch({ shelf: 'fiction', SEARCH: search })).toEqual({ shelf: 'fiction', SEARCH: undefined });
    const nested = { AND: [{ year: { gt: 1950 } }, { AND: [{ shelf: 'fiction', SEARCH: search }] }] };
    expect(searchOf(nested)).toBe(search);
    expect(withoutSearch(nested)).toEqual({
      AND: [{ year: { gt: 1950 } }, { AND: [{ shelf: 'fiction', SEARCH: undefined }] }],
    });
    expect(nested.AND[1]).toEqual({ AND: [{ shelf: 'fiction', SEARCH: search }] });
  });

  it('leaves alone a search it does not reach through ANDs alone', () => {
    const inOr = { OR: [{ SEARCH: search }, { shelf: 'fiction' }] };
    expect(searchOf(inOr)).toBeUndefined();
    expect(withoutSearch(inOr)).toBe(inOr);
    expect(withoutSearch(undefined)).toBeUndefined();
  });
});
