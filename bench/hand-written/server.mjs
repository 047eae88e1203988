// The hand-written contender of bench/serve.mjs: the Item API of ramses-starter as a good Fastify
// developer would write it with better-sqlite3 — prepared statements, the same JSON shapes
// (_type, _pk, _self, the collection envelope with total), the same body validation and request
// logging. Usage: node server.mjs <node_modules> <sqlite file> <port>; or import `handWrittenApp`
// (bench/inject.mjs does, to send it requests in process).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { body, deleted, notFound, patch, present, self } from './shapes.mjs';

// oxlint-disable typescript/require-await -- async handlers, as Fastify's guide writes them and as
// the generated service has them: the baseline pays for the same promise per request.

/** The server, not listening yet; `logger`: Fastify's logger option (level info to stdout by default). */
export function handWrittenApp(modules, file, logger = { level: 'info' }) {
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

  app.get('/v1/items/:id', async (request, reply) => {
    const id = /^\d+$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const row = id === undefined ? undefined : byId.get(id);
    return row ? present(request, row) : notFound(request, reply, `Item ${request.params.id} not found`);
  });

  app.get('/v1/items', async (request) => {
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
  });

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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [modules, file, port] = process.argv.slice(2);
  await handWrittenApp(modules, file).listen({ host: '127.0.0.1', port: Number(port) });
}
