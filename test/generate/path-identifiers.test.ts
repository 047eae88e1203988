/**
 * Names made of a path's segments are identifiers whatever the segments: a probe's `/2024/items`
 * made `2024ItemsResource` and `2024Routes`, and generate stopped with an internal error. Each
 * generated TypeScript file here parses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

const ITEM = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string' } },
  },
});

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

describe('a path whose segment starts with a digit', () => {
  it('names its route plugin and client accessor with identifiers, and every file parses', async () => {
    const dir = writeTree({
      'api.raml': raml(
        'title: T\n/2024:\n  /items:\n    get:\n    post:\n      body:\n        application/json:\n          schema: !include item.json\n    /{id}:\n      get:\n',
      ),
      'item.json': ITEM,
    });
    const run = await runCli(['generate', 'api.raml', '-o', 'out'], dir);
    expect(run.code, run.stderr).toBe(0);
    const out = join(dir, 'out');
    expect(readFileSync(join(out, 'src/app.ts'), 'utf8')).toContain('_2024Routes');
    // Parsed as TypeScript (prettier's parser): `2024ItemsResource` is "Identifier directly after number".
    for (const file of typescriptFiles(out))
      await expect(format(readFileSync(file, 'utf8'), { parser: 'typescript' }), file).resolves.toBeTypeOf('string');
  }, 120_000);
});
