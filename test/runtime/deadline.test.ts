/**
 * `http.handler_timeout` (runtime/src/lib/http/deadline.ts): the requests in flight sit in slots
 * that answered requests give back. A slot given back and taken again must time out its new
 * request, never an answered one, and a request answered in time is never answered twice.
 */
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { handlerDeadline } from '../../runtime/src/lib/http/deadline.js';
import { RequestLog } from '../../runtime/src/lib/http/request-log.js';

// The runtime's own Fastify (runtime/node_modules): the repository's root does not depend on it,
// so its types come through the function under test.
type FastifyInstance = Parameters<typeof handlerDeadline>[0];
const Fastify = createRequire(new URL('../../runtime/package.json', import.meta.url))('fastify') as (
  options?: object,
) => FastifyInstance;

const TIMEOUT_MS = 200;
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A service whose `/wait/:ms` answers after `ms` milliseconds, under the handler deadline. */
async function service(): Promise<FastifyInstance> {
  // As lib/http/app.ts calls it, on each request's arrival and answer.
  const lifecycle = new RequestLog();
  app = Fastify({ logController: lifecycle });
  const deadline = handlerDeadline(app, TIMEOUT_MS);
  lifecycle.arrived = deadline.arrived;
  lifecycle.answered = deadline.answered;
  app.post('/echo', (request, reply) => reply.send(request.body));
  app.get<{ Params: { ms: string } }>('/wait/:ms', async (request) => {
    await sleep(Number(request.params.ms));
    return { waited: Number(request.params.ms) };
  });
  await app.ready();
  return app;
}

const waiting = (server: FastifyInstance, ms: number) => server.inject({ method: 'GET', url: `/wait/${ms}` });

describe('the handler deadline', () => {
  it('times out a slow request that took a slot quick requests gave back, and none of the quick ones', async () => {
    const server = await service();
    // Fifty at once fill fifty slots; answered, they give them all back.
    const quick = await Promise.all(Array.from({ length: 50 }, () => waiting(server, 1)));
    expect(quick.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    // The next requests take those slots again: the slow one is answered 503 once, the others 200.
    const [slow, ...others] = await Promise.all([
      waiting(server, TIMEOUT_MS * 3),
      ...Array.from({ length: 10 }, () => waiting(server, 20)),
    ]);
    expect(slow.statusCode).toBe(503);
    expect(slow.headers['retry-after']).toBe('1');
    expect(others.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(others.map((r) => r.json())).toEqual(Array(10).fill({ waited: 20 }));
  });

  it('times out each of several slow requests, and again after their slots were reused', async () => {
    const server = await service();
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all([
        waiting(server, TIMEOUT_MS * 3),
        waiting(server, 5),
        waiting(server, TIMEOUT_MS * 3),
        waiting(server, 5),
      ]);
      expect(answers.map((r) => r.statusCode)).toEqual([503, 200, 503, 200]);
    }
  });

  // A probe's body of one byte every two seconds was answered 503 with Retry-After: 1, an invitation back.
  it('answers a request whose body is still arriving 408, without Retry-After, and closes its connection', async () => {
    const server = await service();
    const address = await server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    const text = await answer;
    const head = text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toMatch(/^http\/1\.1 408 /);
    expect(head).not.toContain('retry-after');
    expect(head).toContain('connection: close');
  });
});
