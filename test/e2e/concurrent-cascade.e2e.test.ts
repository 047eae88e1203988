/**
 * A delete that takes objects along takes only those it read, judged and gave events to: a probe's
 * comment, posted under an expense while the expense's delete ran, was answered 201 and then
 * deleted by the database's cascade unread, with no delete event (and past the ACL, which would
 * have refused the delete). Now the delete locks what it deletes before it reads what links to it
 * (PostgreSQL `FOR UPDATE`): a create that links to it waits, then finds it gone. On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, storedEvents, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const ROUNDS = 6;
const SPLITS = 60;

const API = raml(`title: Expenses
baseUri: http://{host}/{version}
version: v1
/expenses:
  get:
  post:
    body:
      application/json:
        schema: !include expense.json
  /{id}:
    get:
    delete:
/splits:
  post:
    body:
      application/json:
        schema: !include split.json
/comments:
  post:
    body:
      application/json:
        schema: !include comment.json
  /{id}:
    get:
`);

const child = (name: string) =>
  JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      note: { _db_settings: { type: 'string' } },
      expense_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Expense',
          ref_column: 'expense.id',
          ref_column_type: 'id_field',
          ref_ondelete: 'CASCADE',
        },
      },
    },
    title: name,
  });

const EXPENSE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string', required: true } },
    splits: { _db_settings: { type: 'relationship', document: 'Split', backref_name: 'expense' } },
    comments: { _db_settings: { type: 'relationship', document: 'Comment', backref_name: 'expense' } },
  },
});

let dir: string;

beforeAll(async () => {
  const files = {
    'api.raml': API,
    'expense.json': EXPENSE,
    'split.json': child('Split'),
    'comment.json': child('Comment'),
  };
  dir = await projectOf(files, 'e2e-concurrent-cascade');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('a delete that takes objects along, beside a create below it, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'concurrent_cascade');
    service = await startService(dir, database.env, '/v1');
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('never takes a child it did not read: each one created and gone has its delete event', async () => {
    const created: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const expense = (await api('POST', '/expenses', { title: `e${round}` })).body['id'] as number;
      for (let i = 0; i < SPLITS; i++) await api('POST', '/splits', { note: `s${i}`, expense });
      const [deleted, comment] = await Promise.all([
        api('DELETE', `/expenses/${expense}`),
        api('POST', '/comments', { note: 'posted meanwhile', expense }),
      ]);
      expect(deleted.status, deleted.text).toBe(200);
      // Either before the delete (then taken along, with its event) or after it (its expense is gone: refused).
      expect([201, 400, 404, 409], comment.text).toContain(comment.status);
      if (comment.status === 201) created.push(comment.body['id'] as number);
    }
    const events = JSON.parse(await storedEvents(engine, database.url, dir)) as Record<string, unknown>[];
    const deletedComments = new Set(events.filter((e) => e['type'] === 'Comment.delete').map((e) => String(e['pk'])));
    for (const id of created) {
      const now = await api('GET', `/comments/${id}`);
      if (now.status === 404)
        expect(deletedComments.has(String(id)), `comment ${id}: gone, with no delete event`).toBe(true);
    }
  }, 180_000);
});
