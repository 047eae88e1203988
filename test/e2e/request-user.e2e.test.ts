/**
 * `request.user` is what its type says. An attacker probe wrote a clinic's principal as the types
 * suggested, `object.patient === request.user.patient`: `request.user` was typed as the user
 * model, whose links kept in other models' rows (`patient`, `sent_messages`) are there, but the
 * service reads the caller's own row only, so they were undefined (the check failed closed; `==`
 * let every object with no patient through; `.includes` answered 500), and the record held the
 * password's hash, which a handler that echoed it showed. Now handlers and new principal stubs
 * take the caller as `SignedIn<User>`, the record without those links and without the hash, and
 * the service hands over exactly that. SQLite and PostgreSQL.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml, userSchema } from '../support/files.js';
import { rootAuthEnv } from '../support/library.js';
import { tool } from '../support/project.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Teams',
  {
    open: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
  },
  `
/users:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
  /{username}:
    get:
/teams:
  securedBy: [open]
  post:
    body:
      application/json:
        schema: !include team.json
/notes:
  securedBy: [open]
  post:
    body:
      application/json:
        schema: !include note.json
/badges:
  securedBy: [open]
  post:
    body:
      application/json:
        schema: !include badge.json
`,
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const fk = (target: string, column: string, type: string) => ({
  _db_settings: { type: 'foreign_key', ref_document: target, ref_column: column, ref_column_type: type },
});

// Its team is kept in its own row (team_id); its notes and its badge in theirs.
const USER = userSchema({
  team_id: fk('Team', 'team.id', 'id_field'),
  notes: { _db_settings: { type: 'relationship', document: 'Note', backref_name: 'author' } },
  badge: { _db_settings: { type: 'relationship', document: 'Badge', backref_name: 'holder', uselist: false } },
});
const TEAM = JSON.stringify({
  type: 'object',
  properties: {
    id,
    name: { _db_settings: { type: 'string', required: true } },
    members: { _db_settings: { type: 'relationship', document: 'User', backref_name: 'team' } },
  },
});
const NOTE = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['echo_caller'] },
  properties: {
    id,
    text: { _db_settings: { type: 'text' } },
    author_id: fk('User', 'user.username', 'string'),
  },
});
const BADGE = JSON.stringify({
  type: 'object',
  properties: { id, holder_id: fk('User', 'user.username', 'string') },
});

/**
 * Writes what the caller's type says they have (the compiler holds `typed` to exactly the keys of
 * `SignedInUser`: one missing or one more does not build) beside what the service gave.
 */
const ECHO = `import type { EchoCallerEvent } from '../../events.js';
import type { SignedInUser } from '../../models/user.js';

const typed: { [K in keyof SignedInUser]-?: true } = {
  username: true,
  email: true,
  groups: true,
  team: true,
  team_id: true,
};

export function echoCaller(event: EchoCallerEvent): void {
  const user = event.view.request.user;
  const given = user === null ? null : Object.keys(user).sort();
  event.setFieldValue('text', JSON.stringify({ typed: Object.keys(typed).sort(), given }));
}
`;

describe.each(['sqlite', 'postgres'] as const)('request.user on %s', (engine) => {
  let served: ServedApi;
  let tokens: Map<string, string>;

  beforeAll(async () => {
    served = await servedApi(
      { 'api.raml': API, 'user.json': USER, 'team.json': TEAM, 'note.json': NOTE, 'badge.json': BADGE },
      `e2e-request-user-${engine}`,
      {
        engine,
        env: rootAuthEnv(),
        prepare: (dir) => writeFileSync(join(dir, 'src/custom/handlers/echo-caller.ts'), ECHO),
      },
    );
    tokens = await memberTokens(served.api, ['ann']);
  }, 600_000);

  afterAll(() => served?.stop());

  it('holds the fields its type names, its own row’s links among them, and no password hash', async () => {
    const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
    const team = await served.api('POST', '/teams', { name: 'red', members: ['ann'] }, as('root'));
    expect(team.status, team.text).toBe(201);
    const note = await served.api('POST', '/notes', {}, as('ann'));
    expect(note.status, note.text).toBe(201);
    const { typed, given } = JSON.parse(String(note.body.text)) as { typed: string[]; given: string[] };
    expect(given).toEqual(typed);
    expect(given).not.toContain('password');
    expect(given).toContain('team');
  });

  it('is refused at build time a link kept in another model’s rows', async () => {
    const reads = ECHO.replace('const given =', 'void user?.notes;\n  const given =');
    writeFileSync(join(served.dir, 'src/custom/handlers/echo-caller.ts'), reads);
    try {
      const build = await tool(served.dir, 'tsc', ['-p', 'tsconfig.build.json', '--noEmit']);
      expect(build.exitCode).not.toBe(0);
      expect(build.all).toMatch(/Property 'notes' does not exist on type/);
    } finally {
      writeFileSync(join(served.dir, 'src/custom/handlers/echo-caller.ts'), ECHO);
    }
  }, 300_000);
});
