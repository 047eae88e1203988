/**
 * `_event_previous` (docs/schema.md): an update's and a replace's events carry the object as it was
 * (`previous`) and the fields that changed (`changed`), on every engine, however the write went (a
 * PATCH, a PUT, a bulk PATCH, a dict merge, a link another model's write moved); a model without
 * it keeps its events as they were. The change feed shows a member `previous` and `changed` of
 * the fields they may read alone, and only of a state they may view (a probe's lab notified "in
 * maintenance" on every later edit, for want of them; an attacker's company read, in `previous`,
 * whose a booking moved into it had been).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { openFeed } from '../support/feed.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { newSecret, Receiver } from '../support/receiver.js';
import { startService, type RunningService } from '../support/server.js';
import { apiToken, memberTokens } from '../support/served.js';

type Rec = Record<string, unknown>;

const API = securedRaml(
  'Lab',
  {
    lab_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view',
    },
    instrument_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow {{keeper}} view\ndeny everyone all',
    },
  },
  `
/labs:
  securedBy: [lab_acl]
  get:
  post:
    body:
      application/json:
        schema: !include lab.json
  patch:
  /{id}:
    get:
    patch:
/instruments:
  securedBy: [instrument_acl]
  get:
  post:
    body:
      application/json:
        schema: !include instrument.json
  patch:
  /{id}:
    get:
    patch:
    put:
    /settings:
      get:
      post:
`,
);

// Its instruments are kept in their rows, which makes `_event_previous` its default with auth: said off here.
const LAB = JSON.stringify({
  type: 'object',
  _event_previous: false,
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { type: 'string', _db_settings: { type: 'string', required: true } },
    instruments: { _db_settings: { type: 'relationship', document: 'Instrument', backref_name: 'lab' } },
  },
});

const INSTRUMENT = JSON.stringify({
  type: 'object',
  _event_previous: true,
  _auth_fields: ['id', 'name', 'status', 'lab', 'lab_id', 'settings', 'keeper'],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { type: 'string', _db_settings: { type: 'string', required: true } },
    status: { _db_settings: { type: 'choice', choices: ['ok', 'maintenance'], default: 'ok' } },
    location: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    keeper: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    settings: { type: ['object', 'null'], _db_settings: { type: 'dict' } },
    lab_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Lab', ref_column: 'lab.id', ref_column_type: 'id_field' },
    },
  },
});

const SUBSCRIBER = `import { appendFileSync } from 'node:fs';
import type { Subscriptions } from '../../committed.js';

export default function instrumentSubscriber(on: Subscriptions<'Instrument'>): void {
  on('Instrument.update', async (event, { db }) => {
    const { changed, previous, object } = event.data;
    if (!changed.includes('status') || object.status !== 'maintenance') return;
    // What it reads of the database, it reads through the repositories it is given.
    const now = await db.instrument.findUnique({ where: { id: object.id } });
    appendFileSync(process.env['MAINTENANCE_LOG']!, \`\${event.data.pk} \${previous.status} \${now?.name}\\n\`);
  });
}
`;

/** A nightly job's change, made through the repositories and recorded (the README's "A script of your own"). */
const SCRIPT = `import { loadServiceConfig } from '../../config.js';
import { openDatabase } from '../../db/index.js';
import { recordChange } from '../../lib/outbox/record.js';

const id = Number(process.argv[2]);
const db = await openDatabase(loadServiceConfig());
try {
  await db.transaction(async (tx) => {
    const before = await tx.instrument.findUnique({ where: { id } });
    await tx.instrument.update({ where: { id }, data: { status: 'maintenance' } });
    await recordChange(tx, 'Instrument', 'update', id, before ?? undefined);
  });
} finally {
  await db.close();
}
`;

/** `{{keeper}}`: who keeps an instrument views it. */
const KEEPER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Instrument } from '../../models/instrument.js';

export function keeper(_request: FastifyRequest, object: Instrument | undefined, rule: AclRule): AclResult {
  return object?.keeper != null ? grant(rule, user(object.keeper)) : undefined;
}
`;

let dir: string;

beforeAll(async () => {
  dir = await projectOf({ 'api.raml': API, 'lab.json': LAB, 'instrument.json': INSTRUMENT }, 'e2e-event-previous');
  // The probe's subscriber: told once when an instrument goes into maintenance, not on every later edit.
  writeFileSync(join(dir, 'src/custom/events/instrument.ts'), SUBSCRIBER);
  writeFileSync(join(dir, 'src/custom/principals/keeper.ts'), KEEPER);
  mkdirSync(join(dir, 'src/custom/scripts'), { recursive: true });
  writeFileSync(join(dir, 'src/custom/scripts/maintain.ts'), SCRIPT);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('events with their previous state, on %s', (engine) => {
  const receiver = new Receiver(newSecret());
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let root: string;
  const maintenanceLog = join(tmpdir(), `svcgen-maintenance-${engine}-${process.pid}.log`);

  beforeAll(async () => {
    await receiver.start();
    database = await testDatabase(engine, dir, 'event_previous');
    service = await startService(
      dir,
      {
        ...database.env,
        ...rootAuthEnv(),
        SVC_WEBHOOKS_AUDIT_URL: receiver.url,
        SVC_WEBHOOKS_AUDIT_SECRET: receiver.secret,
        MAINTENANCE_LOG: maintenanceLog,
      },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
    root = await apiToken(api, 'root', 'root-password');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    await database?.drop();
    rmSync(maintenanceLog, { force: true });
  });

  const as = (token: string) => ({ headers: { authorization: token } });
  /** The data of the `nth` delivered event of `type` for object `pk`. */
  const eventData = async (type: string, pk: unknown, nth: number): Promise<Rec> => {
    const of = () =>
      [...receiver.delivered().values()]
        .filter((r) => r.type === type && r.pk === String(pk))
        .sort((a, b) => a.seq - b.seq);
    await receiver.waitFor(() => of().length >= nth, 20_000, `${type} ${String(pk)} #${nth}`);
    return of()[nth - 1]!.data;
  };

  it('says what an update, a replace, a bulk change and a dict merge changed, from what', async () => {
    const made = await api('POST', '/instruments', { name: 'NMR', location: 'B12' }, as(root));
    expect(made.status, made.text).toBe(201);
    const id = (made.body as Rec)['id'];
    expect(await eventData('Instrument.create', id, 1)).not.toHaveProperty('previous');

    expect((await api('PATCH', `/instruments/${String(id)}`, { status: 'maintenance' }, as(root))).status).toBe(200);
    const into = await eventData('Instrument.update', id, 1);
    expect(into['changed']).toEqual(['status']);
    expect(into['previous']).toMatchObject({ status: 'ok', location: 'B12', _type: 'Instrument', _pk: String(id) });
    expect(into['object']).toMatchObject({ status: 'maintenance', location: 'B12' });

    // An edit that leaves the status as it was is no change of it: a subscriber is not told twice.
    expect((await api('PATCH', `/instruments/${String(id)}`, { location: 'C3' }, as(root))).status).toBe(200);
    const moved = await eventData('Instrument.update', id, 2);
    expect(moved['changed']).toEqual(['location']);
    expect(moved['previous']).toMatchObject({ status: 'maintenance', location: 'B12' });
    expect((await api('PATCH', `/instruments/${String(id)}`, { location: 'C3' }, as(root))).status).toBe(200);
    expect((await eventData('Instrument.update', id, 3))['changed']).toEqual([]);
    // The subscriber was told of the change into maintenance once, with what it was before.
    await receiver.waitFor(() => existsSync(maintenanceLog), 20_000, 'the subscriber');
    expect(readFileSync(maintenanceLog, 'utf8')).toBe(`${String(id)} ok NMR\n`);

    const put = await api('PUT', `/instruments/${String(id)}`, { name: 'NMR 600' }, as(root));
    expect(put.status, put.text).toBe(200);
    const replaced = await eventData('Instrument.replace', id, 1);
    expect(replaced['changed']).toEqual(['name', 'status', 'location']);
    expect(replaced['previous']).toMatchObject({ name: 'NMR', status: 'maintenance', location: 'C3' });

    const bulk = await api('PATCH', `/instruments?id=${String(id)}`, { status: 'maintenance' }, as(root));
    expect(bulk.status, bulk.text).toBe(200);
    expect(await eventData('Instrument.update', id, 4)).toMatchObject({
      changed: ['status'],
      previous: { status: 'ok' },
    });

    const merged = await api('POST', `/instruments/${String(id)}/settings`, { field: 400 }, as(root));
    expect(merged.status, merged.text).toBe(201);
    expect(await eventData('Instrument.update', id, 5)).toMatchObject({
      changed: ['settings'],
      previous: { settings: null },
      object: { settings: { field: 400 } },
    });
  });

  it('says it of a change a script made through the repositories and recorded', async () => {
    const made = await api('POST', '/instruments', { name: 'Centrifuge' }, as(root));
    const id = (made.body as Rec)['id'];
    const run = await execa('node', ['dist/custom/scripts/maintain.js', String(id)], {
      cwd: dir,
      env: { ...database.env },
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(await eventData('Instrument.update', id, 1)).toMatchObject({
      changed: ['status'],
      previous: { status: 'ok', name: 'Centrifuge' },
      object: { status: 'maintenance', name: 'Centrifuge' },
    });
    // Its subscriber heard of it too, as of a route's change.
    await receiver.waitFor(() => readFileSync(maintenanceLog, 'utf8').includes(`${String(id)} ok Centrifuge`));
  });

  it('says it of an object whose link another model’s write moved, and not of a model without _event_previous', async () => {
    const made = await api('POST', '/instruments', { name: 'Microscope' }, as(root));
    const id = (made.body as Rec)['id'];
    const lab = await api('POST', '/labs', { name: 'Chemistry' }, as(root));
    const labId = (lab.body as Rec)['id'];
    const linked = await api('PATCH', `/labs/${String(labId)}`, { instruments: [id] }, as(root));
    expect(linked.status, linked.text).toBe(200);
    const moved = await eventData('Instrument.update', id, 1);
    expect(moved['changed']).toEqual(expect.arrayContaining(['lab']));
    expect(moved['previous']).toMatchObject({ lab: null });
    expect(moved['object']).toMatchObject({ lab: labId });
    const labEvent = await eventData('Lab.update', labId, 1);
    expect(labEvent).not.toHaveProperty('previous');
    expect(labEvent).not.toHaveProperty('changed');
  });

  // The feed's filtering is the engines' alike: once is enough.
  it.runIf(engine === 'sqlite')(
    'shows a member previous and changed of the fields they may read, and only of a state they may view, in the change feed',
    async () => {
      // A new token of root's too: the one above is revoked.
      const tokens = await memberTokens(api, ['mia']);
      const admin = as(tokens.get('root')!);
      const make = async (body: Rec) => (await api('POST', '/instruments', body, admin)).body['id'] as number;
      const laser = await make({ name: 'Laser', location: 'D1', keeper: 'mia' });
      const saw = await make({ name: 'Saw', location: 'Z1', keeper: 'zoe' });
      const feed = await openFeed(`${service.origin}/v1/_events?types=Instrument.update`, {
        authorization: tokens.get('mia')!,
      });
      const dataOf = (id: number) => {
        const message = feed.messages.find((m) => JSON.parse(m.data).data.pk === String(id));
        return message && JSON.parse(message.data).data;
      };
      try {
        expect(feed.status).toBe(200);
        const patch = async (id: number, body: Rec) =>
          expect((await api('PATCH', `/instruments/${id}`, body, admin)).status).toBe(200);
        await patch(laser, { location: 'D2', status: 'maintenance' });
        // Zoe's saw given to mia: mia sees it now, and not what it was while it was zoe's.
        await patch(saw, { keeper: 'mia', status: 'maintenance' });
        await feed.until(() => dataOf(laser) !== undefined && dataOf(saw) !== undefined);
        const mine = dataOf(laser);
        expect(mine.changed).toEqual(['status']);
        expect(mine.previous).toMatchObject({ status: 'ok', keeper: 'mia' });
        expect(mine.previous).not.toHaveProperty('location');
        expect(mine.object).not.toHaveProperty('location');
        const given = dataOf(saw);
        expect(given.object).toMatchObject({ keeper: 'mia', status: 'maintenance' });
        expect(given).not.toHaveProperty('previous');
        expect(given).not.toHaveProperty('changed');
      } finally {
        feed.close();
      }
    },
  );
});
