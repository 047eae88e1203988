/**
 * An after handler that sets a field of the answer (`setFieldValue`, in place) is seen in the body
 * sent, after a create, a PATCH, a PUT and a GET alike: a runtime that sends an item as the JSON
 * text its ETag was computed from (tried twice for speed, bench/RESULTS.md) must not send the text
 * of before the handler. And where no handler runs, the body sent is the object the ETag names:
 * GET's tag, a create's, a change's and If-Match agree. SQLite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Notes
baseUri: http://{host}/{version}
version: v1
/notes:
  get:
  post:
    body:
      application/json:
        schema: !include note.json
  /{id}:
    get:
    patch:
    put:
/plain_notes:
  get:
  post:
    body:
      application/json:
        schema: !include plain_note.json
  /{id}:
    get:
    patch:
/keyed_notes:
  post:
    body:
      application/json:
        schema: !include keyed_note.json
  /{id}:
    get:
    patch:
`);

const fields = {
  id: { _db_settings: { type: 'id_field', primary_key: true } },
  title: { _db_settings: { type: 'string', required: true } },
  stamp: { _db_settings: { type: 'string' } },
};
const NOTE = JSON.stringify({
  type: 'object',
  _event_handlers: {
    after_create: ['stamp_answer'],
    after_update: ['stamp_answer'],
    after_replace: ['stamp_answer'],
    after_show: ['stamp_answer'],
  },
  properties: fields,
});
const PLAIN_NOTE = JSON.stringify({ type: 'object', properties: fields });
const KEYED_NOTE = JSON.stringify({
  type: 'object',
  _event_handlers: { before_update: ['move_key'] },
  properties: fields,
});

/** A before_update that gives the object another key: a probe's handler moved its order so. */
const MOVE_KEY = `import type { MoveKeyEvent } from '../../events.js';

export async function moveKey(event: MoveKeyEvent): Promise<void> {
  event.setFieldValue('id', 4242);
}
`;

const STAMP_ANSWER = `import type { StampAnswerEvent } from '../../events.js';

export async function stampAnswer(event: StampAnswerEvent): Promise<void> {
  event.setFieldValue('stamp', \`answered after \${event.action}\`);
}
`;

describe('an answer its after handlers change, and one they do not', () => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi(
      { 'api.raml': API, 'note.json': NOTE, 'plain_note.json': PLAIN_NOTE, 'keyed_note.json': KEYED_NOTE },
      'e2e-after-answers',
      {
        prepare: (dir) => {
          writeFileSync(join(dir, 'src/custom/handlers/stamp-answer.ts'), STAMP_ANSWER);
          writeFileSync(join(dir, 'src/custom/handlers/move-key.ts'), MOVE_KEY);
        },
      },
    );
  }, 600_000);

  afterAll(() => served?.stop());

  it('says what the after handler set, whatever the action', async () => {
    const created = await api('POST', '/notes', { title: 'one' });
    expect([created.status, created.body.stamp], created.text).toEqual([201, 'answered after create']);
    const path = `/notes/${String(created.body.id)}`;
    const changed = await api('PATCH', path, { title: 'two' });
    expect([changed.status, changed.body.title, changed.body.stamp], changed.text).toEqual([
      200,
      'two',
      'answered after update',
    ]);
    const replaced = await api('PUT', path, { title: 'three' });
    expect([replaced.status, replaced.body.stamp], replaced.text).toEqual([200, 'answered after replace']);
    const read = await api('GET', path);
    expect([read.status, read.body.title, read.body.stamp], read.text).toEqual([200, 'three', 'answered after show']);
  });

  it('sets only a field the answer shows: one left out stays out (a hidden one was shown to a member)', async () => {
    const created = await api('POST', '/notes', { title: 'one' });
    const read = await api('GET', `/notes/${String(created.body.id)}?_fields=title`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.title).toBe('one');
    expect(read.body).not.toHaveProperty('stamp');
  });

  it("refuses a handler's change of an object's key: a 500, and the object as it was", async () => {
    const created = await api('POST', '/keyed_notes', { title: 'one' });
    const path = `/keyed_notes/${String(created.body.id)}`;
    const changed = await api('PATCH', path, { title: 'two' });
    expect(changed.status, changed.text).toBe(500);
    expect(changed.text).not.toContain('setFieldValue');
    expect((await api('GET', path)).body.title).toBe('one');
    expect((await api('GET', '/keyed_notes/4242')).status).toBe(404);
  });

  it('without handlers, sends the object its ETag names', async () => {
    const created = await api('POST', '/plain_notes', { title: 'one', stamp: 'mine' });
    expect(created.status, created.text).toBe(201);
    const path = `/plain_notes/${String(created.body.id)}`;
    const read = await api('GET', path);
    expect(read.body).toEqual(created.body);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const changed = await api('PATCH', path, { title: 'two' }, { headers: { 'if-match': read.headers.get('etag')! } });
    expect([changed.status, changed.body.title, changed.body.stamp], changed.text).toEqual([200, 'two', 'mine']);
    const again = await api('GET', path);
    expect(again.text).toBe(changed.text);
    expect(again.headers.get('etag')).toBe(changed.headers.get('etag'));
    expect(again.headers.get('etag')).not.toBe(read.headers.get('etag'));
    const stale = await api('PATCH', path, { title: 'three' }, { headers: { 'if-match': read.headers.get('etag')! } });
    expect(stale.status, stale.text).toBe(412);
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
