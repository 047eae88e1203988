/**
 * What a model's own code gives a field is held to the field's schema, as a client's body is. An
 * attacker probe's processor returned 46 characters for a phone of at most 30: SQLite stored them,
 * PostgreSQL refused them as the client's mistake (a 400); one that returned a number for the text
 * field had it stored as "12345.0" on SQLite and "12345" on PostgreSQL. Now each engine answers
 * the same 500, stores nothing, and the log names the code, the field and what is wrong.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { raml } from '../support/files.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: League
baseUri: http://{host}/{version}
version: v1
/players:
  get:
  post:
    body:
      application/json:
        schema: !include player.json
  /{id}:
    get:
    patch:
      body:
        application/json:
          schema: !include player.json
`);

const PLAYER = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['set_rank'], before_update: ['set_rank'] },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string', required: true } },
    phone: { _db_settings: { type: 'string', max_length: 30 }, _processors: ['normalize_phone'] },
    rank: { _db_settings: { type: 'integer' } },
    tags: { type: ['array', 'null'], maxItems: 2, _db_settings: { type: 'list', item_type: 'string' } },
  },
});

/** Spaces out of a number, but what the probe's version did for some numbers. */
const NORMALIZE_PHONE = `import type { NormalizePhoneArgs } from '../../events.js';

export function normalizePhone({ new_value }: NormalizePhoneArgs): NormalizePhoneArgs['new_value'] {
  if (new_value === 'long') return '+1 '.repeat(15) + '0';
  if (new_value === 'number') return 12345 as never;
  return typeof new_value === 'string' ? new_value.replace(/\\s+/g, '') : new_value;
}
`;

/** A rank from the name, but text for one name; a phone the processor then normalises; tags added in place. */
const SET_RANK = `import type { SetRankEvent } from '../../events.js';

export function setRank(event: SetRankEvent): void {
  const name = event.fields.name?.new_value;
  if (name === 'bad rank') event.setFieldValue('rank', 'first' as never);
  else if (name === 'spaced') event.setFieldValue('phone', '555 0100 22');
  else if (name === 'tagger') event.fields.tags?.new_value?.push('extra', 'more');
  else if (name !== undefined) event.setFieldValue('rank', name.length);
}
`;

describe.each(ENGINES)("values the model's own code gives its fields (%s)", (engine) => {
  let served: ServedApi;

  beforeAll(async () => {
    served = await servedApi({ 'api.raml': API, 'player.json': PLAYER }, `e2e-written-values-${engine}`, {
      engine,
      prepare: (dir) => {
        writeFileSync(join(dir, 'src/custom/processors/normalize-phone.ts'), NORMALIZE_PHONE);
        writeFileSync(join(dir, 'src/custom/handlers/set-rank.ts'), SET_RANK);
      },
    });
  }, 600_000);

  afterAll(() => served?.stop());

  const names = async () =>
    ((await served.api('GET', '/players?_limit=100')).body.data as { name: string }[]).map((p) => p.name).sort();

  it('takes what fits: a processor output within the field, a handler value a processor then fixes', async () => {
    const plain = await served.api('POST', '/players', { name: 'ada', phone: '555 01' });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body).toMatchObject({ phone: '55501', rank: 3 });
    const spaced = await served.api('POST', '/players', { name: 'spaced' });
    expect(spaced.status, spaced.text).toBe(201);
    expect(spaced.body).toMatchObject({ phone: '555010022' });
  });

  it("refuses a processor's value too long for its field: a 500 on every engine, nothing stored", async () => {
    const before = await names();
    const long = await served.api('POST', '/players', { name: 'grace', phone: 'long' });
    expect(long.status, long.text).toBe(500);
    expect(long.text).not.toMatch(/normalizePhone|phone/);
    expect(await names()).toEqual(before);
    await expect
      .poll(() => served.output(), { timeout: 5_000 })
      .toContain(
        'normalizePhone, processor of phone of Player gave Player.phone a value its schema refuses: phone must be at most 30 characters long',
      );
  });

  it("refuses a processor's number for a text field, on a change too: the stored value stays", async () => {
    const made = await served.api('POST', '/players', { name: 'linus', phone: '555 02' });
    expect(made.status, made.text).toBe(201);
    const at = `/players/${String(made.body.id)}`;
    const changed = await served.api('PATCH', at, { phone: 'number' });
    expect(changed.status, changed.text).toBe(500);
    expect((await served.api('GET', at)).body).toMatchObject({ phone: '55502' });
    await expect
      .poll(() => served.output(), { timeout: 5_000 })
      .toContain('gave Player.phone a value its schema refuses: phone must be a string');
  });

  it('refuses a list a before handler made too long in place (the same list the body had)', async () => {
    const before = await names();
    const fits = await served.api('POST', '/players', { name: 'tagless', tags: ['a'] });
    expect(fits.status, fits.text).toBe(201);
    const tagged = await served.api('POST', '/players', { name: 'tagger', tags: ['a'] });
    expect(tagged.status, tagged.text).toBe(500);
    expect(await names()).toEqual([...before, 'tagless'].sort());
    await expect
      .poll(() => served.output(), { timeout: 5_000 })
      .toContain('setRank, before_create of Player gave Player.tags a value its schema refuses: tags must');
  });

  it("refuses a before handler's value that does not fit, naming the handler", async () => {
    const before = await names();
    const bad = await served.api('POST', '/players', { name: 'bad rank' });
    expect(bad.status, bad.text).toBe(500);
    expect(await names()).toEqual(before);
    await expect
      .poll(() => served.output(), { timeout: 5_000 })
      .toContain(
        'setRank, before_create of Player gave Player.rank a value its schema refuses: rank must be a whole number',
      );
  });
});
