/**
 * A write the file system refuses (no permission, a read-only or full disk, a name too long) is
 * SVC3011 and leaves the out-dir as it was: every file of a run is written under a temporary name
 * before any is put in place. A probe's read-only `src/db/migrations` left five files rewritten,
 * the manifest not, and a project that imported a migration that was not there; an out-dir it could
 * not make was a stack trace ("internal error"), and `-o /proc/nope` never returned.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Change } from '../../src/write/changes.js';
import { applyChanges, OutDirUnwritable } from '../../src/write/write.js';
import { runCli } from '../support/cli.js';
import { raml, writeTree } from '../support/files.js';

/** Every file below `dir`, path → content. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      out[join(entry.parentPath, entry.name).slice(dir.length + 1)] = readFileSync(
        join(entry.parentPath, entry.name),
        'utf8',
      );
  return out;
}

describe('an out-dir the file system will not write', () => {
  it('puts nothing in place when one file of the run cannot be written', () => {
    const out = writeTree({ 'src/a.ts': 'old a\n', 'README.md': 'old readme\n' });
    mkdirSync(join(out, '.svcgen'));
    writeFileSync(join(out, '.svcgen/manifest.json'), '{"old":true}\n');
    const before = listing(out);
    const changes: Change[] = [
      { path: 'src/a.ts', kind: 'change', owner: 'generated', before: 'old a\n', after: 'new a\n' },
      { path: 'src/new/b.ts', kind: 'add', owner: 'generated', after: 'b\n' },
      { path: 'README.md', kind: 'delete', owner: 'generated', before: 'old readme\n' },
      // A name longer than any file system takes (ENAMETOOLONG, even for root), written last.
      { path: `src/${'c'.repeat(300)}.ts`, kind: 'add', owner: 'generated', after: 'c\n' },
    ];
    let thrown: unknown;
    try {
      applyChanges(out, changes, { generator: 'svcgen', raml: 'api.raml', files: {} }, null);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OutDirUnwritable);
    expect(thrown).toMatchObject({ path: `src/${'c'.repeat(300)}.ts`, partly: [] });
    expect((thrown as Error).message).toContain('[ENAMETOOLONG]');
    // As it was: the old files, no new one, no temporary left behind (an empty folder may stay).
    expect(listing(out)).toEqual(before);
  });

  it('is SVC3011 with where and why, never a stack trace, and -o /proc/… returns', async () => {
    const item = { type: 'object', properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } } };
    const dir = writeTree({
      'api.raml': raml(
        'title: Items\n/items:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n',
      ),
      'item.json': JSON.stringify(item),
    });
    for (const target of ['/sys/kernel/svcgen-out', '/proc/svcgen-out']) {
      const run = await runCli(['generate', 'api.raml', '-o', target], dir);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(
        /error SVC3011: cannot write .* in the out-dir: mkdir failed: .*; nothing of this run was written/,
      );
      expect(run.stderr).not.toContain('internal error');
    }
  }, 60_000);
});
