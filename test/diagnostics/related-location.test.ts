/** A diagnostic's related location (the first of two repeats) in every output form. */
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, toJson } from '../../src/diagnostics/format.js';
import { toTckDocument } from '../../src/raml/tck/serialize.js';
import { raml } from '../support/files.js';
import { readFiles } from '../support/front-end.js';

function duplicated() {
  const result = readFiles({ 'api.raml': raml('title: T\n/items:\n  get:\n  get:\n') });
  const repeat = result.diagnostics.find((d) => d.code === 'SVC1005')!;
  return { result, repeat };
}

describe('related location', () => {
  it('is a note in text, `related` in JSON, and a second error in the TCK output', () => {
    const { result, repeat } = duplicated();
    expect(formatDiagnostic(repeat, { cwd: result.dir, color: false })).toContain(
      'note: first written here at api.raml:4:3',
    );
    expect(toJson(repeat, result.dir).related).toEqual({
      message: 'first written here',
      file: 'api.raml',
      line: 4,
      column: 3,
    });
    const errors = toTckDocument(result.api, result.diagnostics, result.dir).errors.map((e) => [
      e.code,
      e.range.start.line,
    ]);
    expect(errors).toEqual([
      ['SVC1005', 4],
      ['SVC1005', 3],
    ]);
  });
});
