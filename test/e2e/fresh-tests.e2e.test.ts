/**
 * A fresh project's own tests pass where its samples must differ or match: a unique date, a
 * `_unique_together` set of two integers, a unique code with a `pattern`. Two probes' first
 * `npm test` was red: 7 of 314 on patterns, 73 of 285 on a unique date and a set whose fields had
 * one sample each.
 */
import { expect, it } from 'vitest';
import { raml } from '../support/files.js';
import { projectOf, tool } from '../support/project.js';
const API = raml(`title: League
baseUri: http://{host}/{version}
version: v1
/plans:
  get:
  post:
    body:
      application/json:
        schema: !include plan.json
  /{id}:
    get:
    patch:
    delete:
/menus:
  get:
  post:
    body:
      application/json:
        schema: !include menu.json
  /{id}:
    get:
`);
const PLAN = JSON.stringify({
  type: 'object',
  _unique_together: [['people', 'meals']],
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { type: 'string', _db_settings: { type: 'string', required: true } },
    people: { type: 'integer', _db_settings: { type: 'integer', required: true } },
    meals: { type: 'integer', _db_settings: { type: 'integer', required: true } },
    code: { type: 'string', pattern: '^PL-\\\\d{3}$', _db_settings: { type: 'string', unique: true } },
  },
});
const MENU = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    week_start: { type: 'string', format: 'date', _db_settings: { type: 'date', unique: true, required: true } },
  },
});
it('passes its own tests, untouched', async () => {
  const dir = await projectOf({ 'api.raml': API, 'plan.json': PLAN, 'menu.json': MENU }, 'e2e-fresh-tests');
  const r = await tool(dir, 'vitest', ['run']);
  expect(r.exitCode, r.all?.slice(-3000)).toBe(0);
  expect(r.all).toMatch(/Tests\s+\d+ passed/);
}, 600_000);
