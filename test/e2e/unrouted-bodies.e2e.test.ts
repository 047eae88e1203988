/**
 * A request that no route takes is answered 404, or 405 with `Allow`, whatever body it carries: a
 * probe's `POST /gyms/1` with a JSON type and no body was told its body was empty (400), one with
 * text 415, and the caller was left to fix a body that could never be taken. Routes that take a
 * body still judge it. Blog in process, SQLite in memory.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtProject, inProcessApp } from '../support/project.js';

const BASE = '/api/v2';

type Reply = { statusCode: number; headers: Record<string, string | undefined>; body: string };
type App = { inject(options: object): Promise<Reply>; close(): Promise<void> };

const BODIES = [
  ['none, with a JSON type', { 'content-type': 'application/json' }, undefined],
  ['empty', { 'content-type': 'application/json' }, ''],
  ['not JSON', { 'content-type': 'application/json' }, '{'],
  ['of a type the service does not take', { 'content-type': 'text/plain' }, 'x'],
  ['in another charset', { 'content-type': 'application/json; charset=latin1' }, '{}'],
  ['valid JSON', { 'content-type': 'application/json' }, '{"title": "x"}'],
] as const;

describe('a request with a body that no route takes (blog, in process)', () => {
  let app: App;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-unrouted-bodies');
    const opened = await inProcessApp<App>(dir, {
      SVC_CONFIG: join(dir, 'none.ini'),
      SVC_DATABASE_URL: 'sqlite::memory:',
    });
    app = opened.app;
    close = async () => {
      await opened.app.close();
      await opened.db.close();
    };
  }, 120_000);

  afterAll(() => close());

  const send = (method: string, path: string, headers: object, payload: string | undefined) =>
    app.inject({ method, url: `${BASE}${path}`, headers, ...(payload === undefined ? {} : { payload }) });

  it.each(BODIES)('is 405 with Allow for a method its path does not serve: a body %s', async (_, headers, payload) => {
    const reply = await send('PATCH', '/posts/a/comments/1', headers, payload);
    expect([reply.statusCode, reply.headers['allow']], reply.body).toEqual([405, 'DELETE, GET, HEAD']);
    expect(JSON.parse(reply.body)).toMatchObject({ message: 'PATCH is not allowed on /posts/{slug}/comments/{id}' });
    // A method the router does not know, on a known path.
    const unknown = await send('PROPFIND', '/posts/a', headers, payload);
    expect([unknown.statusCode, unknown.headers['allow']], unknown.body).toEqual([
      405,
      'DELETE, GET, HEAD, PATCH, PUT',
    ]);
  });

  it.each(BODIES)('is 404 for a path that names nothing: a body %s', async (_, headers, payload) => {
    const reply = await send('POST', '/nowhere', headers, payload);
    expect(reply.statusCode, reply.body).toBe(404);
    expect(JSON.parse(reply.body)).toMatchObject({ message: `${BASE}/nowhere is not a resource of this service` });
  });

  it('still judges the body of a route that takes one', async () => {
    const broken = await send('POST', '/posts', { 'content-type': 'application/json' }, '{');
    expect([broken.statusCode, JSON.parse(broken.body).message]).toEqual([400, 'the request body is not valid JSON']);
    expect((await send('POST', '/posts', { 'content-type': 'text/plain' }, 'x')).statusCode).toBe(415);
    // And a request without a body that no route takes is answered as before.
    expect((await app.inject({ method: 'PUT', url: `${BASE}/posts` })).statusCode).toBe(405);
    expect((await app.inject({ method: 'GET', url: `${BASE}/nowhere` })).statusCode).toBe(404);
  });
});
