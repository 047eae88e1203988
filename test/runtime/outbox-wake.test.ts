/**
 * The outbox's wake (runtime/src/lib/http/outbox.ts): an answered write sets the delivery loop and
 * the change feeds going at once, rather than at the loop's next look (every 250 ms). It is a hook
 * of the routes that write, added as they are made: a read runs no hook for it, and a write on a
 * route made after the plugin still wakes both.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { outbox } from '../../runtime/src/lib/http/outbox.js';
import { FeedHub } from '../../runtime/src/lib/feed/feed.js';
import { Dispatcher } from '../../runtime/src/lib/webhooks/dispatcher.js';
import type { ServiceDatabase } from '../../runtime/src/lib/database.js';

const runtimeRequire = createRequire(new URL('../../runtime/package.json', import.meta.url));
interface Injected {
  readonly statusCode: number;
}
interface App {
  register(plugin: unknown, options?: object): Promise<void>;
  decorate(name: string, value: unknown): void;
  route(options: { method: string | string[]; url: string; handler: () => Promise<unknown> }): void;
  ready(): Promise<void>;
  inject(options: { method: string; url: string }): Promise<Injected>;
  close(): Promise<void>;
}
const Fastify = runtimeRequire('fastify') as (options?: object) => App;
const fp = runtimeRequire('fastify-plugin') as (plugin: (app: App) => Promise<void>, options: object) => unknown;
const answered = () => Promise.resolve({ ok: true });

let app: App | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
  vi.restoreAllMocks();
});

/** What the plugin reads of the database when it is registered; the loops themselves are spied on. */
const db = { outbox: { log: {}, deliveries: {} } } as unknown as ServiceDatabase;

async function serviceWithOutbox(): Promise<App> {
  app = Fastify();
  // The plugin depends on the services (lib/http/services.ts); its operator routes read the policy only when called.
  await app.register(fp((root) => Promise.resolve(root.decorate('services', {})), { name: 'services' }));
  await app.register(outbox, { db, settings: { dispatch: false, subscriptions: [] }, catalog: new Map() });
  for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])
    app.route({ method, url: '/things', handler: answered });
  app.route({ method: ['GET', 'POST'], url: '/both', handler: answered });
  await app.ready();
  return app;
}

describe('the outbox wake', () => {
  it('sets the delivery loop and the feeds going after each write, and after no read', async () => {
    vi.spyOn(Dispatcher.prototype, 'start').mockImplementation(() => undefined);
    vi.spyOn(FeedHub.prototype, 'start').mockImplementation(() => undefined);
    const committed = vi.spyOn(Dispatcher.prototype, 'committed').mockImplementation(() => undefined);
    const woken = vi.spyOn(FeedHub.prototype, 'wake').mockImplementation(() => undefined);
    const server = await serviceWithOutbox();

    for (const method of ['GET', 'HEAD'])
      expect((await server.inject({ method, url: '/things' })).statusCode).toBe(200);
    expect((await server.inject({ method: 'GET', url: '/both' })).statusCode).toBe(200);
    expect(committed).not.toHaveBeenCalled();
    expect(woken).not.toHaveBeenCalled();

    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE'])
      expect((await server.inject({ method, url: '/things' })).statusCode).toBe(200);
    expect((await server.inject({ method: 'POST', url: '/both' })).statusCode).toBe(200);
    expect(committed).toHaveBeenCalledTimes(5);
    expect(woken).toHaveBeenCalledTimes(5);
  });
});
