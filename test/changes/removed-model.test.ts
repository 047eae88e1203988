/**
 * A model removed with its routes leaves nothing in the RAML or the schemas to point at: its data
 * loss (SVC3101) and the routes clients lose (SVC3111) are located at the RAML's title, so that an
 * editor that jumps to diagnostics lands in the file to change (a probe's "model Plan is removed"
 * had no location at all).
 */
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

const schema = JSON.stringify({
  type: 'object',
  properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
});
const route = (name: string) =>
  `/${name}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${name}.json\n`;
const api = (names: readonly string[]) =>
  raml(`title: Farm\nbaseUri: http://{host}/{version}\nversion: v1\n${names.map(route).join('')}`);

it('locates a removed model and its removed routes at the RAML title', async () => {
  const dir = writeTree({ 'api.raml': api(['boxes', 'plans']), 'boxes.json': schema, 'plans.json': schema });
  expect((await runCli(['generate', 'api.raml', '-o', 'out'], dir)).code).toBe(0);
  writeFileSync(`${dir}/api.raml`, api(['boxes']));
  const run = await runCli(['generate', 'api.raml', '-o', 'out'], dir);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/api\.raml:2:1 - error SVC3101: model Plan is removed/);
  expect(run.stderr).toMatch(/api\.raml:2:1 - error SVC3111: breaks clients: GET \/plans/);
});
