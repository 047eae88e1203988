/**
 * A default a user function computes (`"default": "{{next_code}}"`) is taken once per create, and
 * what it gives must fit its field. A new-user probe's sequence went up by two per POST (the
 * function ran for the link check before the handlers too, and that value was thrown away), and
 * its default that gave text for an integer field was stored as text (SQLite keeps it), shown as
 * null and counted by `code__gt`. The stub is typed by the field now; one that still returns
 * `unknown` (stubs are the user's, made before) is held to the field when it runs: a 500 that
 * names the field, and nothing stored. SQLite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Episodes
baseUri: http://{host}/{version}
version: v1
/shows:
  post:
    body:
      application/json:
        schema: !include show.json
  /{id}:
    /episodes:
      get:
      post:
        body:
          application/json:
            schema: !include episode.json
/clips:
  get:
  post:
    body:
      application/json:
        schema: !include clip.json
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };

const SHOW = JSON.stringify({
  type: 'object',
  properties: {
    id,
    title: { _db_settings: { type: 'string', required: true } },
    episodes: { _db_settings: { type: 'relationship', document: 'Episode', backref_name: 'show' } },
  },
});

const EPISODE = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['note_create'] },
  properties: {
    id,
    title: { _db_settings: { type: 'string', required: true } },
    code: { _db_settings: { type: 'integer', default: '{{next_code}}' } },
    show_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Show', ref_column: 'show.id', ref_column_type: 'id_field' },
    },
  },
});

const CLIP = JSON.stringify({
  type: 'object',
  properties: { id, length: { _db_settings: { type: 'integer', default: '{{clip_length}}' } } },
});

/** A sequence, as the typed stub has it. */
const NEXT_CODE = `import type { Episode } from '../../models/episode.js';

let last = 1000;

export function nextCode(): NonNullable<Episode['code']> | null {
  last += 1;
  return last;
}
`;

/** As a stub made before they were typed: text, for an integer field. */
const CLIP_LENGTH = `export function clipLength(): unknown {
  return 'ten minutes';
}
`;

const NOTE_CREATE = `import type { NoteCreateEvent } from '../../events.js';

export function noteCreate(_event: NoteCreateEvent): void {}
`;

describe('a default computed by a user function', () => {
  let served: ServedApi;

  beforeAll(async () => {
    served = await servedApi(
      { 'api.raml': API, 'show.json': SHOW, 'episode.json': EPISODE, 'clip.json': CLIP },
      'e2e-callable-defaults',
      {
        prepare: (dir) => {
          writeFileSync(join(dir, 'src/custom/defaults/next-code.ts'), NEXT_CODE);
          writeFileSync(join(dir, 'src/custom/defaults/clip-length.ts'), CLIP_LENGTH);
          writeFileSync(join(dir, 'src/custom/handlers/note-create.ts'), NOTE_CREATE);
        },
      },
    );
  }, 600_000);

  afterAll(() => served?.stop());

  it('is taken once per create: a sequence goes up by one, nested or not', async () => {
    const show = await served.api('POST', '/shows', { title: 'pilot season' });
    expect(show.status, show.text).toBe(201);
    const codes: unknown[] = [];
    for (const title of ['one', 'two', 'three']) {
      const episode = await served.api('POST', `/shows/${String(show.body.id)}/episodes`, { title });
      expect(episode.status, episode.text).toBe(201);
      codes.push(episode.body.code);
    }
    expect(codes).toEqual([1001, 1002, 1003]);
  });

  it('that does not fit its field stores nothing: a 500 that says so in the log, not to the client', async () => {
    const clip = await served.api('POST', '/clips', {});
    expect(clip.status, clip.text).toBe(500);
    expect(clip.text).not.toContain('Clip.length');
    expect(await served.query('select id from clip')).toEqual([]);
    await expect
      .poll(() => served.output(), { timeout: 5_000 })
      .toContain('the default of Clip.length gave string, which its integer field cannot store');
  });
});
