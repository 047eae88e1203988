/**
 * `svcgen generate` on disk: writes only what changed, keeps user-owned files,
 * refuses to overwrite edited generated files unless --force, deletes stale unedited ones,
 * `--check` for CI, `--dry-run`, and a located error (exit 1, nothing written) for bad input.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

/** A copy of ramses-starter in a fresh folder, to change at will. */
function starter(): { dir: string; raml: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-generate-'));
  cpSync(join(repoRoot, 'fixtures', 'ramses-starter'), join(dir, 'api'), { recursive: true });
  return { dir, raml: join(dir, 'api', 'api.raml'), out: join(dir, 'out') };
}

const generate = (raml: string, out: string, ...flags: string[]) =>
  runCli(['generate', raml, '-o', out, ...flags], join(out, '..'));

describe('svcgen generate', () => {
  it('writes the project, a manifest, and says what it did', async () => {
    const { raml, out } = starter();
    const run = await generate(raml, out);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\d+ added, 0 changed, 0 deleted, 0 unchanged/);
    // A new project says what to do next, as init does; a regeneration does not.
    expect(run.stderr).toMatch(/svcgen: next: cd \S+ && npm install && npm start/);
    expect((await generate(raml, out)).stderr).not.toContain('svcgen: next:');
    for (const file of ['package.json', 'service.ini', 'src/app.ts', 'src/routes/items.ts', '.svcgen/manifest.json'])
      expect(existsSync(join(out, file)), file).toBe(true);
    const manifest = JSON.parse(readFileSync(join(out, '.svcgen/manifest.json'), 'utf8'));
    expect(manifest.files['src/app.ts']).toMatchObject({
      owner: 'generated',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(manifest.files['service.ini'].owner).toBe('user');
  });

  it('writes nothing the second time: same bytes, files untouched', async () => {
    const { raml, out } = starter();
    await generate(raml, out);
    const before = statSync(join(out, 'src/app.ts')).mtimeMs;
    const run = await generate(raml, out);
    expect(run.stderr).toMatch(/0 added, 0 changed, 0 deleted, \d+ unchanged/);
    expect(statSync(join(out, 'src/app.ts')).mtimeMs).toBe(before);
  });

  it('never changes a user-owned file', async () => {
    const { raml, out } = starter();
    await generate(raml, out);
    writeFileSync(join(out, 'service.ini'), 'port = 8080\n');
    expect((await generate(raml, out)).code).toBe(0);
    expect(readFileSync(join(out, 'service.ini'), 'utf8')).toBe('port = 8080\n');
  });

  it('refuses to overwrite an edited generated file, naming it; --force overwrites', async () => {
    const { raml, out } = starter();
    await generate(raml, out);
    // A rename the schema declares: a migration, not data loss.
    const items = readFileSync(join(raml, '..', 'items.json'), 'utf8');
    writeFileSync(
      join(raml, '..', 'items.json'),
      items
        .replace('"description"', '"summary"')
        .replace(/("summary":[^}]*"_db_settings": \{)/, '$1 "renamed_from": "description",'),
    );
    writeFileSync(join(out, 'src/models/item.ts'), '// my change\n');
    // The rename keeps the data, but clients see the field's new name: allowed, so that only the edit refuses.
    const refused = await generate(raml, out, '--allow-breaking');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to overwrite src/models/item.ts');
    expect(readFileSync(join(out, 'src/models/item.ts'), 'utf8')).toBe('// my change\n');
    expect(existsSync(join(out, 'src/db/migrations/0002_rename_item_description_to_summary.ts'))).toBe(false);
    const forced = await generate(raml, out, '--force', '--allow-breaking');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(out, 'src/models/item.ts'), 'utf8')).toContain('summary');
    expect(readFileSync(join(out, 'src/db/migrations/0002_rename_item_description_to_summary.ts'), 'utf8')).toContain(
      'rename column "description" to "summary"',
    );
  });

  it('refuses to write over files it did not write (a folder that is not its output)', async () => {
    const { raml, out } = starter();
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'package.json'), '{"name":"mine"}\n');
    const run = await generate(raml, out);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to overwrite package.json');
    expect(readFileSync(join(out, 'package.json'), 'utf8')).toBe('{"name":"mine"}\n');
  });

  it('deletes generated files it no longer produces, unless they were edited', async () => {
    const { raml, out } = starter();
    await generate(raml, out);
    const manifestPath = join(out, '.svcgen/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    // Pretend an earlier run generated two more files, one of which the user has since edited.
    const header = '// Generated by svcgen from api.raml — do not edit. The routes of a model since removed.\n';
    writeFileSync(join(out, 'src/routes/old.ts'), `${header}old\n`);
    writeFileSync(join(out, 'src/routes/edited.ts'), `${header}edited\n`);
    const { createHash } = await import('node:crypto');
    const hash = (text: string) => createHash('sha256').update(text).digest('hex');
    manifest.files['src/routes/old.ts'] = { owner: 'generated', sha256: hash(`${header}old\n`) };
    manifest.files['src/routes/edited.ts'] = { owner: 'generated', sha256: hash(`${header}as generated\n`) };
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const run = await generate(raml, out);
    expect(run.code).toBe(0);
    expect(existsSync(join(out, 'src/routes/old.ts'))).toBe(false);
    expect(existsSync(join(out, 'src/routes/edited.ts'))).toBe(true);
    expect(run.stderr).toContain('kept src/routes/edited.ts');
    expect(JSON.parse(readFileSync(manifestPath, 'utf8')).files['src/routes/old.ts']).toBeUndefined();
  });

  it('--check: exit 0 when up to date, 1 with the files and a short diff when not, writing nothing', async () => {
    const { raml, out } = starter();
    await generate(raml, out);
    expect((await generate(raml, out, '--check')).code).toBe(0);
    writeFileSync(
      join(out, 'src/app.ts'),
      readFileSync(join(out, 'src/app.ts'), 'utf8').replace("BASE_PATH = '/v1'", "BASE_PATH = '/v9'"),
    );
    const run = await generate(raml, out, '--check');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('src/app.ts');
    expect(run.stdout).toContain("-export const BASE_PATH = '/v9';");
    expect(run.stdout).toContain("+export const BASE_PATH = '/v1';");
    expect(readFileSync(join(out, 'src/app.ts'), 'utf8')).toContain('/v9');
  });

  it('--dry-run lists what would change and writes nothing', async () => {
    const { raml, out } = starter();
    const run = await generate(raml, out, '--dry-run');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/add\s+src\/app\.ts/);
    expect(existsSync(out)).toBe(false);
  });

  it('shows its progress on a terminal for a long run, and erases it; not elsewhere', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'svcgen-progress-')), 'out');
    const raml = join(repoRoot, 'fixtures', 'ramses-example', 'api.raml');
    const onTerminal = await runCli(['generate', raml, '-o', out], repoRoot, { terminal: true });
    expect(onTerminal.code).toBe(0);
    const total = Number(/generating \d+\/(\d+) files/.exec(onTerminal.stderr)?.[1]);
    expect(total).toBeGreaterThan(60);
    expect(onTerminal.stderr).toContain(`\rsvcgen: generating ${total}/${total} files\r\u001b[K`);
    const elsewhere = await runCli(['generate', raml, '-o', `${out}-2`], repoRoot);
    expect(elsewhere.stderr).not.toContain('generating');
  });

  it('bad input: located diagnostics, exit 1, nothing written', async () => {
    const { raml, out } = starter();
    writeFileSync(join(raml, '..', 'items.json'), '{ "type": "object", ');
    const run = await generate(raml, out);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/items\.json:\d+:\d+ - error SVC/);
    expect(existsSync(out)).toBe(false);
  });
});
