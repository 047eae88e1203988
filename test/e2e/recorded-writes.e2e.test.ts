/**
 * `recorded(event.db)` (runtime/src/lib/outbox/recorded.ts): a handler's writes through the
 * repositories append their events as a route's do, so that subscribers, webhooks and the change
 * feed hear of them. A shelter's "approve one application, reject the others, mark the animal
 * adopted" made no event through plain `event.db`, and `updateMany` had no way to record one.
 * Every engine; plain `event.db` writes stay without events.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { newSecret, Receiver } from '../support/receiver.js';
import { startService, type RunningService } from '../support/server.js';

type Rec = Record<string, unknown>;

const API = raml(`title: Shelter
baseUri: http://{host}/{version}
version: v1
/animals:
  get:
  post:
    body:
      application/json:
        schema: !include animal.json
  /{id}:
    get:
/applications:
  get:
  post:
    body:
      application/json:
        schema: !include application.json
  /{id}:
    get:
    patch:
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const animalKey = {
  _db_settings: { type: 'foreign_key', ref_document: 'Animal', ref_column: 'animal.id', ref_column_type: 'id_field' },
};

const FILES = {
  'api.raml': API,
  'animal.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      name: { type: 'string', _db_settings: { type: 'string', required: true } },
      status: { _db_settings: { type: 'choice', choices: ['available', 'adopted'], default: 'available' } },
      note: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      applications: { _db_settings: { type: 'relationship', document: 'Application', backref_name: 'animal' } },
    },
  }),
  'application.json': JSON.stringify({
    type: 'object',
    _event_previous: true,
    _event_handlers: { after_update: ['settle'] },
    properties: {
      id,
      applicant: { type: 'string', _db_settings: { type: 'string', required: true } },
      status: {
        _db_settings: { type: 'choice', choices: ['pending', 'approved', 'rejected', 'withdrawn'], default: 'pending' },
      },
      animal_id: animalKey,
    },
  }),
};

/** Approving one application settles the rest: recorded writes for the animal and the rejected, a plain one for a note. */
const SETTLE = `import type { SettleEvent } from '../../events.js';
import { recorded } from '../../lib/outbox/recorded.js';

export async function settle(event: SettleEvent): Promise<void> {
  if (event.fields.status?.new_value !== 'approved') return;
  const application = event.instance!;
  const animal = application.animal_id!;
  // Recorded twice is recorded once.
  const db = recorded(recorded(event.db));
  await db.animal.update({ where: { id: animal }, data: { status: 'adopted' } });
  await db.application.updateMany({
    where: { animal_id: animal, status: 'pending', id: { not: application.id } },
    data: { status: 'rejected' },
  });
  await db.application.deleteMany({ where: { animal_id: animal, status: 'withdrawn' } });
  await db.animal.create({ data: { name: 'a placeholder', status: 'available' } });
  // Not recorded: plain repositories make no event.
  await event.db.animal.update({ where: { id: animal }, data: { note: 'settled' } });
}
`;

let dir: string;

beforeAll(async () => {
  dir = await projectOf(FILES, 'e2e-recorded-writes');
  writeFileSync(join(dir, 'src/custom/handlers/settle.ts'), SETTLE);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('writes a handler records, on %s', (engine) => {
  const receiver = new Receiver(newSecret());
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    await receiver.start();
    database = await testDatabase(engine, dir, 'recorded_writes');
    service = await startService(
      dir,
      { ...database.env, SVC_WEBHOOKS_AUDIT_URL: receiver.url, SVC_WEBHOOKS_AUDIT_SECRET: receiver.secret },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    await database?.drop();
  });

  const made = async (path: string, body: Rec) => {
    const reply = await api('POST', path, body);
    expect(reply.status, reply.text).toBe(201);
    return (reply.body as Rec)['id'];
  };

  it('appends the events of what the handler changed through recorded(event.db), and only those', async () => {
    const rex = await made('/animals', { name: 'Rex' });
    const [ann, bob, cy, dee] = [
      await made('/applications', { applicant: 'ann', animal: rex }),
      await made('/applications', { applicant: 'bob', animal: rex }),
      await made('/applications', { applicant: 'cy', animal: rex }),
      await made('/applications', { applicant: 'dee', animal: rex, status: 'withdrawn' }),
    ];
    const approved = await api('PATCH', `/applications/${String(ann)}`, { status: 'approved' });
    expect(approved.status, approved.text).toBe(200);

    const of = (type: string) => [...receiver.delivered().values()].filter((r) => r.type === type);
    await receiver.waitFor(
      () => of('Application.update').length >= 3 && of('Application.delete').length >= 1,
      20_000,
      'the settled applications',
    );
    await receiver.waitFor(
      () => of('Animal.create').length >= 2 && of('Animal.update').length >= 1,
      20_000,
      'the animals',
    );

    const statusOf = new Map(of('Application.update').map((r) => [r.pk, (r.data['object'] as Rec)['status']]));
    expect(statusOf).toEqual(
      new Map([
        [String(ann), 'approved'],
        [String(bob), 'rejected'],
        [String(cy), 'rejected'],
      ]),
    );
    expect(of('Application.update')).toHaveLength(3);
    // `_event_previous`: the rejected ones say what they were.
    const bobs = of('Application.update').find((r) => r.pk === String(bob))!;
    expect(bobs.data['previous']).toMatchObject({ status: 'pending' });
    expect(bobs.data['changed']).toEqual(['status']);
    const deleted = of('Application.delete');
    expect(deleted.map((r) => [r.pk, (r.data['object'] as Rec)['applicant']])).toEqual([[String(dee), 'dee']]);

    // The animal's recorded update says adopted; the plain write after it (a note) made no event of its own.
    const animal = of('Animal.update');
    expect(animal.map((r) => (r.data['object'] as Rec)['status'])).toEqual(['adopted']);
    expect(animal[0]!.data['object']).toMatchObject({ note: null });
    const created = new Set(of('Animal.create').map((r) => (r.data['object'] as Rec)['name']));
    expect(created).toEqual(new Set(['Rex', 'a placeholder']));
    const stored = await api('GET', `/animals/${String(rex)}`);
    expect(stored.body).toMatchObject({ status: 'adopted', note: 'settled' });
  });
});
