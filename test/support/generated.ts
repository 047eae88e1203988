/** The fixtures with golden generated trees, and generating them in memory. */
import { join } from 'node:path';
import { generateProject } from '../../src/generate.js';
import type { OutputTree } from '../../src/output.js';
import { analyze } from '../../src/pipeline.js';
import { repoRoot } from './paths.js';

export const SNAPSHOT_FIXTURES = ['ramses-example', 'ramses-starter', 'blog', 'events'];

export async function generateFixture(fixture: string): Promise<OutputTree> {
  const analysis = analyze(join(repoRoot, 'fixtures', fixture, 'api.raml'), { cwd: repoRoot });
  if (!analysis.ir) throw new Error(`${fixture} has errors`);
  return (await generateProject(analysis.ir, { ramlFile: 'api.raml' })).tree;
}
