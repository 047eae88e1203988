/**
 * The next page's link keeps the request's query but its paging parameters
 * (runtime/src/lib/http/query.ts, `withoutPaging`): built by hand instead of with `URL`, it must
 * read back, through `URLSearchParams`, as what `URL` would have made of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutPaging } from '../../runtime/src/lib/http/query.js';

/** The parameters `URL` keeps of `url` once the paging ones are deleted, as name/value pairs. */
function expected(url: string): [string, string][] {
  const parsed = new URL(url, 'http://service');
  for (const name of ['_start', '_page', '_after']) parsed.searchParams.delete(name);
  return [...parsed.searchParams];
}

function actual(url: string): { path: string; params: [string, string][] } {
  const next = withoutPaging(url);
  expect(next.endsWith('?') || next.endsWith('&')).toBe(true);
  const parsed = new URL(`${next}_after=abc`, 'http://service');
  const params = [...parsed.searchParams];
  expect(params.at(-1)).toEqual(['_after', 'abc']);
  return { path: next.slice(0, next.indexOf('?')), params: params.slice(0, -1) };
}

describe('withoutPaging', () => {
  it.each([
    ['/v1/items', '/v1/items?'],
    ['/v1/items?', '/v1/items?'],
    ['/v1/items?_start=20&_limit=5', '/v1/items?_limit=5&'],
    ['/v1/items?name=a&_after=xyz&_page=2&_sort=-id', '/v1/items?name=a&_sort=-id&'],
    ['/v1/items?%5Fstart=3&q=a+b', '/v1/items?q=a+b&'],
    ['/v1/items?_start&&name=%E2%82%AC', '/v1/items?name=%E2%82%AC&'],
    ['/v1/items?_limit=2#frag', '/v1/items?_limit=2&'],
    ['/v1/items?%zz=1&_start=1', '/v1/items?%zz=1&'],
  ])('%s → %s', (url, next) => {
    expect(withoutPaging(url)).toBe(next);
  });

  it('reads back as URL would have made it, for any query', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '_start',
        '_page',
        '_after',
        '%5Fstart',
        '_st%61rt',
        '_limit',
        'name',
        'a+b',
        '%',
        '%zz',
        '=',
        '',
      ),
      fc.string({ maxLength: 6 }).map((s) => encodeURIComponent(s)),
    );
    const pair = fc
      .tuple(piece, fc.option(piece, { nil: undefined }))
      .map(([n, v]) => (v === undefined ? n : `${n}=${v}`));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 8 }), (pairs) => {
        const url = `/v1/items?${pairs.join('&')}`;
        const { path, params } = actual(url);
        expect(path).toBe('/v1/items');
        expect(params).toEqual(expected(url));
      }),
      { numRuns: 2000 },
    );
  });
});
