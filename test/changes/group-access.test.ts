/**
 * The groups an x-ACL names besides admin's and a new user's (`g:kitchen`) are in the contract: the
 * OpenAPI document's `x-svcgen-access` lists them where they are let in, `inspect --acl` has a
 * column of them, and `svcgen diff` calls a route taken from such a group breaking. A probe took
 * every right from its kitchen staff and was told "no changes for clients".
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

const api = (kitchen: string) =>
  raml(`title: Kitchen
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - menus_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          ${kitchen}
          allow authenticated view
        item: |
          allow g:admin all
          allow authenticated view
securedBy: [ticket]
/menus:
  securedBy: [menus_acl]
  get:
  post:
    body:
      application/json:
        schema: !include menu.json
`);

const MENU = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    week: { type: 'string', _db_settings: { type: 'string' } },
  },
});

it('lists a group where it is let in, and calls taking a route from it breaking', async () => {
  const dir = writeTree({
    'a/api.raml': api('allow g:kitchen create'),
    'a/menu.json': MENU,
    'b/api.raml': api('deny g:kitchen create'),
    'b/menu.json': MENU,
  });
  const openapi = await runCli(['inspect', 'a/api.raml', '--openapi'], dir);
  const post = JSON.parse(openapi.stdout).paths['/menus'].post;
  expect(post['x-svcgen-access']).toEqual(['admin', 'g:kitchen']);
  const matrix = await runCli(['inspect', 'a/api.raml', '--acl'], dir);
  expect(matrix.stdout).toMatch(/POST\s+\/menus\s+menus_acl\s+401\s+403\s+403\s+allow\s+g:kitchen/);
  const diff = await runCli(['diff', 'a/api.raml', 'b/api.raml'], dir);
  expect(diff.code).toBe(1);
  expect(diff.stdout).toContain('is refused now to: g:kitchen');
});

it('reads a group one version names and the other does not as a plain member there', async () => {
  const dir = writeTree({
    'a/api.raml': api(''),
    'a/menu.json': MENU,
    'b/api.raml': api('allow g:kitchen create'),
    'b/menu.json': MENU,
    'c/api.raml': api('deny g:kitchen view'),
    'c/menu.json': MENU,
  });
  const openapi = JSON.parse((await runCli(['inspect', 'b/api.raml', '--openapi'], dir)).stdout);
  expect(openapi['x-svcgen-groups']).toEqual(['kitchen']);
  // The cooks were members, who read menus: only the create is theirs now (a probe's new group
  // line opened every route a member reads "to g:planner").
  const named = await runCli(['diff', 'a/api.raml', 'b/api.raml'], dir);
  expect(named.stdout).toContain('POST /menus: route opened to more callers — is open now to: g:kitchen');
  expect(named.stdout).not.toContain('GET /menus');
  expect(named.code).toBe(0);
  // Named only to be refused: a member's reading is taken from them, which breaks them.
  const denied = await runCli(['diff', 'a/api.raml', 'c/api.raml'], dir);
  expect(denied.stdout).toContain('GET /menus: ');
  expect(denied.stdout).toContain('is refused now to: g:kitchen');
  expect(denied.code).toBe(1);
});

it('compares a document from before x-svcgen-groups without inventing changes for a group named only to be denied', async () => {
  const dir = writeTree({ 'api.raml': api('deny g:banned all'), 'menu.json': MENU });
  const current = JSON.parse((await runCli(['inspect', 'api.raml', '--openapi'], dir)).stdout);
  expect(current['x-svcgen-groups']).toEqual(['banned']);
  // As svcgen wrote it before it listed the groups: banned is let in nowhere, so named nowhere.
  delete current['x-svcgen-groups'];
  writeFileSync(join(dir, 'old.json'), JSON.stringify(current));
  const diff = await runCli(['diff', 'old.json', 'api.raml'], dir);
  expect([diff.code, diff.stdout], diff.stderr).toEqual([0, expect.not.stringContaining('g:banned')]);
});

// A probe's API without auth took it on with a clerks' group: it was told the route was left to admins alone.
it('says who is still let in, the groups too, when a version without auth takes a route from the others', async () => {
  const open = raml(`title: Kitchen
/menus:
  get:
  post:
    body:
      application/json:
        schema: !include menu.json
`);
  const dir = writeTree({
    'a/api.raml': open,
    'a/menu.json': MENU,
    'b/api.raml': api('allow g:kitchen create'),
    'b/menu.json': MENU,
  });
  const diff = await runCli(['diff', 'a/api.raml', 'b/api.raml'], dir);
  expect(diff.stdout, diff.stderr).toContain(
    'POST /menus: route guarded more strictly — is refused now to: anonymous callers, members, members a {{principal}} lets in (owners) (allowed: admins, g:kitchen)',
  );
});
