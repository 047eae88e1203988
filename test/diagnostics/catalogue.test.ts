/**
 * The catalogue of diagnostic codes is complete and tested: every code has an invalid fixture
 * under fixtures/invalid/<CODE>-<what>/ whose `svcgen validate` output (or, for the write stage,
 * `svcgen generate api.raml -o out` into the fixture's prepared `out/`) is a golden
 * snapshots/invalid/<case>/diagnostics.txt, and docs/diagnostics.md lists every code. No run
 * changes anything in the fixture outside `out/` (the out-dir is untrusted input).
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codes, type DiagnosticCode } from '../../src/diagnostics/codes.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const fixturesDir = join(repoRoot, 'fixtures/invalid');
const fixtures = readdirSync(fixturesDir).sort();

interface FixtureOptions {
  /** `validate` (the default), or `generate` for the write stage: `generate <args> -o out`. */
  command?: 'validate' | 'generate';
  /** Files too large to commit, written before the run: `line` repeated up to `bytes`. */
  generate?: Record<string, { line: string; bytes: number }>;
  /** Symbolic links made before the run (git does not keep them portably): link → target. */
  symlinks?: Record<string, string>;
  /** Arguments after the command (default: `api.raml`). */
  args?: string[];
}

function optionsOf(dir: string): FixtureOptions {
  const optionsFile = join(dir, 'fixture.json');
  return existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as FixtureOptions) : {};
}

/** A copy of the fixture in a fresh folder, with generated files and links added. */
function prepare(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svcgen-invalid-')), name);
  cpSync(join(fixturesDir, name), dir, { recursive: true });
  const options = optionsOf(dir);
  for (const [file, { line, bytes }] of Object.entries(options.generate ?? {})) {
    writeFileSync(join(dir, file), line.repeat(Math.ceil(bytes / line.length)));
  }
  for (const [link, target] of Object.entries(options.symlinks ?? {})) {
    mkdirSync(dirname(join(dir, link)), { recursive: true });
    symlinkSync(target, join(dir, link));
  }
  return dir;
}

function argvOf(dir: string): string[] {
  const options = optionsOf(dir);
  const args = options.args ?? ['api.raml'];
  return options.command === 'generate' ? ['generate', ...args, '-o', 'out'] : ['validate', ...args];
}

/** Every file and link below `dir` (but for `out/` when `skip`), path → content or link target. */
function listing(dir: string, skip?: 'out'): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (relative(dir, path) === skip) continue;
      const info = lstatSync(path);
      if (info.isSymbolicLink()) found.set(relative(dir, path), `-> ${readlinkSync(path)}`);
      else if (info.isDirectory()) visit(path);
      else found.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  visit(dir);
  return found;
}

describe('diagnostic catalogue', () => {
  it.each(fixtures)('%s', async (name) => {
    const dir = prepare(name);
    const before = { all: listing(dir), outside: listing(dir, 'out') };
    const run = await runCli(argvOf(dir), dir);
    // Nothing outside the out-dir ever changes; a failed run changes nothing at all.
    expect(listing(dir, 'out')).toEqual(before.outside);
    if (run.code !== 0) expect(listing(dir)).toEqual(before.all);
    const code = name.split('-')[0]!;
    expect(run.stderr).toContain(` ${code}: `);
    const severity = codes[code as DiagnosticCode].severity;
    expect(run.code).toBe(severity === 'error' ? 1 : run.stderr.includes(' - error ') ? 1 : 0);
    // generate's closing line counts the files of the generated project, which grows with svcgen, and
    // names the new migration with its summary below it; the diagnostics are what the catalogue pins.
    const diagnostics = run.stderr
      .replace(/^svcgen: new migration .*\n(?: {2}.*\n)*/gm, '')
      .replace(/^svcgen: .*\n/gm, '');
    await expect(diagnostics).toMatchFileSnapshot(join(repoRoot, 'snapshots/invalid', name, 'diagnostics.txt'));
  });

  it('has a fixture for every code', () => {
    const covered = new Set(fixtures.map((name) => name.split('-')[0]));
    const missing = Object.keys(codes).filter((code) => !covered.has(code));
    expect(missing).toEqual([]);
  });

  it('has no fixture for an unknown code', () => {
    const unknown = fixtures.map((name) => name.split('-')[0]!).filter((code) => !(code in codes));
    expect(unknown).toEqual([]);
  });

  it('is documented in docs/diagnostics.md', async () => {
    const lines = [
      '# svcgen diagnostics',
      '',
      'Every problem svcgen reports has a stable code. This page is generated from `src/diagnostics/codes.ts`.',
      '',
      'A warning you have judged is silenced by `# svcgen: ignore <CODE>` (codes separated by spaces or commas) on the RAML line it points at: a YAML comment, or one at the end of an x-ACL rule. A JSON schema, which has no comments, says `"_svcgen_ignore": ["<CODE>"]` at its root: the warnings of those codes located in it are not shown. Errors are never silenced.',
      '',
    ];
    for (const [code, info] of Object.entries(codes)) {
      lines.push(
        `## ${code} — ${info.title}`,
        '',
        `Severity: ${info.severity}.`,
        '',
        info.explanation,
        '',
        `Example: \`fixtures/invalid/${fixtures.find((f) => f.startsWith(`${code}-`)) ?? '—'}\`.`,
        '',
      );
    }
    await expect(lines.join('\n')).toMatchFileSnapshot(join(repoRoot, 'docs/diagnostics.md'));
  });
});
