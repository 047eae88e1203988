/**
 * A users' model whose username has a `pattern` the generated samples cannot know: the user gives
 * one in test/custom-samples.ts, and every generated test then uses it, the registrations of the
 * auth tests too (test/acl-helpers.ts wrote its own `user-<n>` over it, which the pattern refused).
 * Its users start in group `reader`, not `user`: the ACL matrix test's members are in the groups a
 * new user gets (its `allow g:reader view` lets them read, as the matrix says).
 * A bike's unique serial keeps the last five digits of its sample's number (`^BK-[0-9]{5}$`): the
 * matrix test's bodies and seeds are numbered by one counter, so that no two share a serial (they
 * were numbered 100,001… and 1…, the same serials, and a probe's fresh project failed its tests).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { raml, usersRaml } from '../support/files.js';
import { projectOf, tool } from '../support/project.js';

const API = raml(`title: Patterned
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - users_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow g:reader view
        item: |
          allow g:admin all
          allow g:reader view
  - bikes_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow g:reader view, create
        item: |
          allow g:admin all
          allow everyone view
securedBy: [ticket]
${usersRaml()}/bikes:
  securedBy: [bikes_acl]
  get:
  post:
    body:
      application/json:
        schema: !include bike.json
  /{id}:
    get:
    patch:
`);

const USER = JSON.stringify({
  type: 'object',
  _auth_model: true,
  _hidden_fields: ['password'],
  properties: {
    username: {
      type: 'string',
      pattern: '^[a-z0-9_]+$',
      _db_settings: { type: 'string', primary_key: true, required: true, max_length: 50 },
    },
    email: { _db_settings: { type: 'string', required: true, unique: true } },
    password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
    groups: { _db_settings: { type: 'list', item_type: 'string', default: ['reader'] } },
  },
});

const BIKE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    serial: {
      type: 'string',
      pattern: '^BK-[0-9]{5}$',
      _db_settings: { type: 'string', required: true, unique: true, max_length: 8 },
    },
  },
});

/** What the user writes in their own file: usernames the pattern takes. */
const CUSTOM_SAMPLES = `import type { SampleOverrides } from './sample-overrides.js';

export const overrides: SampleOverrides = {
  samples: { User: (n) => ({ username: \`user_\${n}\` }) },
};
`;

describe('a username with a pattern, sampled by the user', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await projectOf({ 'api.raml': API, 'user.json': USER, 'bike.json': BIKE }, 'e2e-user-pattern');
    writeFileSync(join(dir, 'test', 'custom-samples.ts'), CUSTOM_SAMPLES);
  }, 300_000);

  it('passes the generated tests, the auth tests included', async () => {
    const run = await tool(dir, 'vitest', ['run']);
    expect(run.exitCode, run.all).toBe(0);
    expect(run.all).toMatch(/Tests\s+\d+ passed/);
  }, 300_000);

  // A field renamed since the file was written: TypeScript lets the function's object through.
  it('names a field custom-samples.ts gives that the model no longer has', async () => {
    writeFileSync(
      join(dir, 'test', 'custom-samples.ts'),
      CUSTOM_SAMPLES.replace('username:', 'nickname: 1, username:'),
    );
    try {
      const check = await tool(dir, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);
      expect(check.exitCode, check.all).toBe(0);
      const run = await tool(dir, 'vitest', ['run', 'test/api.test.ts']);
      expect(run.exitCode).not.toBe(0);
      expect(run.all).toContain(
        'test/custom-samples.ts: the sample of User gives nickname, but User has no field of that name (renamed since?)',
      );
    } finally {
      writeFileSync(join(dir, 'test', 'custom-samples.ts'), CUSTOM_SAMPLES);
    }
  }, 300_000);
});
