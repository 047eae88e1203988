/**
 * What the runtime's app (runtime/src/lib/http/app.ts) does on each request's arrival and answer,
 * on its log controller's calls rather than in hooks (request-log.ts): every answer, whoever
 * makes it (a route, the 404, the error handler, the router's refusal), says nosniff and no-store
 * unless its route says otherwise, and a request still in flight when the app closes is answered
 * with `Connection: close`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type App } from '../support/app.js';

let app: App | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function service(): Promise<App> {
  app = testApp();
  app.get<{ Params: { ms: string } }>('/wait/:ms', async (request) => {
    await sleep(Number(request.params.ms));
    return { waited: Number(request.params.ms) };
  });
  app.get('/cached', (_request, reply) => reply.header('cache-control', 'public, max-age=60').send({ cached: true }));
  app.get('/fails', () => {
    throw new Error('a bug');
  });
  await app.ready();
  return app;
}

describe("the app's answers", () => {
  it('say nosniff and no-store, from a route, the 404, the error handler and the router alike', async () => {
    const server = await service();
    const answers: [string, number][] = [
      ['/wait/1', 200],
      ['/no-such-path', 404],
      ['/fails', 500],
      ['/wait/%zz', 400],
      [`/wait/${'1'.repeat(150)}`, 414],
    ];
    for (const [url, status] of answers) {
      const reply = await server.inject({ method: 'GET', url });
      expect(reply.statusCode, url).toBe(status);
      expect(reply.headers['x-content-type-options'], url).toBe('nosniff');
      expect(reply.headers['cache-control'], url).toBe('no-store');
      expect(reply.headers['connection'], url).not.toBe('close');
    }
  });

  it("keep a route's own Cache-Control", async () => {
    const reply = await (await service()).inject({ method: 'GET', url: '/cached' });
    expect(reply.headers['cache-control']).toBe('public, max-age=60');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
  });

  it('close their connection when the app closes while they are in flight', async () => {
    const server = await service();
    const slow = server.inject({ method: 'GET', url: '/wait/300' });
    await sleep(50);
    const closed = server.close();
    const reply = await slow;
    await closed;
    app = undefined;
    expect(reply.statusCode).toBe(200);
    expect(reply.headers['connection']).toBe('close');
  });
});
