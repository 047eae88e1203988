/**
 * A refused re-link does not tell which hidden partner an object has. Units have one locker each
 * (the locker's row holds the unit's key); the board may update units, but sees only the lockers
 * marked public. A probe's board member read `"locker": null` on unit 2, yet `PATCH /units/2
 * {"locker": 3}` answered "you may not change Locker 2, Locker 3" where unit 4, which has no locker,
 * answered "Locker 3": which units have a locker, and its key. Now both answer alike. On SQLite:
 * the refusal is the routes' own, the same on every engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Condo',
  {
    units_acl: {
      collection: 'allow g:admin all\nallow g:board view',
      item: 'allow g:admin all\nallow g:board view, update\ndeny everyone all',
    },
    lockers_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow {{public_locker}} view\ndeny everyone all',
    },
    users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all' },
  },
  `
/users:
  securedBy: [users_acl]
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    patch:
/units:
  securedBy: [units_acl]
  get:
  post:
    body:
      application/json:
        schema: !include unit.json
  /{id}:
    get:
    patch:
/lockers:
  securedBy: [lockers_acl]
  get:
  post:
    body:
      application/json:
        schema: !include locker.json
  /{id}:
    get:
`,
);

const USER = userSchema();

const UNIT = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    number: { _db_settings: { type: 'string', required: true } },
    locker: { _db_settings: { type: 'relationship', document: 'Locker', backref_name: 'unit', uselist: false } },
  },
});

const LOCKER = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    public: { _db_settings: { type: 'boolean', default: false } },
    unit_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Unit', ref_column: 'unit.id', ref_column_type: 'id_field' },
    },
  },
});

const PUBLIC_LOCKER = `import { grant, type AclResult, type AclRule, type PrincipalWhere, type RequestBy } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';
import type { PublicLockerObject } from '../../principals.js';

export function publicLocker(_request: RequestBy<User>, object: PublicLockerObject | undefined, rule: AclRule): AclResult {
  return object?.public ? grant(rule, 'authenticated') : undefined;
}

publicLocker.where = (): PrincipalWhere<PublicLockerObject> => ({ public: true });
`;

const FILES = { 'api.raml': API, 'user.json': USER, 'unit.json': UNIT, 'locker.json': LOCKER };

describe('a refused re-link of a one-to-one link kept on the other side', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-hidden-partner', {
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/principals/public-locker.ts'), PUBLIC_LOCKER),
    });
    tokens = await memberTokens(api, ['carol']);
    expect((await api('PATCH', '/users/carol', { groups: ['user', 'board'] }, as('root'))).status).toBe(200);
  }, 600_000);

  afterAll(() => served?.stop());

  it('answers a unit with a hidden locker as it answers one with none', async () => {
    const created = async (path: string, body: object) => {
      const reply = await api('POST', path, body, as('root'));
      expect(reply.status, reply.text).toBe(201);
      return reply.body['id'] as number;
    };
    const withLocker = await created('/units', { number: '102' });
    const without = await created('/units', { number: '104' });
    const hidden = await created('/lockers', { unit: withLocker });
    const shown = await created('/lockers', { public: true });
    expect((await api('GET', `/units/${withLocker}`, undefined, as('carol'))).body['locker']).toBeNull();
    const answers = [];
    for (const unit of [withLocker, without]) {
      const reply = await api('PATCH', `/units/${unit}`, { locker: shown }, as('carol'));
      answers.push([reply.status, reply.body.message, reply.body.errors]);
      expect(reply.text).not.toContain(`Locker ${hidden}`);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]![0]).toBe(403);
    // Nothing moved.
    expect((await api('GET', `/lockers/${hidden}`, undefined, as('root'))).body['unit']).toBe(withLocker);
  });
});
