/**
 * `_group_fields`: fields a group's members see besides `_auth_fields` (a museum's insurance
 * values for its registrars, condition notes for its conservators), and that other members can
 * neither read, nor find objects by (filters, sorting, `_fields`, search), nor write. Three new
 * users had asked for per-group privacy; before it, their only way was a one-to-one model of its
 * own. Every engine; the change feed on SQLite, as its other tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { openFeed } from '../support/feed.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';
import { memberTokens } from '../support/served.js';

type Rec = Record<string, unknown>;

const API = securedRaml(
  'Museum',
  {
    artwork_acl: {
      collection: 'allow g:admin all\nallow everyone view\nallow authenticated create',
      item: 'allow g:admin all\nallow everyone view\nallow authenticated update',
    },
    admins: { collection: 'allow g:admin all' },
  },
  `
/artworks:
  securedBy: [artwork_acl]
  get:
  post:
    body:
      application/json:
        schema: !include artwork.json
  /{id}:
    get:
    patch:
/users:
  securedBy: [admins]
  get:
  /{username}:
    get:
    patch:
`,
);

const FILES = {
  'api.raml': API,
  'artwork.json': JSON.stringify({
    type: 'object',
    _event_previous: true,
    _public_fields: ['id', 'title'],
    _auth_fields: ['id', 'title', 'room'],
    // `g:conservator,registrar` is one group, whose name has a comma: not conservators and registrars.
    _group_fields: {
      'g:registrar': ['insurance_value'],
      'g:conservator': ['condition'],
      'g:conservator,registrar': ['provenance'],
    },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      title: { type: 'string', _db_settings: { type: 'string', required: true } },
      room: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      insurance_value: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
      condition: { type: ['string', 'null'], _db_settings: { type: 'text' } },
      provenance: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    },
  }),
};

let dir: string;

beforeAll(async () => {
  dir = await projectOf(FILES, 'e2e-group-fields');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('fields shown to a group, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let tokens: Map<string, string>;
  let artwork: unknown;
  const as = (name: string) => (name === 'anonymous' ? {} : { headers: { authorization: tokens.get(name)! } });
  const get = async (who: string, path: string) => {
    const reply = await api('GET', path, undefined, as(who));
    return { status: reply.status, body: reply.body as Rec, text: reply.text };
  };

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'group_fields');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    tokens = await memberTokens(api, ['rita', 'carl', 'both', 'odd', 'mia']);
    for (const [name, groups] of [
      // As an admin may type it: groups are read as the x-ACLs read them, lower-cased.
      ['rita', ['user', 'Registrar']],
      ['odd', ['user', 'conservator,registrar']],
      ['carl', ['user', 'conservator']],
      ['both', ['user', 'registrar', 'conservator']],
    ] as const) {
      const set = await api('PATCH', `/users/${name}`, { groups }, as('root'));
      expect(set.status, set.text).toBe(200);
    }
    const created = await api(
      'POST',
      '/artworks',
      {
        title: 'Water Lilies',
        room: 'east wing',
        insurance_value: 5000,
        condition: 'craquelure near the frame',
        provenance: 'bought 1926',
      },
      as('root'),
    );
    expect(created.status, created.text).toBe(201);
    artwork = created.body['id'];
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const fieldsOf = (body: Rec) =>
    Object.keys(body)
      .filter((k) => !k.startsWith('_'))
      .sort();

  it('shows each member what their groups add to what every member sees', async () => {
    const seen = async (who: string) => {
      const one = await get(who, `/artworks/${String(artwork)}`);
      expect(one.status, one.text).toBe(200);
      const listed = await get(who, '/artworks');
      expect(fieldsOf((listed.body['data'] as Rec[])[0]!)).toEqual(fieldsOf(one.body));
      return fieldsOf(one.body);
    };
    expect(await seen('anonymous')).toEqual(['id', 'title']);
    expect(await seen('mia')).toEqual(['id', 'room', 'title']);
    expect(await seen('rita')).toEqual(['id', 'insurance_value', 'room', 'title']);
    expect(await seen('carl')).toEqual(['condition', 'id', 'room', 'title']);
    // Whoever reads first, the group with a comma in its name and the two groups it spells are told apart.
    expect(await seen('odd')).toEqual(['id', 'provenance', 'room', 'title']);
    expect(await seen('both')).toEqual(['condition', 'id', 'insurance_value', 'room', 'title']);
    expect(await seen('root')).toEqual(['condition', 'id', 'insurance_value', 'provenance', 'room', 'title']);
  });

  it('says who sees each field in the OpenAPI document', async () => {
    const document = (await api('GET', '/openapi.json')).body as Rec;
    const properties = (document['components'] as Rec & { schemas: Record<string, { properties: Rec }> }).schemas[
      'Artwork'
    ]!.properties as Record<string, Rec>;
    expect(properties['insurance_value']!['x-svcgen-visible-to']).toEqual(['g:registrar', 'admin']);
    expect(properties['condition']!['x-svcgen-visible-to']).toEqual(['g:conservator', 'admin']);
    expect(properties['room']!['x-svcgen-visible-to']).toEqual(['member', 'admin']);
    expect(properties['title']).not.toHaveProperty('x-svcgen-visible-to');
  });

  it('lets no one else find objects by such a field: filters, comparisons, sorting, _fields, search', async () => {
    for (const query of [
      'insurance_value=5000',
      'insurance_value__gte=4000',
      'insurance_value__isnull=false',
      '_sort=insurance_value',
      '_fields=insurance_value',
    ]) {
      const mia = await get('mia', `/artworks?${query}`);
      expect(mia.status, `${query}: ${mia.text}`).toBe(400);
      const carl = await get('carl', `/artworks?${query}`);
      expect(carl.status, `${query}: ${carl.text}`).toBe(400);
      const rita = await get('rita', `/artworks?${query}`);
      expect(rita.status, `${query}: ${rita.text}`).toBe(200);
      expect(rita.body['total'] ?? (rita.body['data'] as Rec[]).length, query).toBe(1);
    }
    const search = async (who: string) => (await get(who, '/artworks?q=craquelure')).body['total'];
    expect(await search('carl')).toBe(1);
    expect(await search('mia')).toBe(0);
    expect(await search('rita')).toBe(0);
  });

  it('lets only the group write it, where the x-ACL lets members update', async () => {
    const write = async (who: string, body: Rec) => api('PATCH', `/artworks/${String(artwork)}`, body, as(who));
    const refused = await write('mia', { insurance_value: 1 });
    expect([refused.status, refused.body.errors], refused.text).toEqual([
      403,
      [{ field: 'insurance_value', message: 'is not among the fields you may read, nor write' }],
    ]);
    expect((await write('carl', { insurance_value: 1 })).status).toBe(403);
    const written = await write('rita', { insurance_value: 7000 });
    expect([written.status, written.body['insurance_value']], written.text).toEqual([200, 7000]);
    expect((await write('carl', { condition: 'cleaned' })).status).toBe(200);
    const stored = await get('root', `/artworks/${String(artwork)}`);
    expect(stored.body).toMatchObject({ insurance_value: 7000, condition: 'cleaned' });
  });

  it.runIf(engine === 'sqlite')('shows the field in the change feed to the group alone', async () => {
    const feeds = await Promise.all(
      ['mia', 'rita'].map((who) =>
        openFeed(`${service.origin}/v1/_events?types=Artwork.update`, { authorization: tokens.get(who)! }),
      ),
    );
    try {
      const patch = async (body: Rec) => {
        const patched = await api('PATCH', `/artworks/${String(artwork)}`, body, as('root'));
        expect(patched.status, patched.text).toBe(200);
      };
      // A new value mia may not read: no event of hers, which would tell her when it changed.
      await patch({ insurance_value: 9000 });
      await patch({ room: 'west wing', insurance_value: 9500 });
      for (const feed of feeds) await feed.until((messages) => messages.length >= 1);
      const [mia, rita] = feeds.map((feed) => JSON.parse(feed.messages[0]!.data).data as Rec);
      expect(mia!['object']).toMatchObject({ room: 'west wing' });
      expect(mia!['object']).not.toHaveProperty('insurance_value');
      expect(mia!['previous']).not.toHaveProperty('insurance_value');
      expect(mia!['changed']).toEqual(['room']);
      expect(rita!['object']).toMatchObject({ insurance_value: 9000 });
      expect(rita!['previous']).toMatchObject({ insurance_value: 7000 });
      expect(rita!['changed']).toEqual(['insurance_value']);
    } finally {
      for (const feed of feeds) feed.close();
    }
  });
});
