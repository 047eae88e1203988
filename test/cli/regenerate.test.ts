/**
 * Regeneration never loses user code, on the events fixture, whose handlers and
 * processors give it user-owned stubs: identical bytes for identical input, filled-in stubs kept,
 * new handler names get stubs, a removed resource takes its generated files with it and leaves
 * its stubs (reported as unused), and `--check` in a CI script.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

/** A copy of the events fixture in a fresh folder, to change at will. */
function eventsApi(): { dir: string; raml: string; out: string; schema: (name: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-regenerate-'));
  cpSync(join(repoRoot, 'fixtures', 'events'), join(dir, 'api'), { recursive: true });
  return {
    dir,
    raml: join(dir, 'api', 'api.raml'),
    out: join(dir, 'out'),
    schema: (name) => join(dir, 'api', 'schemas', `${name}.json`),
  };
}

const generate = (raml: string, out: string, ...flags: string[]) =>
  runCli(['generate', raml, '-o', out, ...flags], join(out, '..'));

/** Every file below `dir`, path → content. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  visit(dir);
  return files;
}

function edit(file: string, change: (text: string) => string): void {
  const before = readFileSync(file, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`the edit changed nothing in ${file}`);
  writeFileSync(file, after);
}

const MY_SET_SLUG = `import type { SetSlugEvent } from '../../events.js';

export async function setSlug(event: SetSlugEvent): Promise<void> {
  event.setFieldValue('slug', 'mine');
}
`;

describe('regenerating the events fixture', () => {
  it('keeps the manifest as it was when a run after a new migration changes nothing but a description', async () => {
    const a = eventsApi();
    expect((await generate(a.raml, a.out)).code).toBe(0);
    const schema = readdirSync(join(a.dir, 'api', 'schemas'))[0]!.replace(/\.json$/, '');
    edit(a.schema(schema), (t) =>
      t.replace(
        '"properties": {',
        '"properties": {\n"added_later": {"type": ["integer", "null"], "_db_settings": {"type": "integer"}},',
      ),
    );
    expect((await generate(a.raml, a.out)).code).toBe(0);
    const manifest = () => readFileSync(join(a.out, '.svcgen', 'manifest.json'), 'utf8');
    const before = manifest();
    edit(a.raml, (t) => t.replace(/^title: (.*)$/m, 'title: $1, renamed'));
    expect((await generate(a.raml, a.out)).code).toBe(0);
    const entries = (text: string) => (JSON.parse(text) as { files: Record<string, unknown> }).files;
    const migrations = (text: string) =>
      Object.entries(entries(text)).filter(([path]) => path.startsWith('src/db/migrations/0'));
    expect(migrations(manifest())).toEqual(migrations(before));
    expect(migrations(before).length).toBe(2);
  });

  it('gives byte-identical trees for identical input, in any out-dir', async () => {
    const a = eventsApi();
    const b = eventsApi();
    expect((await generate(a.raml, a.out)).code).toBe(0);
    expect((await generate(b.raml, join(b.dir, 'elsewhere', 'out'))).code).toBe(0);
    const first = tree(a.out);
    const second = tree(join(b.dir, 'elsewhere', 'out'));
    expect([...first.keys()]).toEqual([...second.keys()]);
    for (const [path, content] of first) expect(second.get(path), path).toBe(content);
    expect(first.has('src/custom/handlers/set-slug.ts')).toBe(true);
    expect(first.has('src/custom/processors/trim.ts')).toBe(true);
    expect(first.has('src/custom/extend.ts')).toBe(true);
  });

  it('keeps a filled-in stub, and creates the stub of a new handler name', async () => {
    const { raml, out, schema } = eventsApi();
    await generate(raml, out);
    writeFileSync(join(out, 'src/custom/handlers/set-slug.ts'), MY_SET_SLUG);
    edit(schema('project'), (t) =>
      t.replace('"before_create": ["set_slug"]', '"before_create": ["set_slug", "notify_team"]'),
    );
    const run = await generate(raml, out);
    expect(run.code).toBe(0);
    // Added: the new stub. Changed: src/events.ts (its type), src/model-events.ts (its binding)
    // and the README that lists the handlers.
    expect(run.stderr).toMatch(/1 added, 3 changed, 0 deleted/);
    expect(readFileSync(join(out, 'src/custom/handlers/set-slug.ts'), 'utf8')).toBe(MY_SET_SLUG);
    expect(readFileSync(join(out, 'src/custom/handlers/notify-team.ts'), 'utf8')).toContain(
      'export async function notifyTeam(event: NotifyTeamEvent)',
    );
    expect(readFileSync(join(out, 'src/model-events.ts'), 'utf8')).toContain('before: { create: [setSlug, notifyTeam]');
    expect(readFileSync(join(out, 'src/events.ts'), 'utf8')).toContain('export type NotifyTeamEvent = ');
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('- `notify_team`: before_create of Project');
  });

  it('removing a resource deletes its generated files and keeps its stubs, reported as unused on every run', async () => {
    const { raml, out, schema } = eventsApi();
    await generate(raml, out);
    writeFileSync(join(out, 'src/custom/handlers/set-slug.ts'), MY_SET_SLUG);
    edit(raml, (t) => t.replace(/\n\/projects:[\s\S]*?\n(?=\/tasks:)/, '\n'));
    edit(schema('task'), (t) => t.replace(/,\s*"project_id": \{[\s\S]*?\}\s*\}/, ''));
    // Removing a model drops its table: refused until the user says so.
    const refused = await generate(raml, out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error SVC3101: model Project is removed');
    // …and the routes clients call: refused until the user says so too.
    expect(refused.stderr).toContain('error SVC3111: breaks clients: GET /projects: route removed');
    const run = await generate(raml, out, '--allow-data-loss', '--allow-breaking');
    expect(run.code, run.stderr).toBe(0);
    for (const gone of ['src/models/project.ts', 'src/repositories/project.ts', 'src/routes/projects.ts'])
      expect(existsSync(join(out, gone)), gone).toBe(false);
    const unused = [
      ...['add-open-tasks', 'close-tasks', 'refuse-frozen', 'set-slug'].map((h) => `src/custom/handlers/${h}.ts`),
      // The removed model's subscribers of committed changes.
      'src/custom/events/project.ts',
    ];
    for (const stub of unused) {
      expect(existsSync(join(out, stub)), stub).toBe(true);
      expect(run.stderr).toContain(`unused ${stub}: api.raml no longer refers to it`);
    }
    // Still used by Task and User: not reported.
    expect(run.stderr).not.toContain('audit.ts');
    expect(readFileSync(join(out, 'src/custom/handlers/set-slug.ts'), 'utf8')).toBe(MY_SET_SLUG);
    // Up to date: unused stubs are the user's to delete, not a reason to fail CI.
    expect((await generate(raml, out, '--check')).code).toBe(0);
    const again = await generate(raml, out);
    expect(again.stderr).toContain('unused src/custom/handlers/set-slug.ts');
    expect(again.stderr).toMatch(/0 added, 0 changed, 0 deleted, \d+ unchanged, 5 unused/);
    rmSync(join(out, 'src/custom/handlers/set-slug.ts'));
    const afterDelete = await generate(raml, out);
    expect(afterDelete.stderr).not.toContain('set-slug.ts');
    expect(afterDelete.stderr).toContain('4 unused');
  });

  it('reuses earlier output only while it is on disk as written: deleted files return, edited ones are named', async () => {
    const { raml, out } = eventsApi();
    await generate(raml, out);
    const original = readFileSync(join(out, 'src/models/task.ts'), 'utf8');
    rmSync(join(out, 'src/models/task.ts'));
    rmSync(join(out, 'src/custom/handlers/audit.ts'));
    const restored = await generate(raml, out);
    expect(restored.stderr).toMatch(/2 added, 0 changed, 0 deleted/);
    expect(readFileSync(join(out, 'src/models/task.ts'), 'utf8')).toBe(original);
    expect(existsSync(join(out, 'src/custom/handlers/audit.ts'))).toBe(true);
    writeFileSync(join(out, 'src/events.ts'), '// mine\n');
    const check = await generate(raml, out, '--check');
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('edited (would overwrite) src/events.ts');
    expect(check.stdout).toContain("+import type { Database } from './db/index.js';");
    // Generating again would refuse the edited file (SVC3005): the way out is said instead.
    expect(check.stderr).toContain('error SVC3010:');
    expect(check.stderr).toContain('help: move the edits of generated files to your own files');
    expect(check.stderr).toContain('1 edited');
    expect(check.stderr).toContain('svcgen generate --force');
  });

  it("--check says when the differences are svcgen's own, not the API's, and when they were made in the out-dir", async () => {
    const { raml, out } = eventsApi();
    await generate(raml, out);
    const manifestFile = join(out, '.svcgen/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
      svcgen: { version: string; build: string };
      api: string;
      files: Record<string, { sha256?: string }>;
    };
    expect(manifest.svcgen.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.svcgen.build).toMatch(/^[0-9a-f]{12}$/);
    expect(manifest.api).toMatch(/^[0-9a-f]{64}$/);
    // What an older svcgen would have left: another server.ts, recorded as written by svcgen 0.0.1.
    const older = `${readFileSync(join(out, 'src/server.ts'), 'utf8')}// written by an older svcgen\n`;
    writeFileSync(join(out, 'src/server.ts'), older);
    manifest.files['src/server.ts']!.sha256 = createHash('sha256').update(older).digest('hex');
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, svcgen: { version: '0.0.1', build: 'a'.repeat(12) } }));
    const upgraded = await generate(raml, out, '--check');
    expect(upgraded.code).toBe(1);
    expect(upgraded.stdout).toContain('change   src/server.ts');
    expect(upgraded.stderr).toContain(
      `the API is as it was: the differences listed are svcgen's own, from svcgen 0.0.1 (build aaaaaaaaaaaa) to ${manifest.svcgen.version} (build ${manifest.svcgen.build})`,
    );
    // The same after an API change too, said as both.
    writeFileSync(raml, readFileSync(raml, 'utf8').replace('title:', 'title: Changed'));
    expect((await generate(raml, out, '--check')).stderr).toContain(
      'the API changed, and so did svcgen, from svcgen 0.0.1',
    );
    // A manifest of a svcgen that recorded neither: out of date, with no guess at why.
    const { svcgen: _, api: __, ...oldShape } = manifest;
    writeFileSync(manifestFile, JSON.stringify(oldShape));
    const unknown = await generate(raml, out, '--check');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('is out of date');
    expect(unknown.stderr).not.toMatch(/the API (is as it was|changed)/);
    // Up to date again, then an edit in the out-dir: neither the API nor svcgen is the cause.
    await generate(raml, out, '--force');
    expect((await generate(raml, out, '--check')).code).toBe(0);
    writeFileSync(join(out, 'src/events.ts'), '// mine\n');
    const edited = await generate(raml, out, '--check');
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain(
      'the API and svcgen are as they were: the differences listed were made in the out-dir itself',
    );
    // The usual case says nothing more than "out of date".
    rmSync(join(out, 'src/events.ts'));
    writeFileSync(raml, readFileSync(raml, 'utf8').replace('title: Changed', 'title: Changed again'));
    const apiOnly = await generate(raml, out, '--check');
    expect(apiOnly.stderr).toContain('is out of date');
    expect(apiOnly.stderr).not.toMatch(/the API (is as it was|changed)|as they were/);
  });

  it('after an upgrade of svcgen, blames an edit in the out-dir on the out-dir, and a plain generate says svcgen changed', async () => {
    const { raml, out } = eventsApi();
    await generate(raml, out);
    const manifestFile = join(out, '.svcgen/manifest.json');
    const asIfOlder = () => {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
      writeFileSync(manifestFile, JSON.stringify({ ...manifest, svcgen: { version: '0.0.1', build: 'a'.repeat(12) } }));
    };
    asIfOlder();
    writeFileSync(join(out, 'src/events.ts'), '// mine\n');
    const edited = await generate(raml, out, '--check');
    expect(edited.code).toBe(1);
    // A probe's edit was called svcgen's own: only the edited file differs.
    expect(edited.stderr).toContain(
      'the API is as it was, and the files marked edited were changed in the out-dir itself (svcgen changed too, from svcgen 0.0.1',
    );
    expect(edited.stderr).not.toContain("the differences listed are svcgen's own");
    rmSync(join(out, 'src/events.ts'));
    writeFileSync(raml, readFileSync(raml, 'utf8').replace('title:', 'title: Changed'));
    const written = await generate(raml, out);
    expect(written.code, written.stderr).toBe(0);
    // The out-dir as it was given (absolute here).
    expect(written.stderr).toContain(`svcgen: svcgen changed since ${out} was generated, from svcgen 0.0.1`);
    // The next run is of this svcgen: nothing more to say.
    writeFileSync(raml, readFileSync(raml, 'utf8').replace('title: Changed', 'title: Changed again'));
    expect((await generate(raml, out)).stderr).not.toContain('svcgen changed since');
  });

  // The generated README says where a test of one's own goes; a probe's new user could not tell whether it was safe there.
  it('leaves a test of your own in test/custom/ alone: kept through a change of the API, and no difference to --check', async () => {
    const { raml, out, schema } = eventsApi();
    await generate(raml, out);
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('Tests of your own go in `test/custom/`');
    const mine = join(out, 'test/custom/projects.test.ts');
    mkdirSync(dirname(mine), { recursive: true });
    writeFileSync(mine, "import { it } from 'vitest';\nit('is mine', () => {});\n");
    expect((await generate(raml, out, '--check')).code).toBe(0);
    edit(schema('project'), (t) =>
      t.replace('"max_length": 100 } },\n        "slug"', '"max_length": 120 } },\n        "slug"'),
    );
    expect((await generate(raml, out)).code).toBe(0);
    expect((await generate(raml, out, '--check')).code).toBe(0);
    expect(readFileSync(mine, 'utf8')).toBe("import { it } from 'vitest';\nit('is mine', () => {});\n");
  });

  it('--check in a CI script: passes when up to date, fails with the diff after an API change', async () => {
    const { dir, raml, out, schema } = eventsApi();
    await generate(raml, out);
    const script = join(dir, 'ci.sh');
    writeFileSync(
      script,
      `set -euo pipefail\nnode "${join(repoRoot, 'bin', 'svcgen.js')}" generate api/api.raml -o out --check\necho "generated code is up to date"\n`,
    );
    const ok = await execa('bash', [script], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('generated code is up to date');
    edit(schema('project'), (t) =>
      t.replace('"max_length": 100 } },\n        "slug"', '"max_length": 120 } },\n        "slug"'),
    );
    const stale = await execa('bash', [script], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
    expect(stale.exitCode).toBe(1);
    expect(stale.stdout).toContain('change   src/models/project.ts');
    expect(stale.stdout).toMatch(/\+.*maxLength: 120/);
    expect(stale.stdout).not.toContain('generated code is up to date');
    expect(stale.stderr).toContain('is out of date');
  });
});
