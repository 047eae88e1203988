/**
 * A principal asked whether a re-link may put an object below its new parent gets the parent as its
 * model's type has it, links as keys: an expense read with its `_nested_relationships` embedded gave
 * a probe's `{{payer}}` the payer's whole user record (its password hash too) as `rule.parent.paid_by`,
 * and the payer's own re-link of a split was refused, where the same link written from the split's
 * side went through. On SQLite: the parent is the route's, the same on every engine.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Splits',
  {
    expenses_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view, update',
    },
    splits_acl: {
      collection: 'allow g:admin all\nallow {{payer}} create\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view, update',
    },
  },
  `
/users:
  post:
    body:
      application/json:
        schema: !include user.json
/expenses:
  securedBy: [expenses_acl]
  get:
  post:
    body:
      application/json:
        schema: !include expense.json
  /{id}:
    get:
    patch:
    /splits:
      securedBy: [splits_acl]
      get:
      post:
        body:
          application/json:
            schema: !include split.json
/splits:
  securedBy: [splits_acl]
  get:
  post:
    body:
      application/json:
        schema: !include split.json
  /{id}:
    get:
    patch:
`,
);

const EXPENSE = JSON.stringify({
  type: 'object',
  _nested_relationships: ['paid_by', 'splits'],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { _db_settings: { type: 'string', required: true } },
    paid_by_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'User',
        ref_column: 'user.username',
        ref_column_type: 'string',
      },
    },
    splits: { _db_settings: { type: 'relationship', document: 'Split', backref_name: 'expense' } },
  },
});

const USER = userSchema({
  paid: { _db_settings: { type: 'relationship', document: 'Expense', backref_name: 'paid_by' } },
});

const SPLIT = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    expense_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Expense',
        ref_column: 'expense.id',
        ref_column_type: 'id_field',
      },
    },
  },
});

// The payer of the expense a split goes below: `rule.parent.paid_by` is the payer's key, as Expense's type says.
const PAYER = `import { grant, user, type AclResult, type AclRule, type RequestBy } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';
import type { PayerObject } from '../../principals.js';

export function payer(request: RequestBy<User>, _object: PayerObject | undefined, rule: AclRule): AclResult {
  const parent = rule.parent as { paid_by?: unknown } | undefined;
  if (parent && typeof parent.paid_by !== 'string') throw new Error('rule.parent.paid_by is not a key: ' + JSON.stringify(parent.paid_by));
  return request.user && parent?.paid_by === request.user.username ? grant(rule, user(request.user.username)) : undefined;
}

payer.where = () => false;
`;

const FILES = { 'api.raml': API, 'expense.json': EXPENSE, 'split.json': SPLIT, 'user.json': USER };

describe("a re-link's new parent, as a principal is given it", () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-relink-parent', {
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/principals/payer.ts'), PAYER),
    });
    tokens = await memberTokens(api, ['ann']);
  }, 600_000);

  afterAll(() => served?.stop());

  it('is the parent with its links as keys: the payer moves a split below their own expense', async () => {
    const made = async (path: string, body: object) => {
      const reply = await api('POST', path, body, as('root'));
      expect(reply.status, reply.text).toBe(201);
      return reply.body['id'] as number;
    };
    const first = await made('/expenses', { title: 'first', paid_by: 'ann' });
    const second = await made('/expenses', { title: 'second', paid_by: 'ann' });
    const split = await made('/splits', { expense: first });
    const moved = await api('PATCH', `/expenses/${second}`, { splits: [split] }, as('ann'));
    expect(moved.status, moved.text).toBe(200);
    expect((await api('GET', `/splits/${split}`, undefined, as('root'))).body['expense']).toBe(second);
  });
});
