/**
 * Objects served only below a grandparent (`/projects/{id}/tasks/{tid}/notes/{nid}`) hold their
 * parent's key but not their grandparent's, so their model cannot name their URL: `_self` and a
 * create's `Location` named the collection instead (a client that followed `Location` listed notes
 * where it meant to read one), and an item's `_self` kept the request's `?_fields=…`. They are
 * now named by the request's path: an item's, or the collection's with the key below it. The
 * objects the service embeds elsewhere, with no such path, still name the request (documented).
 * SQLite and PostgreSQL, auth off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { raml } from '../support/files.js';
import { rawSocket } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const schema = (title: string, properties: Record<string, unknown>) =>
  JSON.stringify({
    type: 'object',
    title,
    properties: { id: { _db_settings: { type: 'id_field', primary_key: true } }, ...properties },
  });

const FILES = {
  'api.raml': raml(`
title: Deep
baseUri: http://{host}/{version}
version: v1
mediaType: application/json
/projects:
  get:
  post:
    body:
      application/json:
        schema: !include project.json
  /{id}:
    get:
    /tasks:
      get:
      post:
        body:
          application/json:
            schema: !include task.json
      /{tid}:
        get:
        /notes:
          get:
          post:
            body:
              application/json:
                schema: !include note.json
          /{nid}:
            get:
            patch:
`),
  'project.json': schema('Project', {
    name: { _db_settings: { type: 'string' } },
    tasks: { _db_settings: { type: 'relationship', document: 'Task', backref_name: 'project' } },
  }),
  'task.json': schema('Task', {
    title: { _db_settings: { type: 'string' } },
    project_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Project',
        ref_column: 'project.id',
        ref_column_type: 'id_field',
      },
    },
    notes: { _db_settings: { type: 'relationship', document: 'Note', backref_name: 'task' } },
  }),
  'note.json': JSON.stringify({
    type: 'object',
    title: 'Note',
    properties: {
      code: { type: 'string', _db_settings: { type: 'string', primary_key: true } },
      text: { _db_settings: { type: 'string' } },
      task_id: {
        _db_settings: { type: 'foreign_key', ref_document: 'Task', ref_column: 'task.id', ref_column_type: 'id_field' },
      },
    },
  }),
};

describe.each(ENGINES)('objects below a grandparent on %s', (engine) => {
  let served: ServedApi;
  /** The notes' collection: its path below /v1, and its URL; and another task's, in another project. */
  let path: string;
  let notes: string;
  let elsewhere: string;

  beforeAll(async () => {
    served = await servedApi(FILES, `e2e-deep-self-${engine}`, { engine });
    const notesOf = async () => {
      const project = await served.api('POST', '/projects', { name: 'p' });
      const task = await served.api('POST', `/projects/${project.body.id}/tasks`, { title: 't' });
      expect(task.status, task.text).toBe(201);
      return `/projects/${project.body.id}/tasks/${task.body.id}/notes`;
    };
    path = await notesOf();
    notes = `${served.origin}/v1${path}`;
    elsewhere = await notesOf();
  }, 600_000);

  afterAll(() => served?.stop());

  it("name a created one's own URL in Location and _self, and it reads the object", async () => {
    const made = await served.api('POST', path, { code: 'n1', text: 'first' });
    expect(made.status, made.text).toBe(201);
    const own = `${notes}/n1`;
    expect([made.headers.get('location'), made.body._self]).toEqual([own, own]);
    const read = await served.api('GET', `${path}/n1`);
    expect([read.status, read.body.text, read.body._self]).toEqual([200, 'first', own]);
  });

  it("name each listed one's own URL, and an item's without the request's query", async () => {
    expect((await served.api('POST', path, { code: 'n 2', text: 'second' })).status).toBe(201);
    const page = await served.api('GET', `${path}?_sort=code`);
    expect(page.status, page.text).toBe(200);
    const items = page.body.data as { code: string; _self: string }[];
    expect(items.length).toBeGreaterThan(1);
    expect(items.map((note) => note._self)).toEqual(items.map((note) => `${notes}/${encodeURIComponent(note.code)}`));
    const only = await served.api('GET', `${path}/n%202?_fields=text`);
    expect([only.status, only.body._self], only.text).toEqual([200, `${notes}/n%202`]);
    const changed = await served.api('PATCH', `${path}/n%202`, { text: 'changed' });
    expect([changed.status, changed.body._self], changed.text).toEqual([200, `${notes}/n%202`]);
    // One name of many: encoded anew (`%6E1` is n1), not as the request wrote it.
    expect((await served.api('GET', `${path}/%6E1`)).body._self).toBe(`${notes}/n1`);
  });

  it("never names another parent's object, whatever its key holds or the request line says (a probe's)", async () => {
    expect((await served.api('POST', elsewhere, { code: 'r2', text: 'theirs' })).status).toBe(201);
    // A key that, read by a URL parser from the request's path, climbs to the other task's note.
    const code = `..\\..\\..\\..${elsewhere.replace(/\//g, '\\')}\\r2`;
    expect((await served.api('POST', path, { code, text: 'mine' })).status).toBe(201);
    const own = `${notes}/${encodeURIComponent(code)}`;
    const port = Number(new URL(served.origin).port);
    for (const target of [`/v1${path}/${code}`, `${served.origin}/v1${path}/${code}`]) {
      const answer = await rawSocket(
        port,
        `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
      );
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { text?: string; _self?: string };
      expect([body.text, body._self], target).toEqual(['mine', own]);
    }
  });
});
