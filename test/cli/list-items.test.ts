/**
 * A list's item type is part of what a migration compares (storage.json `items`): changed, it is
 * SVC3104, refused and nothing written, since no migration converts the items of stored lists. A
 * probe changed a list of photo URLs to integers: no word, no migration step, and both engines went
 * on serving the URLs where the new contract and client said integers. A storage.json written
 * before `items` was kept says nothing of it, and refuses nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

const API = raml(`title: Repairs
/repairs:
  get:
  post:
    body:
      application/json:
        schema: !include repair.json
`);

const repair = (itemType: string) =>
  JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      photos: { type: ['array', 'null'], _db_settings: { type: 'list', item_type: itemType } },
    },
  });

describe("a list's item type changed", () => {
  it('is refused with where and what to do, and nothing is written', async () => {
    const dir = writeTree({ 'api.raml': API, 'repair.json': repair('string') });
    expect((await runCli(['generate', 'api.raml', '-o', 'out'], dir)).code).toBe(0);
    const storage = readFileSync(join(dir, 'out/src/db/storage.json'), 'utf8');
    expect(storage).toContain('"items": "string"');
    writeFileSync(join(dir, 'repair.json'), repair('integer'));
    for (const flags of [[], ['--allow-data-loss', '--allow-breaking']]) {
      const run = await runCli(['generate', 'api.raml', '-o', 'out', ...flags], dir);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(
        'error SVC3104: field Repair.photos changes the type of its items from string to integer, which no migration converts',
      );
      expect(run.stderr).toContain('add a new list of integer beside it');
      expect(readFileSync(join(dir, 'out/src/db/storage.json'), 'utf8')).toBe(storage);
    }
  });

  it('refuses nothing against a storage.json that did not keep item types', async () => {
    const dir = writeTree({ 'api.raml': API, 'repair.json': repair('string') });
    expect((await runCli(['generate', 'api.raml', '-o', 'out'], dir)).code).toBe(0);
    const file = join(dir, 'out/src/db/storage.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/,\n\s*"items": "string"/, ''));
    const run = await runCli(['generate', 'api.raml', '-o', 'out', '--force'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"items": "string"');
  });
});
