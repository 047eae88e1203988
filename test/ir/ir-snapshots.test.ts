/** `snapshots/<fixture>/ir.json`: the IR of each bundled example, as `svcgen inspect --ir` prints it. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { printIr } from '../../src/ir/print.js';
import { analyze } from '../../src/pipeline.js';
import { repoRoot } from '../support/paths.js';

describe.each(['ramses-example', 'ramses-starter'])('%s', (fixture) => {
  const dir = join(repoRoot, 'fixtures', fixture);
  const result = analyze(join(dir, 'api.raml'), { cwd: dir });

  it('has no errors', () => {
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
  });

  it('matches snapshots/<fixture>/ir.json', async () => {
    await expect(printIr(result.ir!)).toMatchFileSnapshot(join(repoRoot, 'snapshots', fixture, 'ir.json'));
  });

  it('prints without absolute paths', () => {
    expect(printIr(result.ir!)).not.toContain(repoRoot);
  });
});
