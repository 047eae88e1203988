/**
 * A users' model whose username has a `pattern` the generated samples cannot know: the user gives
 * one in test/custom-samples.ts, and every generated test then uses it, the registrations of the
 * auth tests too (test/acl-helpers.ts wrote its own `user-<n>` over it, which the pattern refused).
 * Its users start in group `reader`, not `user`: the ACL matrix test's members are in the groups a
 * new user gets (its `allow g:reader view` lets them read, as the matrix says).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
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
securedBy: [ticket]
/users:
  securedBy: [users_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
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

/** What the user writes in their own file: usernames the pattern takes. */
const CUSTOM_SAMPLES = `import type { SampleOverrides } from './sample-overrides.js';

export const overrides: SampleOverrides = {
  samples: { User: (n) => ({ username: \`user_\${n}\` }) },
};
`;

describe('a username with a pattern, sampled by the user', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await projectOf({ 'api.raml': API, 'user.json': USER }, 'e2e-user-pattern');
    writeFileSync(join(dir, 'test', 'custom-samples.ts'), CUSTOM_SAMPLES);
  }, 300_000);

  it('passes the generated tests, the auth tests included', async () => {
    const run = await tool(dir, 'vitest', ['run']);
    expect(run.exitCode, run.all).toBe(0);
    expect(run.all).toMatch(/Tests\s+\d+ passed/);
  }, 300_000);
});
