/**
 * Generated files are formatted by oxfmt, on the promise that it prints what prettier prints with
 * the project's `.prettierrc.json` (src/format/format.ts). This holds it to that promise for every
 * formatted file of every fixture's project and of a synthetic API that uses every field type,
 * relationships, ACLs, handlers and processors: if a new oxfmt (or a new template) prints a file
 * differently, this fails, before any golden tree is updated to match.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generateApi } from '../../bench/generate-api.mjs';
import { formatSource, loadFormatter, PRETTIER_OPTIONS, prettierOptions } from '../../src/format/format.js';
import type { OutputTree } from '../../src/output.js';
import { generateApiProject, generateFixture, GENERATING_FIXTURES } from '../support/generated.js';
import { repoRoot } from '../support/paths.js';

const work = mkdtempSync(join(tmpdir(), 'svcgen-formatter-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The one-line owner header is added after formatting (a file is formatted without it). */
function withoutHeader(content: string): string {
  return /^(\/\/|<!--)/.test(content) ? content.slice(content.indexOf('\n') + 1) : content;
}

async function expectPrettierLayout(tree: OutputTree): Promise<void> {
  let checked = 0;
  for (const file of tree.values()) {
    const options = prettierOptions(file.path);
    if (!options || file.source === undefined) continue;
    const body = withoutHeader(file.content);
    expect(body, file.path).toBe(await prettier.format(body, options));
    checked++;
  }
  expect(checked).toBeGreaterThan(10);
}

describe('the formatter of generated files', () => {
  it('is oxfmt here (prettier only where its binding is missing)', async () => {
    expect(await loadFormatter()).toBeTypeOf('function');
  });

  it.each(GENERATING_FIXTURES)('prints %s as prettier does', async (fixture) => {
    await expectPrettierLayout(await generateFixture(fixture));
  });

  it('prints a synthetic API of 12 resources as prettier does', async () => {
    await expectPrettierLayout(await generateApiProject(generateApi(join(work, 'synthetic'), 12)));
  });

  it('leaves a file it cannot parse to prettier, whose error is the one reported', async () => {
    await expect(formatSource('src/broken.ts', 'export const = ;\n')).rejects.toThrow(/Unexpected token/);
  });

  it('is prettier under SVCGEN_FORMATTER=prettier, with the same output', async () => {
    const tree = await generateFixture('ramses-starter');
    vi.stubEnv('SVCGEN_FORMATTER', 'prettier');
    vi.resetModules();
    try {
      const fresh = await import('../../src/format/format.js');
      expect(await fresh.loadFormatter()).toBeUndefined();
      for (const file of tree.values()) {
        if (!prettierOptions(file.path) || file.source === undefined) continue;
        const body = withoutHeader(file.content);
        expect(await fresh.formatSource(file.path, body), file.path).toBe(body);
      }
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it('keeps files it does not format as rendered', async () => {
    expect(await formatSource('service.ini', 'a  =  1\n')).toBe('a  =  1\n');
  });
});

describe('one layout', () => {
  it('formats svcgen, its runtime and generated projects alike: the runtime is copied unformatted', () => {
    const read = (path: string) => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as object;
    expect(read('.prettierrc.json')).toEqual(PRETTIER_OPTIONS);
    expect(read('runtime/project/.prettierrc.json')).toEqual(PRETTIER_OPTIONS);
  });
});
