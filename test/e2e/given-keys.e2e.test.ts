/**
 * A key the service does not make up (any primary key but an `id_field`) is the client's to give,
 * or a handler's or a default's, on every engine alike: a create without it is a 400 naming it,
 * and an empty one, which no URL names, too. SQLite made an integer key up
 * where PostgreSQL refused the create; and a system user whose model has such a key stopped the
 * start-up with a constraint's stack trace instead of saying what to change. The system user is
 * also held to the `pattern`s the user schema gives a registration's username and email.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml, userSchema } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { apiToken } from '../support/served.js';
import { startService, type RunningService } from '../support/server.js';

const ALL = { collection: 'allow g:admin all\nallow everyone view', item: 'allow g:admin all\nallow everyone view' };

const API = securedRaml(
  'Given keys',
  { users_acl: ALL, sensors_acl: ALL },
  `
/users:
  securedBy: [users_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  /{id}:
    get:
/sensors:
  securedBy: [sensors_acl]
  get:
  post:
    body:
      application/json:
        schema: !include sensor.json
  /{id}:
    get:
/labels:
  securedBy: [sensors_acl]
  post:
    body:
      application/json:
        schema: !include label.json
  /{code}:
    get:
`,
);

/** Users keyed by their username. */
const USER = userSchema();

const SENSOR = JSON.stringify({
  type: 'object',
  properties: {
    serial: { _db_settings: { type: 'big_integer', primary_key: true } },
    label: { _db_settings: { type: 'string' } },
  },
});

/** Labels keyed by a code that a handler makes up where the body gives none. */
const LABEL = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['code_label'] },
  properties: {
    code: { type: 'string', _db_settings: { type: 'string', primary_key: true } },
    text: { _db_settings: { type: 'string' } },
  },
});

const CODE_LABEL = `import type { CodeLabelEvent } from '../../events.js';

export async function codeLabel(event: CodeLabelEvent): Promise<void> {
  if (event.fields.code !== undefined) return;
  if (event.fields.text?.new_value === 'make one up') event.setFieldValue('code', 'made-up');
  if (event.fields.text?.new_value === 'make it blank') event.setFieldValue('code', ' ');
}
`;

/** The same API, but its users keyed by a `big_integer` and their names held to a pattern. */
const NUMBERED_USER = JSON.stringify({
  type: 'object',
  _auth_model: true,
  properties: {
    id: { _db_settings: { type: 'big_integer', primary_key: true } },
    username: { type: 'string', pattern: '^[a-z]+$', _db_settings: { type: 'string', required: true, unique: true } },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
  },
});

let dir: string;
let numbered: string;

beforeAll(async () => {
  [dir, numbered] = await Promise.all([
    projectOf({ 'api.raml': API, 'user.json': USER, 'sensor.json': SENSOR, 'label.json': LABEL }, 'e2e-given-keys'),
    projectOf(
      { 'api.raml': API, 'user.json': NUMBERED_USER, 'sensor.json': SENSOR, 'label.json': LABEL },
      'e2e-given-keys-numbered',
    ),
  ]);
  for (const project of [dir, numbered]) {
    writeFileSync(join(project, 'src/custom/handlers/code-label.ts'), CODE_LABEL);
    const build = await tool(project, 'tsc', ['-p', 'tsconfig.build.json']);
    expect(build.exitCode, build.all).toBe(0);
  }
}, 600_000);

describe.each(ENGINES)('keys the client gives, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let root: { headers: { authorization: string } };

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'given_keys');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    root = { headers: { authorization: await apiToken(api, 'root', 'root-password') } };
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('refuses a create without its integer key, and keeps the key it is given', async () => {
    const without = await api('POST', '/sensors', { label: 'roof' }, root);
    expect(without.status, without.text).toBe(400);
    expect(without.body.errors).toEqual([{ field: 'serial', message: 'is required' }]);
    expect((await api('GET', '/sensors', undefined, root)).body.total).toBe(0);

    const serial = 9_007_199_254_740_000;
    const given = await api('POST', '/sensors', { serial, label: 'roof' }, root);
    expect(given.status, given.text).toBe(201);
    expect(given.body.serial).toBe(serial);
    expect((await api('GET', `/sensors/${serial}`, undefined, root)).body.label).toBe('roof');
  });

  it('takes a key a handler gives, and refuses an empty one, which no URL could name', async () => {
    const made = await api('POST', '/labels', { text: 'make one up' }, root);
    expect([made.status, made.body.code], made.text).toEqual([201, 'made-up']);
    expect((await api('GET', '/labels/made-up', undefined, root)).status).toBe(200);
    const none = await api('POST', '/labels', { text: 'no code' }, root);
    expect([none.status, none.body.errors], none.text).toEqual([400, [{ field: 'code', message: 'is required' }]]);
    // Nor one a handler makes (a re-attacker's handler stored one).
    const blank = await api('POST', '/labels', { text: 'make it blank' }, root);
    expect([blank.status, blank.body.errors], blank.text).toEqual([
      400,
      [{ field: 'code', message: 'cannot be empty: no URL would name its object' }],
    ]);
    for (const code of ['', '  ']) {
      const empty = await api('POST', '/labels', { code, text: 'empty' }, root);
      expect([empty.status, empty.body.errors], empty.text).toEqual([
        400,
        [{ field: 'code', message: 'cannot be empty: no URL would name its object' }],
      ]);
    }
  });

  it('says what to change when the system user cannot be made: a key only its creator gives, a name the schema’s pattern refuses', async () => {
    const numberedDatabase = await testDatabase(engine, numbered, 'given_keys_numbered');
    try {
      const start = (env: Record<string, string>) =>
        startService(numbered, { ...numberedDatabase.env, ...rootAuthEnv(), ...env }, '/v1');
      const keyed = start({});
      await expect(keyed).rejects.toThrow(
        /the system user "root" \(system.user\) cannot be created: the user model's key id is given by whoever creates a user/,
      );
      await expect(keyed).rejects.not.toThrow(/ConstraintViolation|\n\s+at /);
      await expect(start({ SVC_SYSTEM_USER: 'Root2' })).rejects.toThrow(
        /the system user cannot be created: system.user does not match the pattern the user schema gives username \(\^\[a-z\]\+\$\)/,
      );
    } finally {
      await numberedDatabase.drop();
    }
  }, 120_000);
});
