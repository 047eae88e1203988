/**
 * The RAML 0.8 TCK: every offline case, in process, with the rule of tck-check.mjs; and once
 * through the checker (scripts/tck-check.mjs) and the real CLI. The corpus is not part of this
 * repository (test/support/paths.ts finds it); without it these tests are skipped, and say how
 * to get it. CI always has it (.ci/run).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readRaml } from '../../src/raml/front-end.js';
import { toTckDocument } from '../../src/raml/tck/serialize.js';
import { repoRoot, svcgenBin, tckDir, tckMissing } from '../support/paths.js';
import { tckVerdict, type TckLike } from '../support/tck.js';

/** As in tck-check.mjs: one case needs the internet, one is RAML 1.0. */
const SKIPPED = new Set(['https/test001/api.raml', 'Parameters/test002/api.raml']);

function cases(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) cases(path, out);
    else if (name.endsWith('.raml') && existsSync(path.replace(/\.raml$/, '-tck.json'))) out.push(path);
  }
  return out;
}

// RAML_TCK_DIR naming a folder that is not there is a mistake to report, not a reason to skip.
const corpus = tckDir !== undefined && existsSync(tckDir) ? tckDir : undefined;
const all = corpus ? cases(corpus).filter((file) => !SKIPPED.has(relative(corpus, file))) : [];
if (!tckDir) console.warn(tckMissing);

// oxlint-disable-next-line vitest/valid-title -- a string either way: skipped, the title says how to get the corpus
describe.skipIf(!tckDir)(tckDir ? 'RAML 0.8 TCK' : `RAML 0.8 TCK (skipped: ${tckMissing})`, () => {
  it('has the 118 offline cases', () => {
    expect(corpus, `RAML_TCK_DIR=${tckDir} does not exist`).toBeDefined();
    expect(all).toHaveLength(118);
  });

  it.each(all.map((file) => [relative(corpus!, file), file]))('%s', (_name, file) => {
    const expected = JSON.parse(readFileSync(file.replace(/\.raml$/, '-tck.json'), 'utf8')) as TckLike;
    const result = readRaml(file, { cwd: dirname(file) });
    const actual = JSON.parse(JSON.stringify(toTckDocument(result.api, result.diagnostics, dirname(file)))) as TckLike;
    const verdict = tckVerdict(expected, actual);
    expect(verdict.why).toBe(verdict.pass ? verdict.why : '');
    expect(verdict.pass).toBe(true);
  });

  it('passes the checker through the CLI', async () => {
    const checker = join(repoRoot, 'scripts/tck-check.mjs');
    const { stdout } = await execa('node', [checker, tckDir!, '--', 'node', svcgenBin, 'inspect', '--tck'], {
      cwd: repoRoot,
    });
    // The whole report on failure: which case, and why (a case that timed out says "no JSON output").
    expect(stdout.trim().split('\n').at(-1), stdout).toBe('tck: 118 passed, 0 failed');
    // 118 CLI processes, one after the other: ~30 s on a quiet machine, 180 s was too little on a
    // loaded one (a CI run failed so). A bound against a hang, not a speed check.
  }, 600_000);
});
