/**
 * The generic part of the generated client (runtime/client/src/): query encoding, the transport
 * with its credentials, errors, pages and ETags, against a recording fake of `fetch`.
 */
import { describe, expect, it } from 'vitest';
import { claimToken, login, logout, register } from '../../runtime/client/src/auth.js';
import { ApiError, Http, type Fetch } from '../../runtime/client/src/http.js';
import { listParameters, whereParameters } from '../../runtime/client/src/query.js';
import * as op from '../../runtime/client/src/resources.js';

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** A fetch that records each request and answers with the next of `answers`. */
function fakeFetch(...answers: (() => Response)[]): { fetch: Fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const fetch: Fetch = (url, init) => {
    sent.push({
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected request ${url}`);
    return Promise.resolve(answer());
  };
  return { fetch, sent };
}

const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A page as the service answers it; `next`: the cursor of the page after it, if any. */
const page = (data: unknown[], start: number, total: number, next?: string) =>
  json({
    total,
    count: data.length,
    start,
    took: 1,
    fields: '',
    ...(next === undefined ? {} : { next: `http://api.test/n?_limit=2&_after=${next}` }),
    data,
  });

describe('the query string of a read', () => {
  it('writes values, lists (repeated) and operators (field__op) of where', () => {
    const params = whereParameters({
      owner: 'ann',
      status: ['draft', 'published'],
      score: { gt: 3, lte: 9 },
      title: { contains: 'a,b' },
      body: { isnull: false },
      skipped: undefined,
    });
    expect(params.toString()).toBe(
      'owner=ann&status=draft&status=published&score__gt=3&score__lte=9&title__contains=a%2Cb&body__isnull=false',
    );
  });

  it('writes paging, sorting and fields with the reserved names', () => {
    const params = listParameters({
      where: { id: 1 },
      sort: ['-created_at', 'title'],
      fields: ['title'],
      limit: 20,
      page: 2,
    });
    expect(Object.fromEntries(params)).toEqual({
      id: '1',
      _limit: '20',
      _page: '2',
      _sort: '-created_at,title',
      _fields: 'title',
    });
  });

  it('refuses a value the query string cannot carry', () => {
    expect(() => whereParameters({ id: [{}] })).toThrow(TypeError);
  });

  it('refuses a value with a comma where the service reads a list, and sends it whole to an operator of one value', () => {
    expect(() => whereParameters({ city: 'Rome, Italy' })).toThrow('city: the value "Rome, Italy" has a comma');
    expect(() => whereParameters({ city: { in: ['Oslo', 'Rome, Italy'] } })).toThrow(TypeError);
    expect(() => whereParameters({ city: { ne: 'Rome, Italy' } })).toThrow(TypeError);
    expect(whereParameters({ city: { gte: 'Rome, Italy', lte: 'Rome, Italy' } }).toString()).toBe(
      'city__gte=Rome%2C+Italy&city__lte=Rome%2C+Italy',
    );
  });
});

describe('the transport', () => {
  it('sends JSON below the base URL, with the caller headers', async () => {
    const { fetch, sent } = fakeFetch(json({ _type: 'Story' }, 201));
    const http = new Http({ baseUrl: 'http://api.test/base/', fetch, headers: { 'x-trace': '1' } });
    await op.create(http, '/stories', { title: 'T' });
    expect(sent[0]).toMatchObject({
      url: 'http://api.test/base/stories',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-trace': '1' },
      body: { title: 'T' },
    });
  });

  it('throws ApiError with the status and the service error body', async () => {
    const body = {
      status_code: 404,
      title: 'Not Found',
      explanation: '',
      message: 'no such story',
      timestamp: 't',
      request_url: 'u',
    };
    const { fetch } = fakeFetch(json(body, 404));
    const error = await op.get(new Http({ baseUrl: 'http://api.test', fetch }), '/stories/1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, body, message: 'no such story' });
  });

  it('keeps an answer that is not the error shape as no body, and says the status', async () => {
    const { fetch } = fakeFetch(() => new Response('bad gateway', { status: 502 }));
    const error = await op.get(new Http({ baseUrl: 'http://api.test', fetch }), '/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, body: undefined, message: 'HTTP 502' });
  });

  it('keeps the ticket cookie a login sets, sends it back, and drops it when it expires', async () => {
    const { fetch, sent } = fakeFetch(
      json({ username: 'ann' }, 200, { 'set-cookie': 'auth_tkt=abc; Path=/; HttpOnly' }),
      json({ username: 'ann' }),
      json({ status_code: 200 }, 200, { 'set-cookie': 'auth_tkt=; Max-Age=0; Path=/' }),
      json({ status_code: 401 }, 401),
    );
    const http = new Http({ baseUrl: 'http://api.test', fetch });
    await login(http, { login: 'ann', password: 'pw' });
    await op.get(http, '/users/self');
    await logout(http);
    await op.get(http, '/users/self').catch(() => undefined);
    expect(sent.map((s) => s.headers['cookie'])).toEqual([undefined, 'auth_tkt=abc', 'auth_tkt=abc', undefined]);
  });

  it('uses the API token a register or claim answers with (WWW-Authenticate)', async () => {
    const token = 'f'.repeat(64);
    const { fetch, sent } = fakeFetch(
      json({ username: 'ann' }, 201, { 'www-authenticate': `ApiKey ann:${token}` }),
      json({ status_code: 200, token: 'e'.repeat(64) }, 200, { 'www-authenticate': `ApiKey ann:${'e'.repeat(64)}` }),
      json({}),
    );
    const http = new Http({ baseUrl: 'http://api.test', fetch });
    await register(http, { username: 'ann' });
    expect(await claimToken(http, { login: 'ann', password: 'pw' }, true)).toBe('e'.repeat(64));
    await op.get(http, '/users/self');
    expect(sent.map((s) => s.headers['authorization'])).toEqual([
      undefined,
      `ApiKey ann:${token}`,
      `ApiKey ann:${'e'.repeat(64)}`,
    ]);
    expect(sent[1]!.url).toBe('http://api.test/auth/reset_token');
  });
});

describe('pages and ETags', () => {
  it("follows each page's next cursor to the last page, which has none", async () => {
    const { fetch, sent } = fakeFetch(page([1, 2], 14, 19, 'c1'), page([3, 4], 16, 19, 'c2'), page([5], 18, 19));
    const items: unknown[] = [];
    for await (const item of op.all(new Http({ baseUrl: 'http://api.test', fetch }), '/n', { limit: 2, page: 7 }))
      items.push(item);
    expect(items).toEqual([1, 2, 3, 4, 5]);
    expect(sent.map((s) => new URL(s.url).search)).toEqual([
      '?_limit=2&_page=7',
      '?_limit=2&_after=c1',
      '?_limit=2&_after=c2',
    ]);
  });

  it('stops at a page without next even if the total says there are more', async () => {
    const { fetch, sent } = fakeFetch(page([1], 0, 9));
    const items: unknown[] = [];
    for await (const item of op.all(new Http({ baseUrl: 'http://api.test', fetch }), '/n')) items.push(item);
    expect(items).toEqual([1]);
    expect(sent).toHaveLength(1);
  });

  it('remembers the ETag of an object read, and sends it as If-Match', async () => {
    const { fetch, sent } = fakeFetch(
      json({ id: 1 }, 200, { etag: '"v1"' }),
      json({ id: 1 }),
      json({ status_code: 200 }),
    );
    const http = new Http({ baseUrl: 'http://api.test', fetch });
    const story = await op.get<object>(http, '/stories/1');
    expect(op.etagOf(story)).toBe('"v1"');
    await op.update(http, '/stories/1', { title: 'x' }, { ifMatch: story });
    await op.remove(http, '/stories/1', { ifMatch: '*' });
    expect(sent.map((s) => s.headers['if-match'])).toEqual([undefined, '"v1"', '*']);
  });

  it('refuses an ifMatch object it has no ETag for, sending nothing', async () => {
    const { fetch, sent } = fakeFetch();
    await expect(
      op.update(new Http({ baseUrl: 'http://api.test', fetch }), '/s/1', {}, { ifMatch: {} }),
    ).rejects.toThrow(/no ETag/);
    expect(sent).toEqual([]);
  });

  it('counts with _count and the filters', async () => {
    const { fetch, sent } = fakeFetch(json({ count: 3 }));
    expect(await op.count(new Http({ baseUrl: 'http://api.test', fetch }), '/s', { where: { owner: 'ann' } })).toBe(3);
    expect(new URL(sent[0]!.url).search).toBe('?owner=ann&_count=');
  });
});
