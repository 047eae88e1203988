/**
 * The catalogue of diagnostic codes is complete and tested: every code has an invalid fixture
 * under fixtures/invalid/<CODE>-<what>/ whose `svcgen validate` output is a golden
 * snapshots/invalid/<case>/diagnostics.txt, and docs/diagnostics.md lists every code.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codes, type DiagnosticCode } from '../../src/diagnostics/codes.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';

const fixturesDir = join(repoRoot, 'fixtures/invalid');
const fixtures = readdirSync(fixturesDir).sort();

interface FixtureOptions {
  /** Files too large to commit, written before the run: `line` repeated up to `bytes`. */
  generate?: Record<string, { line: string; bytes: number }>;
  /** Arguments after `validate` (default: `api.raml`). */
  args?: string[];
}

/** A copy of the fixture in a fresh folder, with generated files added. */
function prepare(name: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'svcgen-invalid-')), name);
  cpSync(join(fixturesDir, name), dir, { recursive: true });
  const optionsFile = join(dir, 'fixture.json');
  const options: FixtureOptions = existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as FixtureOptions) : {};
  for (const [file, { line, bytes }] of Object.entries(options.generate ?? {})) {
    writeFileSync(join(dir, file), line.repeat(Math.ceil(bytes / line.length)));
  }
  return dir;
}

function argsOf(dir: string): string[] {
  const optionsFile = join(dir, 'fixture.json');
  const options: FixtureOptions = existsSync(optionsFile) ? (JSON.parse(readFileSync(optionsFile, 'utf8')) as FixtureOptions) : {};
  return options.args ?? ['api.raml'];
}

describe('diagnostic catalogue', () => {
  it.each(fixtures)('%s', async (name) => {
    const dir = prepare(name);
    const run = await runCli(['validate', ...argsOf(dir)], dir);
    const code = name.split('-')[0]!;
    expect(run.stderr).toContain(` ${code}: `);
    const severity = codes[code as DiagnosticCode].severity;
    expect(run.code).toBe(severity === 'error' ? 1 : run.stderr.includes(' - error ') ? 1 : 0);
    await expect(run.stderr).toMatchFileSnapshot(join(repoRoot, 'snapshots/invalid', name, 'diagnostics.txt'));
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
    const lines = ['# svcgen diagnostics', '', 'Every problem svcgen reports has a stable code. This page is generated from `src/diagnostics/codes.ts`.', ''];
    for (const [code, info] of Object.entries(codes)) {
      lines.push(`## ${code} — ${info.title}`, '', `Severity: ${info.severity}.`, '', info.explanation, '', `Example: \`fixtures/invalid/${fixtures.find((f) => f.startsWith(`${code}-`)) ?? '—'}\`.`, '');
    }
    await expect(lines.join('\n')).toMatchFileSnapshot(join(repoRoot, 'docs/diagnostics.md'));
  });
});
