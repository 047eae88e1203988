/** The static files of templates/project are copied without formatting: they must already be prettier-clean. */
import { describe, expect, it } from 'vitest';
import * as prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../../src/format/format.js';
import { staticTemplates } from '../../src/plan/static-files.js';

describe('templates/project/static', () => {
  it.each(
    staticTemplates()
      .filter((f) => /\.(ts|json)$/.test(f.path))
      .map((f) => [f.path, f.content]),
  )('%s is formatted', async (path, content) => {
    expect(await prettier.check(content, { ...PRETTIER_OPTIONS, filepath: path })).toBe(true);
  });
});
