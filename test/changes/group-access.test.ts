/**
 * The groups an x-ACL names besides admin's and a new user's (`g:kitchen`) are in the contract: the
 * OpenAPI document's `x-svcgen-access` lists them where they are let in, `inspect --acl` has a
 * column of them, and `svcgen diff` calls a route taken from such a group breaking. A probe took
 * every right from its kitchen staff and was told "no changes for clients".
 */
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
