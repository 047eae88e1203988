// The hand-written contender of bench/serve.mjs: the Item API of ramses-starter as a good Fastify
// developer would write it with better-sqlite3 — prepared statements, the same JSON shapes
// (_type, _pk, _self, the collection envelope with total), the same body validation and request
// logging. With `contract`, also the contract's ETag and If-Match, security headers and an event
// per write in the write's transaction (shapes.mjs), still no search index and no kept counts.
// Usage: node server.mjs <node_modules> <sqlite file> <port> [contract]; or import `handWrittenApp`
// (bench/inject.mjs does, to send it requests in process).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  body,
  contractRoutes,
  deleted,
  eventIdentity,
  ifMatchHolds,
  notFound,
  patch,
  present,
  self,
} from './shapes.mjs';

// oxlint-disable typescript/require-await -- async handlers, as Fastify's guide writes them and as
// the generated service has them: the baseline pays for the same promise per request.

/**
 * The server, not listening yet; `logger`: Fastify's logger option (level info to stdout by default);
 * `contract`: with the ETag, the headers and the events.
 */
export function handWrittenApp(modules, file, logger = { level: 'info' }, { contract = false } = {}) {
  const require = createRequire(join(modules, 'noop.js'));
  const Fastify = require('fastify');
  const Database = require('better-sqlite3');

  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'create table if not exists item (id integer primary key autoincrement, name text not null, description text)',
  );
  const byId = db.prepare('select id, name, description from item where id = ?');
  const page = db.prepare('select id, name, description from item order by id limit ? offset ?');
  const count = db.prepare('select count(*) as n from item');
  const insert = db.prepare('insert into item (name, description) values (?, ?) returning id, name, description');
  // A PATCH changes the fields it names: coalesce keeps the others (description may be set to null,
  // so whether it was sent is a parameter of its own).
  const update = db.prepare(
    'update item set name = coalesce(?, name), description = case when ? then ? else description end where id = ? returning id, name, description',
  );
  const remove = db.prepare('delete from item where id = ?');
  const key = (text) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);

  const app = Fastify({ logger });
  if (contract) return withContract(app, db, { byId, page, count, insert, update });

  app.get('/v1/items/:id', async (request, reply) => {
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const row = id === undefined ? undefined : byId.get(id);
    return row ? present(request, row) : notFound(request, reply, `Item ${request.params.id} not found`);
  });

  app.get('/v1/items', listRoute(page, count));
  app.post('/v1/items', { schema: { body } }, async (request, reply) => {
    // .all(), not .get(): a RETURNING statement left after its first row keeps WAL checkpoints from
    // running, and the WAL grows without end (41 MB after 5,000 inserts, measured; half the req/s).
    const [row] = insert.all(request.body.name, request.body.description ?? null);
    reply.code(201).header('location', self(request, row.id));
    return present(request, row);
  });
  app.patch('/v1/items/:id', { schema: { body: patch } }, async (request, reply) => {
    const id = key(request.params.id);
    const sent = 'description' in request.body;
    const [row] =
      id === undefined ? [] : update.all(request.body.name ?? null, sent ? 1 : 0, request.body.description ?? null, id);
    if (!row) return notFound(request, reply, `Item ${request.params.id} not found`);
    reply.header('location', self(request, row.id));
    return present(request, row);
  });

  app.delete('/v1/items/:id', async (request, reply) => {
    const id = key(request.params.id);
    const changes = id === undefined ? 0 : remove.run(id).changes;
    return changes ? deleted(request) : notFound(request, reply, `Item ${request.params.id} not found`);
  });

  app.addHook('onClose', async () => db.close());
  return app;
}

/** GET of a page of items with their total. */
function listRoute(page, count) {
  return async (request) => {
    const started = performance.now();
    const limit = Math.min(Number(request.query._limit ?? 20), 1000);
    const start = Number(request.query._start ?? 0);
    const data = page.all(limit, start).map((row) => present(request, row));
    return {
      total: count.get().n,
      count: data.length,
      start,
      took: Math.round(performance.now() - started),
      fields: '',
      data,
    };
  };
}

/**
 * The same API with what the contract asks besides (shapes.mjs, `contractRoutes`), over better-sqlite3:
 * each write's event is appended in the write's own transaction, with If-Match checked in it
 * (better-sqlite3's transactions are synchronous: nothing interleaves).
 */
function withContract(app, db, { byId, page, count, insert, update }) {
  db.exec(
    'create table if not exists event (seq integer primary key, id text not null, type text not null, model text not null, pk text not null, time text not null, data text not null)',
  );
  const remove = db.prepare('delete from item where id = ? returning id, name, description');
  const append = db.prepare('insert into event (id, type, model, pk, time, data) values (?, ?, ?, ?, ?, ?)');
  const recorded = (action, row) => {
    const { id, time } = eventIdentity();
    const pk = String(row.id);
    append.run(id, `Item.${action}`, 'Item', pk, time, JSON.stringify({ ...row, _type: 'Item', _pk: pk }));
    return row;
  };
  /** Whether the request's If-Match names another version of item `id` than the stored one. */
  const stale = (request, id) => {
    if (request.headers['if-match'] === undefined) return false;
    const current = byId.get(id);
    return current !== undefined && !ifMatchHolds(request, current);
  };
  const store = {
    read: (id) => byId.get(id),
    create: db.transaction((name, description) => recorded('create', insert.all(name, description)[0])),
    change: db.transaction((request, id, name, sent, description) => {
      if (stale(request, id)) return false;
      const [row] = update.all(name, sent ? 1 : 0, description, id);
      return row && recorded('update', row);
    }),
    destroy: db.transaction((request, id) => {
      if (stale(request, id)) return false;
      const [row] = remove.all(id);
      return row && recorded('delete', row);
    }),
  };
  contractRoutes(app, store, listRoute(page, count));
  app.addHook('onClose', async () => db.close());
  return app;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [modules, file, port, mode] = process.argv.slice(2);
  await handWrittenApp(modules, file, undefined, { contract: mode === 'contract' }).listen({
    host: '127.0.0.1',
    port: Number(port),
  });
}
