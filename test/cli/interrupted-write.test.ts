/**
 * A write the file system stopped part way (SVC3011 after some files were in place, the manifest
 * not) is told as such, and the run after it says what it records: a probe's `chattr +i` on one
 * model file left a new migration and a new stub in place, the run said "nothing written", and the
 * run after it, which recorded them, said neither (the migration ran unannounced at the next start).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import type * as WriteModule from '../../src/write/write.js';

/** When set, applyChanges puts nothing in place and fails as if these had been, before a rename failed. */
const failing = vi.hoisted(() => ({ placed: undefined as string[] | undefined }));

vi.mock('../../src/write/write.js', async (importOriginal) => {
  const actual = await importOriginal<typeof WriteModule>();
  return {
    ...actual,
    applyChanges: (...args: Parameters<typeof actual.applyChanges>) => {
      if (failing.placed)
        throw new actual.OutDirUnwritable(
          'src/models/project.ts',
          'rename failed: not permitted [EPERM]',
          failing.placed,
        );
      actual.applyChanges(...args);
    },
  };
});

function eventsApi(): { raml: string; out: string; schema: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-interrupted-'));
  cpSync(join(repoRoot, 'fixtures', 'events'), join(dir, 'api'), { recursive: true });
  return {
    raml: join(dir, 'api', 'api.raml'),
    out: join(dir, 'out'),
    schema: join(dir, 'api', 'schemas', 'project.json'),
  };
}

const generate = (raml: string, out: string) => runCli(['generate', raml, '-o', out], join(out, '..'));

/** The project's schema with a new field (a migration) and a new handler name (a stub). */
function changeProject(schema: string): void {
  const text = readFileSync(schema, 'utf8');
  const changed = text
    .replace(
      '"properties": {',
      '"properties": {\n"notes": {"type": ["string", "null"], "_db_settings": {"type": "text"}},',
    )
    .replace('"before_create": ["set_slug"]', '"before_create": ["set_slug", "stamp"]');
  expect(changed).not.toBe(text);
  writeFileSync(schema, changed);
}

describe('a write stopped part way', () => {
  it('says how many files it put in place, not "nothing written"', async () => {
    const { raml, out, schema } = eventsApi();
    expect((await generate(raml, out)).code).toBe(0);
    changeProject(schema);
    failing.placed = ['README.md', 'src/custom/handlers/stamp.ts'];
    try {
      const run = await generate(raml, out);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error SVC3011');
      expect(run.stderr).toContain(`svcgen: 2 file(s) written to ${out} before it stopped, its manifest not`);
      expect(run.stderr).not.toContain('nothing written');
    } finally {
      failing.placed = undefined;
    }
  });

  it('is recorded by the next run, which says the migration and the files it records are new', async () => {
    const { raml, out, schema } = eventsApi();
    expect((await generate(raml, out)).code).toBe(0);
    const manifest = join(out, '.svcgen', 'manifest.json');
    const before = readFileSync(manifest, 'utf8');
    changeProject(schema);
    expect((await generate(raml, out)).code).toBe(0);
    // The out-dir as a run leaves it that put every file in place and failed at its manifest.
    writeFileSync(manifest, before);
    const run = await generate(raml, out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /0 added, 0 changed, 0 deleted, \d+ unchanged, \d+ of those unchanged written by a run that stopped before its manifest, recorded now/,
    );
    expect(run.stderr).toMatch(
      /svcgen: new migration .*src\/db\/migrations\/0002_[a-z_]+\.ts \(written by the run that stopped\), run when the service starts/,
    );
    expect(readFileSync(manifest, 'utf8')).toContain('src/custom/handlers/stamp.ts');
    // Recorded: the run after says nothing of it again.
    const again = await generate(raml, out);
    expect(again.stderr).not.toContain('stopped before its manifest');
    expect(again.stderr).not.toContain('new migration');
  });
});
