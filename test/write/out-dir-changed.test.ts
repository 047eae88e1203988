/**
 * The out-dir is checked when a run begins, and again as each file is written or deleted: an
 * attacker probe swapped `src/routes` for a link to a folder outside while svcgen rendered (after
 * the check, before the write; under `--watch` too), and the run wrote the routes there, or with
 * `--force` overwrote a file there. Here the swap is made at the same moment, from the run's
 * progress callback, which is called as files are rendered; and, for the last check, once every
 * check before the write has passed.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../src/pipeline.js';
import type { Change } from '../../src/write/changes.js';
import { applyChanges, OutDirChanged } from '../../src/write/write.js';
import { raml, writeTree } from '../support/files.js';

const ITEM = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string' } },
  },
});

const API = raml(`title: Items
/items:
  get:
  post:
    body:
      application/json:
        schema: !include item.json
`);

/** A project generated into `out`, and a folder outside it with a file of its own. */
async function generated(): Promise<{ dir: string; victim: string }> {
  const dir = writeTree({ 'api.raml': API, 'item.json': ITEM });
  const victim = join(dir, 'victim');
  mkdirSync(victim);
  writeFileSync(join(victim, 'items.ts'), 'PRECIOUS\n');
  const first = await run(dir);
  expect(first.status).toBe('done');
  return { dir, victim };
}

function run(dir: string, force = false, onProgress?: () => void) {
  return generate({
    file: 'api.raml',
    cwd: dir,
    out: 'out',
    mode: 'write',
    force,
    allowDataLoss: false,
    ...(onProgress ? { onProgress } : {}),
  });
}

/** Swaps out/src/routes for a link to `victim`, once, as the run renders. */
function swapOnce(dir: string, victim: string): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    renameSync(join(dir, 'out/src/routes'), join(dir, 'routes.moved'));
    symlinkSync(victim, join(dir, 'out/src/routes'));
  };
}

describe('an out-dir changed while svcgen runs', () => {
  it('is checked again once rendered: a folder swapped for a link to outside is refused, and nothing lands there', async () => {
    const { dir, victim } = await generated();
    rmSync(join(dir, 'out/src/routes/items.ts'));
    const result = await run(dir, false, swapOnce(dir, victim));
    expect(result.status).toBe('refused');
    expect(result.diagnostics.find((d) => d.code === 'SVC3003')?.message).toMatch(
      /^refusing to write src\/routes\/.*: src\/routes is a symbolic link that leads outside the out-dir$/,
    );
    expect(readdirSync(victim)).toEqual(['items.ts']);
    expect(readFileSync(join(victim, 'items.ts'), 'utf8')).toBe('PRECIOUS\n');
  });

  it('overwrites and deletes nothing there with --force either', async () => {
    const { dir, victim } = await generated();
    writeFileSync(join(dir, 'out/src/routes/items.ts'), '// edited\n');
    const result = await run(dir, true, swapOnce(dir, victim));
    expect(result.status).toBe('refused');
    expect(readFileSync(join(victim, 'items.ts'), 'utf8')).toBe('PRECIOUS\n');
    expect(existsSync(join(dir, 'routes.moved/items.ts'))).toBe(true);
  });

  // The last check, as each file is written or deleted: a swap after the check above.
  it.each(['add', 'change', 'delete'] as const)('is refused as it is written (%s)', async (kind) => {
    const { dir, victim } = await generated();
    swapOnce(dir, victim)();
    const real = realpathSync(join(dir, 'out'));
    const change: Change =
      kind === 'delete'
        ? { path: 'src/routes/items.ts', kind, owner: 'generated', before: 'x' }
        : { path: 'src/routes/items.ts', kind, owner: 'generated', after: '// generated\n' };
    const manifestBefore = readFileSync(join(real, '.svcgen/manifest.json'), 'utf8');
    const apply = () => applyChanges(real, [change], { generator: 'svcgen', raml: 'api.raml', files: {} }, null);
    expect(apply).toThrow(OutDirChanged);
    expect(readdirSync(victim)).toEqual(['items.ts']);
    expect(readFileSync(join(victim, 'items.ts'), 'utf8')).toBe('PRECIOUS\n');
    // Nothing after it is written either: the manifest is as it was.
    expect(readFileSync(join(real, '.svcgen/manifest.json'), 'utf8')).toBe(manifestBefore);
  });
});
