/**
 * The out-dir and its manifest are untrusted input (in CI they come from a pull
 * request): svcgen never writes or deletes anything outside the out-dir, through `..`, absolute
 * paths or symbolic links, in any mode. A tampered manifest or a link leading outside is a coded
 * diagnostic (exit 1), and then nothing is written or deleted, inside the out-dir or out.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const hash = (text: string) => createHash('sha256').update(text).digest('hex');
const MODES: readonly { readonly mode: string; readonly flags: readonly string[] }[] = [
  { mode: 'generate', flags: [] },
  { mode: 'generate --force', flags: ['--force'] },
  { mode: 'generate --check', flags: ['--check'] },
  { mode: 'generate --dry-run', flags: ['--dry-run'] },
];
const VICTIM = 'a file outside the out-dir\n';

let pristine: string;

/** One generated ramses-starter project, copied for each case (generating it is the slow part). */
beforeAll(async () => {
  pristine = mkdtempSync(join(tmpdir(), 'svcgen-untrusted-pristine-'));
  cpSync(join(repoRoot, 'fixtures', 'ramses-starter'), join(pristine, 'api'), { recursive: true });
  const run = await runCli(['generate', 'api/api.raml', '-o', 'out'], pristine);
  expect(run.code, run.stderr).toBe(0);
});

interface Workspace {
  readonly dir: string;
  readonly out: string;
  readonly victim: string;
  readonly manifest: () => { generator: string; raml: string; input?: string; files: Record<string, unknown> };
  readonly writeManifest: (value: unknown) => void;
  readonly generate: (...flags: string[]) => ReturnType<typeof runCli>;
}

/** A fresh copy of the generated project, and a victim file next to the out-dir. */
function workspace(): Workspace {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-untrusted-'));
  cpSync(pristine, dir, { recursive: true });
  const out = join(dir, 'out');
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, VICTIM);
  const manifestFile = join(out, '.svcgen', 'manifest.json');
  return {
    dir,
    out,
    victim,
    manifest: () => JSON.parse(readFileSync(manifestFile, 'utf8')),
    writeManifest: (value) =>
      writeFileSync(manifestFile, typeof value === 'string' ? value : JSON.stringify(value, null, 2)),
    generate: (...flags) => runCli(['generate', 'api/api.raml', '-o', 'out', ...flags], dir),
  };
}

/** Every file and link below `dir` (links not followed), path → content or target. */
function listing(dir: string, skip?: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (skip !== undefined && relative(dir, path) === skip) continue;
      const info = lstatSync(path);
      if (info.isSymbolicLink()) found.set(relative(dir, path), `-> ${readlinkSync(path)}`);
      else if (info.isDirectory()) visit(path);
      else if (info.isFile()) found.set(relative(dir, path), readFileSync(path, 'utf8'));
      else found.set(relative(dir, path), '(special file)');
    }
  };
  visit(dir);
  return found;
}

/** Runs `generate` with `flags` and checks that it refused with `code` and changed nothing anywhere. */
async function expectRefused(
  ws: Workspace,
  code: string,
  flags: readonly string[],
  outside: readonly string[] = [],
): Promise<string> {
  const before = listing(ws.dir);
  const outsideBefore = outside.map((folder) => listing(folder));
  const run = await ws.generate(...flags);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stderr).toContain(` ${code}: `);
  expect(run.stderr).toContain('svcgen: nothing written to out');
  expect(listing(ws.dir)).toEqual(before);
  outside.forEach((folder, i) => expect(listing(folder)).toEqual(outsideBefore[i]));
  expect(readFileSync(ws.victim, 'utf8')).toBe(VICTIM);
  return run.stderr;
}

/** Changes the API so that a run would change, add and delete files. */
function changeApi(ws: Workspace): void {
  const schema = join(ws.dir, 'api', 'items.json');
  // A new optional field: the run writes a migration, and breaks neither stored data nor clients.
  const text = readFileSync(schema, 'utf8');
  writeFileSync(
    schema,
    text.replace(
      '"properties": {',
      '"properties": {\n"summary": { "type": ["string", "null"], "_db_settings": { "type": "string" } },',
    ),
  );
}

describe('a tampered manifest', () => {
  describe.each(MODES)('$mode', ({ flags }) => {
    it('refuses a `..` entry carrying the hash of a file outside the out-dir (SVC3002)', async () => {
      const ws = workspace();
      const manifest = ws.manifest();
      manifest.files['../victim.txt'] = { owner: 'generated', sha256: hash(VICTIM) };
      manifest.files['src/../../victim.txt'] = { owner: 'generated', sha256: hash(VICTIM) };
      ws.writeManifest(manifest);
      changeApi(ws);
      const stderr = await expectRefused(ws, 'SVC3002', flags);
      expect(stderr).toMatch(
        /out\/\.svcgen\/manifest\.json:\d+:5 - error SVC3002: refusing the manifest entry "\.\.\/victim\.txt": it has a `\.\.` segment/,
      );
      expect(stderr).toContain('refusing the manifest entry "src/../../victim.txt"');
    });

    it('refuses an absolute entry (SVC3002)', async () => {
      const ws = workspace();
      const manifest = ws.manifest();
      manifest.files[ws.victim] = { owner: 'generated', sha256: hash(VICTIM) };
      ws.writeManifest(manifest);
      const stderr = await expectRefused(ws, 'SVC3002', flags);
      expect(stderr).toContain(`refusing the manifest entry ${JSON.stringify(ws.victim)}: it is absolute`);
    });
  });

  it.each([
    ['a backslash', 'src\\..\\..\\victim.txt', 'it contains a backslash'],
    ['a drive letter', 'C:/victim.txt', 'it starts with a drive letter'],
    ['a `.` segment', './src/app.ts', 'it has a `.` segment'],
    ['an empty segment', 'src//app.ts', 'it has an empty segment'],
    ['a NUL', 'src/app.ts\u0000.txt', 'it contains a NUL character'],
    ['a name too long for a file system', `src/${'a'.repeat(256)}.ts`, 'a name in it is 259 bytes long'],
    ["svcgen's own folder", '.svcgen/manifest.json', "it is in `.svcgen/`, svcgen's own folder"],
  ])('refuses an entry with %s (SVC3002), even with --force', async (_, path, reason) => {
    const ws = workspace();
    const manifest = ws.manifest();
    manifest.files[path] = { owner: 'generated', sha256: hash('x') };
    ws.writeManifest(manifest);
    const stderr = await expectRefused(ws, 'SVC3002', ['--force']);
    expect(stderr).toContain(`: ${reason}`);
  });

  const valid = { generator: 'svcgen', raml: 'api.raml' };
  it.each([
    ['not JSON', '{ "generator": "svcgen",\n  "files": {', 2, 'the manifest is not valid JSON'],
    ['not an object', '[]', 1, 'the manifest must be a JSON object, not an array'],
    [
      'files an array',
      JSON.stringify({ ...valid, files: [] }, null, 2),
      4,
      '"files" must be a JSON object, not an array',
    ],
    ['files missing', JSON.stringify(valid, null, 2), 1, 'the manifest has no "files"'],
    [
      'another generator',
      JSON.stringify({ ...valid, generator: 'other', files: {} }, null, 2),
      2,
      '"generator" must be "svcgen"',
    ],
    ['raml not a string', JSON.stringify({ ...valid, raml: 7, files: {} }, null, 2), 3, '"raml" must be a string'],
    [
      'an unknown owner',
      JSON.stringify({ ...valid, files: { 'src/app.ts': { owner: 'root' } } }, null, 2),
      6,
      '"owner" of "src/app.ts" must be "generated", "migration" or "user"',
    ],
    [
      'a numeric hash',
      JSON.stringify({ ...valid, files: { 'src/app.ts': { owner: 'generated', sha256: 42 } } }, null, 2),
      7,
      '"sha256" of "src/app.ts" must be a SHA-256 hash',
    ],
    [
      'a short hash',
      JSON.stringify({ ...valid, files: { 'src/app.ts': { owner: 'generated', sha256: 'abc' } } }, null, 2),
      7,
      '"sha256" of "src/app.ts" must be a SHA-256 hash',
    ],
    [
      'a generated file without hash',
      JSON.stringify({ ...valid, files: { 'src/app.ts': { owner: 'generated' } } }, null, 2),
      5,
      'has no "sha256"',
    ],
    [
      'an entry that is a string',
      JSON.stringify({ ...valid, files: { 'src/app.ts': 'generated' } }, null, 2),
      5,
      'the entry of "src/app.ts" must be a JSON object, not a string',
    ],
    [
      'an unknown key',
      JSON.stringify({ ...valid, files: {}, extra: true }, null, 2),
      5,
      'unknown key "extra" in the manifest',
    ],
    [
      'unused on a generated file',
      JSON.stringify(
        { ...valid, files: { 'src/app.ts': { owner: 'generated', sha256: hash('x'), unused: true } } },
        null,
        2,
      ),
      8,
      '"unused" of "src/app.ts" can only be true',
    ],
    [
      'a "svcgen" stamp without its build',
      JSON.stringify({ ...valid, svcgen: { version: '0.1.0' }, files: {} }, null, 2),
      4,
      '"svcgen" has no "build"',
    ],
    [
      'a "svcgen" that is a string',
      JSON.stringify({ ...valid, svcgen: '0.1.0', files: {} }, null, 2),
      4,
      '"svcgen" must be a JSON object, not a string',
    ],
    [
      // A probe's edit made a stub of the user's a migration that "is gone" (SVC3106), to restore.
      'a file outside src/db/migrations/ recorded as a migration',
      JSON.stringify(
        { ...valid, files: { 'src/custom/handlers/check.ts': { owner: 'migration', sha256: hash('x') } } },
        null,
        2,
      ),
      6,
      '"owner" of "src/custom/handlers/check.ts" is "migration", which only a migration of src/db/migrations/ is',
    ],
    [
      'a path twice',
      `{\n  "generator": "svcgen",\n  "raml": "api.raml",\n  "files": {\n    "src/app.ts": { "owner": "user" },\n    "src/app.ts": { "owner": "user" }\n  }\n}\n`,
      6,
      'the manifest has the key "src/app.ts" twice',
    ],
  ])('is a located SVC3001 when %s: exit 1, nothing written, even with --force', async (_, text, line, message) => {
    const ws = workspace();
    ws.writeManifest(text);
    changeApi(ws);
    const stderr = await expectRefused(ws, 'SVC3001', ['--force']);
    expect(stderr).toContain(`out/.svcgen/manifest.json:${line}:`);
    expect(stderr).toContain(message);
  });

  /**
   * An entry added by hand (or by a pull request) that records one of the user's own files inside
   * the out-dir, with its hash, as generated: the manifest alone never lets svcgen delete or
   * overwrite it. It was kept by generate and --dry-run (they reused the recorded tree) while
   * --check planned its deletion, and the next API change deleted it.
   */
  describe('an entry that claims a file of the user as generated', () => {
    const NOTES = '# Our notes\n\nNothing svcgen wrote.\n';
    const SCRIPT = "console.log('ours');\n";
    const DATA = '{ "ours": true }\n';
    function claimed(): Workspace {
      const ws = workspace();
      writeFileSync(join(ws.out, 'NOTES.md'), NOTES);
      mkdirSync(join(ws.out, 'tools'));
      writeFileSync(join(ws.out, 'tools/seed.ts'), SCRIPT);
      writeFileSync(join(ws.out, 'data.json'), DATA);
      const manifest = ws.manifest();
      manifest.files['NOTES.md'] = { owner: 'generated', sha256: hash(NOTES) };
      manifest.files['tools/seed.ts'] = { owner: 'generated', sha256: hash(SCRIPT) };
      manifest.files['data.json'] = { owner: 'generated', sha256: hash(DATA) };
      ws.writeManifest(manifest);
      return ws;
    }
    const keptAll = (ws: Workspace) => {
      expect(readFileSync(join(ws.out, 'NOTES.md'), 'utf8')).toBe(NOTES);
      expect(readFileSync(join(ws.out, 'tools/seed.ts'), 'utf8')).toBe(SCRIPT);
      expect(readFileSync(join(ws.out, 'data.json'), 'utf8')).toBe(DATA);
    };

    it.each([
      ['as it was', false],
      ['changed', true],
    ])('with the API %s: every mode keeps the files and says why (SVC3007), and they agree', async (_, change) => {
      const ws = claimed();
      if (change) changeApi(ws);
      const dryRun = await ws.generate('--dry-run');
      const check = await ws.generate('--check');
      for (const run of [dryRun, check]) {
        const said = `${run.stdout}${run.stderr}`;
        expect(said).not.toMatch(/delete\s+(NOTES\.md|tools\/seed\.ts|data\.json)/);
        expect(said).toMatch(/stale but edited \(would keep\)\s+NOTES\.md/);
      }
      // Out of date by the stale entries alone: generating forgets them, and --check then passes.
      expect(check.code).toBe(1);
      const force = await ws.generate('--force');
      expect(force.code, force.stderr).toBe(0);
      expect(force.stderr).toMatch(
        /out\/NOTES\.md:1:1 - warning SVC3007: kept NOTES\.md: the manifest records it as generated, but it does not begin with svcgen's generated header/,
      );
      expect(force.stderr).toContain('kept tools/seed.ts: the manifest records it as generated');
      expect(force.stderr).toContain(
        'kept data.json: svcgen no longer generates it, and a file of its type has no header to show svcgen wrote it',
      );
      keptAll(ws);
      expect(Object.keys(ws.manifest().files)).not.toContain('NOTES.md');
      const after = await ws.generate('--check');
      expect(after.code, after.stderr).toBe(0);
      // And a later change of the API, which deletes what svcgen no longer generates, deletes none of them.
      const schema = join(ws.dir, 'api', 'items.json');
      writeFileSync(
        schema,
        readFileSync(schema, 'utf8').replace(
          '"properties": {',
          '"properties": {\n"label": { "type": ["string", "null"] },',
        ),
      );
      const later = await ws.generate();
      expect(later.code, later.stderr).toBe(0);
      keptAll(ws);
    });

    it('does not overwrite a file of the user at a path svcgen writes (SVC3006), though the manifest has its hash', async () => {
      const ws = workspace();
      const mine = '// my own app, not the generated one\nexport {};\n';
      writeFileSync(join(ws.out, 'src/app.ts'), mine);
      const manifest = ws.manifest();
      (manifest.files['src/app.ts'] as { sha256: string }).sha256 = hash(mine);
      ws.writeManifest(manifest);
      const stderr = await expectRefused(ws, 'SVC3006', []);
      expect(stderr).toContain('refusing to overwrite src/app.ts: svcgen did not write it');
      const check = await ws.generate('--check');
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/not written by svcgen \(would overwrite\)\s+src\/app\.ts/);
    });
  });

  it('reports SVC3001 and SVC3002 in --format json, at the manifest line', async () => {
    const ws = workspace();
    const manifest = ws.manifest();
    manifest.files['../victim.txt'] = { owner: 'generated', sha256: hash(VICTIM) };
    (manifest.files['src/app.ts'] as { sha256: unknown }).sha256 = null;
    ws.writeManifest(manifest);
    const run = await ws.generate('--format', 'json');
    expect(run.code).toBe(1);
    const diagnostics = JSON.parse(run.stdout) as {
      code: string;
      severity: string;
      file: string;
      line: number;
      message: string;
    }[];
    const text = readFileSync(join(ws.out, '.svcgen/manifest.json'), 'utf8').split('\n');
    const escape = diagnostics.find((d) => d.code === 'SVC3002')!;
    expect(escape).toMatchObject({ severity: 'error', file: 'out/.svcgen/manifest.json' });
    expect(text[escape.line - 1]).toContain('"../victim.txt"');
    const shape = diagnostics.find((d) => d.code === 'SVC3001')!;
    expect(text[shape.line - 1]).toContain('"sha256": null');
    expect(readFileSync(ws.victim, 'utf8')).toBe(VICTIM);
  });
});

describe('symbolic links in the out-dir', () => {
  /** The generated src/ moved outside the out-dir, with a link to it in its place: the manifest's hashes still match. */
  function srcOutside(): { ws: Workspace; elsewhere: string } {
    const ws = workspace();
    const elsewhere = join(ws.dir, 'elsewhere');
    mkdirSync(elsewhere);
    renameSync(join(ws.out, 'src'), join(elsewhere, 'src'));
    symlinkSync(join(elsewhere, 'src'), join(ws.out, 'src'));
    return { ws, elsewhere };
  }

  describe.each(MODES)('$mode', ({ flags }) => {
    it('refuses a src/ that links outside: nothing there is changed, deleted or created (SVC3003)', async () => {
      const { ws, elsewhere } = srcOutside();
      // Files the next run would change, delete (a stale generated file) and add.
      changeApi(ws);
      writeFileSync(join(elsewhere, 'src/routes/old.ts'), 'old\n');
      const manifest = ws.manifest();
      manifest.files['src/routes/old.ts'] = { owner: 'generated', sha256: hash('old\n') };
      ws.writeManifest(manifest);
      rmSync(join(elsewhere, 'src/app.ts'));
      const stderr = await expectRefused(ws, 'SVC3003', flags, [elsewhere]);
      expect(stderr).toMatch(
        /out\/src:1:1 - error SVC3003: refusing \S+ \(listed in the manifest\) \(and the other paths below src\): src is a symbolic link that leads outside the out-dir/,
      );
      expect(existsSync(join(elsewhere, 'src/app.ts'))).toBe(false);
      expect(readFileSync(join(elsewhere, 'src/routes/old.ts'), 'utf8')).toBe('old\n');
    });

    it('refuses a generated file that links to a file outside, even with its hash in the manifest (SVC3003)', async () => {
      const ws = workspace();
      rmSync(join(ws.out, 'src/app.ts'));
      symlinkSync(ws.victim, join(ws.out, 'src/app.ts'));
      const manifest = ws.manifest();
      manifest.files['src/app.ts'] = { owner: 'generated', sha256: hash(VICTIM) };
      ws.writeManifest(manifest);
      changeApi(ws);
      const stderr = await expectRefused(ws, 'SVC3003', flags);
      expect(stderr).toContain(
        'out/src/app.ts:1:1 - error SVC3003: refusing src/app.ts (listed in the manifest): src/app.ts is a symbolic link that leads outside the out-dir',
      );
    });

    it('refuses a .svcgen/ that links outside: no manifest is written there (SVC3003)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svcgen-untrusted-'));
      cpSync(join(repoRoot, 'fixtures', 'ramses-starter'), join(dir, 'api'), { recursive: true });
      const elsewhere = join(dir, 'elsewhere');
      mkdirSync(elsewhere);
      mkdirSync(join(dir, 'out'));
      symlinkSync(elsewhere, join(dir, 'out', '.svcgen'));
      const run = await runCli(['generate', 'api/api.raml', '-o', 'out', ...flags], dir);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        'out/.svcgen:1:1 - error SVC3003: refusing to write .svcgen/manifest.json (and the other paths below .svcgen): .svcgen is a symbolic link that leads outside the out-dir',
      );
      expect(readdirSync(elsewhere)).toEqual([]);
      expect(readdirSync(join(dir, 'out'))).toEqual(['.svcgen']);
    });
  });

  it('refuses a link that leads nowhere: it could be pointed anywhere (SVC3003)', async () => {
    const ws = workspace();
    rmSync(join(ws.out, 'src/routes'), { recursive: true });
    symlinkSync(join(ws.dir, 'not-yet'), join(ws.out, 'src/routes'));
    const stderr = await expectRefused(ws, 'SVC3003', ['--force']);
    expect(stderr).toContain('src/routes is a symbolic link that leads nowhere');
    expect(existsSync(join(ws.dir, 'not-yet'))).toBe(false);
  });

  it('refuses a fresh out-dir whose src/ links outside, in --format json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-untrusted-'));
    cpSync(join(repoRoot, 'fixtures', 'ramses-starter'), join(dir, 'api'), { recursive: true });
    mkdirSync(join(dir, 'elsewhere'));
    mkdirSync(join(dir, 'out'));
    symlinkSync('../elsewhere', join(dir, 'out', 'src'));
    const run = await runCli(['generate', 'api/api.raml', '-o', 'out', '--format', 'json'], dir);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'SVC3003',
        file: 'out/src',
        line: 1,
        column: 1,
        message: expect.stringContaining('src is a symbolic link that leads outside the out-dir'),
      }),
    ]);
    expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
    expect(readdirSync(join(dir, 'out'))).toEqual(['src']);
  });

  it('follows links that stay inside the out-dir, and an out-dir that is itself a link', async () => {
    const ws = workspace();
    // src/custom lives elsewhere in the out-dir; the out-dir is reached through a link.
    renameSync(join(ws.out, 'src/custom'), join(ws.out, 'custom-code'));
    symlinkSync('../custom-code', join(ws.out, 'src/custom'));
    symlinkSync(ws.out, join(ws.dir, 'linked-out'));
    changeApi(ws);
    const run = await runCli(['generate', 'api/api.raml', '-o', 'linked-out'], ws.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(ws.out, 'src/models/item.ts'), 'utf8')).toContain('summary');
    expect(lstatSync(join(ws.out, 'src/custom')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws.dir, 'linked-out')).isSymbolicLink()).toBe(true);
    expect(readFileSync(ws.victim, 'utf8')).toBe(VICTIM);
  });

  it('refuses a pipe where it would read a file, instead of hanging (SVC3004)', async () => {
    const ws = workspace();
    rmSync(join(ws.out, 'service.ini'));
    await execa('mkfifo', [join(ws.out, 'service.ini')]);
    // In a child process: a read of the pipe would block forever, and in-process nothing could end it.
    const run = await execa(
      process.execPath,
      [join(repoRoot, 'bin/svcgen.js'), 'generate', 'api/api.raml', '-o', 'out'],
      { cwd: ws.dir, reject: false, timeout: 30_000, env: { NO_COLOR: '1' } },
    );
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      'out/service.ini:1:1 - error SVC3004: refusing service.ini (listed in the manifest): service.ini is not a regular file',
    );
  });

  it('refuses a file where it needs a folder, and an out-dir that is a file (SVC3004)', async () => {
    const ws = workspace();
    rmSync(join(ws.out, 'src/routes'), { recursive: true });
    writeFileSync(join(ws.out, 'src/routes'), 'mine\n');
    const stderr = await expectRefused(ws, 'SVC3004', ['--force']);
    expect(stderr).toContain('src/routes is not a folder');
    const run = await runCli(['generate', 'api/api.raml', '-o', 'victim.txt'], ws.dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('victim.txt:1:1 - error SVC3004: refusing to write the out-dir: it is not a folder');
    expect(readFileSync(ws.victim, 'utf8')).toBe(VICTIM);
  });
});

/**
 * One svcgen writes an out-dir at a time (`.svcgen/lock`): a second run at once read the manifest
 * before the first wrote it, then refused the first one's files as edited by the user (SVC3005)
 * and told them to overwrite with --force.
 */
describe('two runs at once', () => {
  const lockFile = (ws: Workspace) => join(ws.out, '.svcgen', 'lock');

  it("the second is refused (SVC3012), never told that the first one's files are edits; then it runs", async () => {
    const ws = workspace();
    changeApi(ws);
    const runs = await Promise.all([ws.generate(), ws.generate(), ws.generate('--check'), ws.generate('--dry-run')]);
    const [first, ...others] = runs;
    expect(first.code, first.stderr).toBe(0);
    for (const run of others) {
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /out\/\.svcgen\/lock:1:1 - error SVC3012: out is being written by another svcgen \(process \d+, since \d{4}-/,
      );
      expect(run.stderr).not.toMatch(/SVC300[56]/);
    }
    expect(existsSync(lockFile(ws))).toBe(false);
    const again = await ws.generate('--check');
    expect(again.code, again.stdout).toBe(0);
  });

  it('a lock held by a live process: every mode refuses, nothing read or written; --force changes nothing', async () => {
    const ws = workspace();
    changeApi(ws);
    writeFileSync(lockFile(ws), JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-11-29T10:00:00Z' }));
    for (const { flags } of MODES) await expectRefused(ws, 'SVC3012', flags);
  });

  it('takes over the lock of a run that ended (killed half-way), and leaves none', async () => {
    const ws = workspace();
    changeApi(ws);
    const ended = execa(process.execPath, ['-e', '0']);
    await ended;
    writeFileSync(lockFile(ws), JSON.stringify({ pid: ended.pid, host: hostname(), since: '2026-11-29T10:00:00Z' }));
    const run = await ws.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(lockFile(ws))).toBe(false);
    expect(readFileSync(join(ws.out, '.gitignore'), 'utf8')).toContain('.svcgen/lock');
  });

  it('a lock that says nothing (a run stopped as it wrote it) holds for a minute, then is taken over', async () => {
    const ws = workspace();
    writeFileSync(lockFile(ws), '');
    const held = await ws.generate('--check');
    expect(held.code).toBe(1);
    expect(held.stderr).toContain('error SVC3012: out is being written by another svcgen\n');
    const longAgo = new Date(Date.now() - 5 * 60_000);
    utimesSync(lockFile(ws), longAgo, longAgo);
    const run = await ws.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(lockFile(ws))).toBe(false);
  });

  it('a first run refused leaves no out-dir behind (the lock and its folders go with it)', async () => {
    const ws = workspace();
    const manifest = ws.manifest();
    manifest.files['../victim.txt'] = { owner: 'generated', sha256: hash(VICTIM) };
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-fresh-'));
    cpSync(join(ws.dir, 'api'), join(dir, 'api'), { recursive: true });
    // The API refers to a schema that is not there: refused after the out-dir was opened.
    writeFileSync(join(dir, 'api', 'items.json'), '{ "type": "object", "properties": { "x": { "type": "nope" } } }');
    const run = await runCli(['generate', 'api/api.raml', '-o', 'new/out'], dir);
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });
});

describe('write outcomes are diagnostics', () => {
  it('an edited generated file (SVC3005) and a file svcgen did not write (SVC3006) are errors in --format json; nothing written', async () => {
    const ws = workspace();
    changeApi(ws);
    // An edit below the header, as a user edits a generated file: the file still shows svcgen wrote it.
    const model = join(ws.out, 'src/models/item.ts');
    writeFileSync(model, `${readFileSync(model, 'utf8').split('\n')[0]}\n// my change\n`);
    const manifest = ws.manifest();
    delete manifest.files['src/routes/items.ts'];
    ws.writeManifest(manifest);
    writeFileSync(join(ws.out, 'src/routes/items.ts'), '// mine\n');
    const before = listing(ws.dir);
    // A dry run says what the write would: the same refusals, the same exit code (it said "would overwrite", exit 0).
    const dry = await ws.generate('--dry-run', '--format', 'json');
    expect(dry.code).toBe(1);
    expect((JSON.parse(dry.stdout) as { code: string }[]).map((d) => d.code)).toEqual(['SVC3005', 'SVC3006']);
    expect((await ws.generate('--dry-run', '--force')).code).toBe(0);
    const run = await ws.generate('--format', 'json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'SVC3005',
        file: 'out/src/models/item.ts',
        message: 'refusing to overwrite src/models/item.ts: it was changed since svcgen wrote it',
        hint: expect.stringContaining('--force'),
      }),
      expect.objectContaining({
        severity: 'error',
        code: 'SVC3006',
        file: 'out/src/routes/items.ts',
        message: 'refusing to overwrite src/routes/items.ts: svcgen did not write it',
      }),
    ]);
    expect(listing(ws.dir)).toEqual(before);
  });

  it('an edited stale file (SVC3007) and an unused stub (SVC3008) are warnings: exit 0, written, kept', async () => {
    const ws = workspace();
    const manifest = ws.manifest();
    const header = '// Generated by svcgen from api.raml — do not edit. Routes of a model since removed.\n';
    writeFileSync(join(ws.out, 'src/routes/old.ts'), `${header}// edited\n`);
    manifest.files['src/routes/old.ts'] = { owner: 'generated', sha256: hash(`${header}// as generated\n`) };
    writeFileSync(join(ws.out, 'src/custom/old-stub.ts'), '// mine\n');
    manifest.files['src/custom/old-stub.ts'] = { owner: 'user' };
    ws.writeManifest(manifest);
    // --check and --dry-run warn of them alike, as every run does, and refuse nothing for them.
    for (const mode of ['--check', '--dry-run']) {
      const looked = await ws.generate(mode, '--format', 'json');
      const codes = (JSON.parse(looked.stdout) as { code: string }[]).map((d) => d.code);
      // --check also says that the out-dir is out of date (SVC3010): the API has files to write.
      expect(codes, mode).toEqual(mode === '--check' ? ['SVC3008', 'SVC3007', 'SVC3010'] : ['SVC3008', 'SVC3007']);
    }
    const run = await ws.generate('--format', 'json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'SVC3008',
        file: 'out/src/custom/old-stub.ts',
        message:
          'unused src/custom/old-stub.ts: api.raml no longer refers to it; kept (yours: delete it when you no longer need it)',
      }),
      expect.objectContaining({
        severity: 'warning',
        code: 'SVC3007',
        file: 'out/src/routes/old.ts',
        message: expect.stringMatching(/^kept src\/routes\/old\.ts: svcgen no longer generates it, but it was edited/),
      }),
    ]);
    expect(readFileSync(join(ws.out, 'src/routes/old.ts'), 'utf8')).toBe(`${header}// edited\n`);
    expect(ws.manifest().files['src/custom/old-stub.ts']).toEqual({ owner: 'user', unused: true });
  });

  // A new-user probe's CI read [] with exit 1: the array says it is out of date too.
  it('a file of the user where a stub goes, which svcgen did not create, is kept and taken as the stub, said once (SVC3013)', async () => {
    const ws = workspace();
    const manifest = ws.manifest();
    delete manifest.files['src/custom/extend.ts'];
    ws.writeManifest(manifest);
    const mine = '// Our routes, from before svcgen.\nexport const ROUTES = [];\n';
    writeFileSync(join(ws.out, 'src/custom/extend.ts'), mine);
    const run = await ws.generate();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'out/src/custom/extend.ts:1:1 - warning SVC3013: took src/custom/extend.ts as the stub api.raml needs there: svcgen did not create it, and keeps it as it is; it must export what the stub would (extend)',
    );
    expect(readFileSync(join(ws.out, 'src/custom/extend.ts'), 'utf8')).toBe(mine);
    expect(ws.manifest().files['src/custom/extend.ts']).toEqual({ owner: 'user' });
    const again = await ws.generate('--check');
    expect(again.code, again.stdout).toBe(0);
    expect(again.stderr).not.toContain('SVC3013');
  });

  it('--check --format json keeps stdout one JSON array, which says it is out of date: the file list goes to stderr', async () => {
    const ws = workspace();
    changeApi(ws);
    const run = await ws.generate('--check', '--format', 'json');
    expect(run.code).toBe(1);
    // Every key of a diagnostic, its place null where it is about none (a consumer's `d.file` failed).
    expect(JSON.parse(run.stdout)).toEqual([
      {
        severity: 'error',
        code: 'SVC3010',
        message: 'out is out of date',
        file: null,
        line: null,
        column: null,
        endLine: null,
        endColumn: null,
        hint: 'run svcgen generate to update it',
      },
    ]);
    expect(run.stderr).toMatch(/change\s+src\/models\/item\.ts/);
  });
});
