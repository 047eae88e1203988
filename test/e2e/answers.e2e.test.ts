/**
 * Item answers (a GET, a create's and an update's) go through Fastify's serialization like any
 * other: a preSerialization hook that the service's own code adds (src/custom/extend.ts) sees every
 * one, and the ETags stay those that If-Match accepts. Sending an item as the JSON text its ETag
 * was taken from, which would skip such hooks, was measured and not kept (bench/RESULTS.md,
 * "Where the gap to the hand-written server goes"); this guards whoever tries it next.
 * Blog in process, SQLite in memory.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtProject, inProcessApp } from '../support/project.js';

const BASE = '/api/v2';

type Reply = { statusCode: number; headers: Record<string, string | undefined>; body: string };
type App = {
  addHook(
    name: 'preSerialization',
    hook: (request: unknown, reply: unknown, payload: unknown, done: (error: null, payload: unknown) => void) => void,
  ): void;
  inject(options: object): Promise<Reply>;
  close(): Promise<void>;
};

describe('item answers and preSerialization hooks (blog, in process)', () => {
  let dir: string;
  const opened: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    dir = await builtProject('blog', 'e2e-answers');
  }, 120_000);

  afterAll(async () => {
    for (const closable of opened.reverse()) await closable.close();
  });

  async function service(): Promise<App> {
    const { app, db } = await inProcessApp<App>(dir, {
      SVC_CONFIG: join(dir, 'none.ini'),
      SVC_DATABASE_URL: 'sqlite::memory:',
    });
    opened.push(db, app);
    return app;
  }

  /** A create, a GET and a PATCH with the GET's If-Match, each answer checked by `check`. */
  async function writeAndRead(app: App, check: (reply: Reply) => void): Promise<void> {
    const created = await app.inject({
      method: 'POST',
      url: `${BASE}/authors`,
      payload: { name: 'ann', email: 'ann@example.com', karma: 1 },
    });
    expect(created.statusCode, created.body).toBe(201);
    check(created);
    const id = (JSON.parse(created.body) as { id: number }).id;
    const read = await app.inject({ method: 'GET', url: `${BASE}/authors/${id}` });
    expect(read.statusCode).toBe(200);
    check(read);
    // The create's tag and the GET's are of the same object.
    expect(read.headers['etag']).toBe(created.headers['etag']);
    const changed = await app.inject({
      method: 'PATCH',
      url: `${BASE}/authors/${id}`,
      headers: { 'if-match': read.headers['etag'] },
      payload: { karma: 2 },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    check(changed);
    expect(changed.headers['etag']).not.toBe(read.headers['etag']);
    const again = await app.inject({ method: 'GET', url: `${BASE}/authors/${id}` });
    expect(again.headers['etag']).toBe(changed.headers['etag']);
  }

  it('sends JSON as Fastify would, with tags that If-Match accepts', async () => {
    const app = await service();
    await writeAndRead(app, (reply) => {
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(reply.headers['etag']).toMatch(/^"[\w-]{27}"$/);
      expect(JSON.parse(reply.body)).toMatchObject({ _type: 'Author', name: 'ann' });
    });
  });

  it("passes every item's answer through a preSerialization hook the service's own code adds", async () => {
    const app = await service();
    app.addHook('preSerialization', (_request, _reply, payload, done) =>
      done(null, typeof payload === 'object' && payload !== null ? { ...payload, seen: true } : payload),
    );
    await writeAndRead(app, (reply) => expect(JSON.parse(reply.body)).toMatchObject({ _type: 'Author', seen: true }));
  });

  it('sends what a preSerialization hook changed in place', async () => {
    const app = await service();
    app.addHook('preSerialization', (_request, _reply, payload, done) => {
      if (typeof payload === 'object' && payload !== null) (payload as Record<string, unknown>)['seen'] = 'in place';
      done(null, payload);
    });
    await writeAndRead(app, (reply) => expect(JSON.parse(reply.body)).toMatchObject({ seen: 'in place' }));
  });
});
