/**
 * A migration that only adds or drops `_unique_together` sets is named and described by them: a
 * probe's were named `search_plan` with an empty "What changed", and the service's start-up and
 * `npm run migrate` printed that name.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

const API = raml(`title: League
/players:
  get:
  post:
    body:
      application/json:
        schema: !include player.json
`);

const player = (root: object) =>
  JSON.stringify({
    type: 'object',
    ...root,
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      team: { type: ['string', 'null'], _db_settings: { type: 'string' } },
      number: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
    },
  });

it('names a migration that adds or drops unique sets by them, and says what changed', async () => {
  const dir = writeTree({ 'api/api.raml': API, 'api/player.json': player({}) });
  const generate = () => runCli(['generate', 'api/api.raml', '-o', 'out'], dir);
  expect((await generate()).code).toBe(0);
  writeFileSync(join(dir, 'api/player.json'), player({ _unique_together: [['team', 'number']] }));
  const added = await generate();
  expect(added.code, added.stderr).toBe(0);
  writeFileSync(join(dir, 'api/player.json'), player({}));
  expect((await generate()).code).toBe(0);
  const migrations = readdirSync(join(dir, 'out/src/db/migrations')).sort();
  expect(migrations).toEqual(['0001_initial.ts', '0002_unique_player.ts', '0003_unique_player.ts']);
  const text = (name: string) => readFileSync(join(dir, 'out/src/db/migrations', name), 'utf8');
  expect(text('0002_unique_player.ts')).toContain('Player: number, team now unique together');
  expect(text('0003_unique_player.ts')).toContain('Player: number, team no longer unique together');
});

it('names a migration that adds or drops several fields of a model by them, and by as many as fit', async () => {
  const fields = (...names: string[]) =>
    Object.fromEntries(names.map((name) => [name, { type: ['string', 'null'], _db_settings: { type: 'string' } }]));
  const dir = writeTree({ 'api/api.raml': API, 'api/player.json': player({}) });
  const generate = async (extra: object) => {
    const schema = JSON.parse(player({})) as { properties: object };
    writeFileSync(
      join(dir, 'api/player.json'),
      JSON.stringify({ ...schema, properties: { ...schema.properties, ...extra } }),
    );
    const run = await runCli(['generate', 'api/api.raml', '-o', 'out', '--allow-data-loss', '--allow-breaking'], dir);
    expect(run.code, run.stderr).toBe(0);
  };
  await generate({});
  await generate(fields('given_name', 'family_name'));
  await generate(fields('given_name', 'family_name', 'nickname', 'jersey_name', 'hometown', 'position'));
  await generate({});
  expect(readdirSync(join(dir, 'out/src/db/migrations')).sort()).toEqual([
    '0001_initial.ts',
    '0002_add_player_given_name_family_name.ts',
    '0003_add_player_nickname_jersey_name_hometown_position.ts',
    '0004_drop_player_given_name_family_name_and_more.ts',
  ]);
});
