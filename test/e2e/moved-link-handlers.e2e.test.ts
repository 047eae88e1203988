/**
 * A link written from the other model runs the `before_update` and `after_update` handlers of the
 * objects it moves.
 * Tickets have a worker (`Ticket.worker`, kept in the ticket's row); a worker's `tickets` is the
 * other side. A `before_update` handler of Ticket lets only a manager assign a worker, and notes
 * who did. Before, `PATCH /workers/2 {"tickets": [1]}` moved ticket 1 to worker 2 without it (a
 * probe's tenant made herself the contractor of her tickets that way). Now the handler runs for
 * each ticket the write gains or drops (a create, an update, a change of many), refuses the whole
 * write, or has what it sets written. An `after_update` handler of Ticket keeps each worker's
 * count of tickets; before, moving a ticket from the worker's side left both counts stale. On
 * every engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const API = raml(`title: Work
baseUri: http://{host}/{version}
version: v1
/workers:
  get:
  patch:
  post:
    body:
      application/json:
        schema: !include worker.json
  /{id}:
    get:
    patch:
/tickets:
  get:
  post:
    body:
      application/json:
        schema: !include ticket.json
  /{id}:
    get:
    patch:
`);

const WORKER = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { type: 'string', _db_settings: { type: 'string', required: true } },
    ticket_count: { type: 'integer', _db_settings: { type: 'integer', default: 0 } },
    tickets: {
      _db_settings: {
        type: 'relationship',
        document: 'Ticket',
        backref_name: 'worker',
        foreign_keys: 'Ticket.worker_id',
      },
    },
  },
});

const TICKET = JSON.stringify({
  type: 'object',
  _event_handlers: { before_update: ['only_managers_assign'], after_update: ['recount_workers'] },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { type: 'string', _db_settings: { type: 'string', required: true } },
    assigned_by: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    worker_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Worker',
        ref_column: 'worker.id',
        ref_column_type: 'id_field',
      },
    },
  },
});

/** The rule: only a manager (`X-Role: manager`) assigns a worker, and the ticket says who did. */
const HANDLER = `import { HttpError } from '../../lib/errors.js';
import type { OnlyManagersAssignEvent } from '../../events.js';

export async function onlyManagersAssign(event: OnlyManagersAssignEvent): Promise<void> {
  if (!('worker' in event.fields)) return;
  const headers = event.view.request.headers;
  // 409: what this API without auth documents for a write its state refuses.
  if (headers['x-role'] !== 'manager') throw new HttpError(409, 'only a manager assigns a worker');
  event.setFieldValue('assigned_by', String(headers['x-name'] ?? 'a manager'));
}
`;

/** Keeps `ticket_count` of the worker a ticket leaves and of the one it joins. */
const RECOUNT = `import type { RecountWorkersEvent } from '../../events.js';

export async function recountWorkers(event: RecountWorkersEvent): Promise<void> {
  if (!('worker' in event.fields)) return;
  // The ticket as written, typed as the model (its answer, event.response, is what the caller sees of it).
  for (const id of new Set([event.instance?.worker, event.object?.worker])) {
    if (id === undefined || id === null) continue;
    const count = await event.db.ticket.count({ where: { worker: id } });
    await event.db.worker.update({ where: { id }, data: { ticket_count: count } });
  }
}
`;

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'worker.json': WORKER, 'ticket.json': TICKET }, 'e2e-moved-link-handlers');
  writeFileSync(join(dir, 'src/custom/handlers/only-managers-assign.ts'), HANDLER);
  writeFileSync(join(dir, 'src/custom/handlers/recount-workers.ts'), RECOUNT);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('a link written from the other model, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const manager = { headers: { 'x-role': 'manager', 'x-name': 'mia' } };
  const ticket = async (id: unknown) => (await api('GET', `/tickets/${String(id)}`)).body;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'moved_handlers');
    service = await startService(dir, database.env, '/v1');
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("runs the moved objects' before_update handlers: a refusal undoes the whole write", async () => {
    const ann = (await api('POST', '/workers', { name: 'ann' })).body['id'];
    const ben = (await api('POST', '/workers', { name: 'ben' })).body['id'];
    const first = (await api('POST', '/tickets', { title: 'leak' })).body['id'];
    const assigned = await api('PATCH', `/tickets/${String(first)}`, { worker: ann }, manager);
    expect(assigned.status, assigned.text).toBe(200);

    // Ben takes the ticket from his own record, without being a manager: refused, nothing moves.
    const taken = await api('PATCH', `/workers/${String(ben)}`, { name: 'ben b', tickets: [first] });
    expect([taken.status, taken.body.message], taken.text).toEqual([409, 'only a manager assigns a worker']);
    expect(await ticket(first)).toMatchObject({ worker: ann, assigned_by: 'mia' });
    expect((await api('GET', `/workers/${String(ben)}`)).body).toMatchObject({ name: 'ben', tickets: [] });
    // Nor may ann drop it from hers.
    const dropped = await api('PATCH', `/workers/${String(ann)}`, { tickets: [] });
    expect(dropped.status, dropped.text).toBe(409);
    expect(await ticket(first)).toMatchObject({ worker: ann });
  });

  it('writes what the handlers set on each object the link moves, on create and update', async () => {
    const second = (await api('POST', '/tickets', { title: 'door' })).body['id'];
    const third = (await api('POST', '/tickets', { title: 'window' })).body['id'];
    const cat = await api(
      'POST',
      '/workers',
      { name: 'cat', tickets: [second] },
      { headers: { 'x-role': 'manager', 'x-name': 'max' } },
    );
    expect(cat.status, cat.text).toBe(201);
    expect(await ticket(second)).toMatchObject({ worker: cat.body['id'], assigned_by: 'max' });

    const moved = await api('PATCH', `/workers/${String(cat.body['id'])}`, { tickets: [third] }, manager);
    expect(moved.status, moved.text).toBe(200);
    // The ticket gained and the ticket dropped: each ran the handler, which noted who.
    expect(await ticket(third)).toMatchObject({ worker: cat.body['id'], assigned_by: 'mia' });
    expect(await ticket(second)).toMatchObject({ worker: null, assigned_by: 'mia' });
  });

  it('runs them for a change of many workers too', async () => {
    const fourth = (await api('POST', '/tickets', { title: 'roof' })).body['id'];
    await api('POST', '/workers', { name: 'dan' });
    const refused = await api('PATCH', '/workers?name=dan', { tickets: [fourth] });
    expect([refused.status, refused.body.message], refused.text).toEqual([409, 'only a manager assigns a worker']);
    expect(await ticket(fourth)).toMatchObject({ worker: null, assigned_by: null });
    const bulk = await api('PATCH', '/workers?name=dan', { tickets: [fourth] }, manager);
    expect(bulk.status, bulk.text).toBe(200);
    expect(await ticket(fourth)).toMatchObject({ assigned_by: 'mia' });
  });

  it("runs the moved objects' after_update handlers, each with the object as it is now", async () => {
    const eve = (await api('POST', '/workers', { name: 'eve' })).body['id'];
    const fay = (await api('POST', '/workers', { name: 'fay' })).body['id'];
    const counts = () =>
      Promise.all([eve, fay].map(async (id) => (await api('GET', `/workers/${String(id)}`)).body['ticket_count']));
    const [pipe, tap] = await Promise.all(
      ['pipe', 'tap'].map(async (title) => (await api('POST', '/tickets', { title })).body['id']),
    );
    // The handler keeps the count of a ticket's own PATCH…
    expect((await api('PATCH', `/tickets/${String(pipe)}`, { worker: eve }, manager)).status).toBe(200);
    expect(await counts()).toEqual([1, 0]);
    // …and of tickets moved from the workers' side: fay takes pipe from eve and gains tap.
    const moved = await api('PATCH', `/workers/${String(fay)}`, { tickets: [pipe, tap] }, manager);
    expect(moved.status, moved.text).toBe(200);
    expect(await counts()).toEqual([0, 2]);
    // A create that takes a ticket: the new worker's count and the one it leaves.
    const gus = await api('POST', '/workers', { name: 'gus', tickets: [tap] }, manager);
    expect(gus.status, gus.text).toBe(201);
    expect(await counts()).toEqual([0, 1]);
    expect((await api('GET', `/workers/${String(gus.body['id'])}`)).body['ticket_count']).toBe(1);
  });

  it('answers a stale If-Match with 412 before any handler runs', async () => {
    // The handler would refuse this caller (409); a stale tag is told first, as nothing of it may
    // run for a write that is not made (a handler's mail or webhook is not undone by a rollback).
    const id = (await api('POST', '/tickets', { title: 'gutter' })).body['id'];
    const read = await api('GET', `/tickets/${String(id)}`);
    expect((await api('PATCH', `/tickets/${String(id)}`, { title: 'gutters' })).status).toBe(200);
    const stale = { headers: { 'if-match': read.headers.get('etag')! } };
    const refused = await api('PATCH', `/tickets/${String(id)}`, { worker: null }, stale);
    expect(refused.status, refused.text).toBe(412);
    const current = { headers: { 'if-match': (await api('GET', `/tickets/${String(id)}`)).headers.get('etag')! } };
    expect((await api('PATCH', `/tickets/${String(id)}`, { worker: null }, current)).status).toBe(409);
  });
});
