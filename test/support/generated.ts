/**
 * The fixtures with golden generated trees, and generating them in memory. A fixture's golden tree
 * is in two places: the runtime library and the other files every project gets as they are, once,
 * in snapshots/runtime/; the fixture's own files in snapshots/<fixture>/out/.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { staticTemplates } from '../../src/plan/static-files.js';
import { generateProject } from '../../src/generate.js';
import type { ServiceIR } from '../../src/ir/types.js';
import type { OutputTree } from '../../src/output.js';
import { analyze } from '../../src/pipeline.js';
import { repoRoot } from './paths.js';
import { fixtureRaml } from './project.js';

export const SNAPSHOT_FIXTURES = ['ramses-example', 'ramses-starter', 'blog', 'events'];

/** Every bundled fixture that generates a project (the golden ones and those of other suites). */
export const GENERATING_FIXTURES = [...SNAPSHOT_FIXTURES, 'embedding', 'filters', 'search'];

/** The service model of an API that must have no errors. */
export function serviceModel(raml: string): ServiceIR {
  const analysis = analyze(raml, { cwd: repoRoot });
  if (!analysis.ir) throw new Error(`${raml} has errors`);
  return analysis.ir;
}

/** The project generated, in memory, from an API (a path) that must have no errors. */
export async function generateApiProject(raml: string): Promise<OutputTree> {
  return (await generateProject(serviceModel(raml), { ramlFile: 'api.raml' })).tree;
}

export function generateFixture(fixture: string): Promise<OutputTree> {
  return generateApiProject(fixtureRaml(fixture));
}

/** The folder of the golden files that are the same in every generated project. */
export const RUNTIME_SNAPSHOT = join(repoRoot, 'snapshots', 'runtime');

const runtimePaths = new Set(staticTemplates().map((f) => f.path));

/** Whether a generated file is one of the files every project gets as they are. */
export function isRuntimeFile(path: string): boolean {
  return runtimePaths.has(path);
}

/** Where the golden copy of a fixture's generated file is. */
export function goldenPath(fixture: string, path: string): string {
  return isRuntimeFile(path) ? join(RUNTIME_SNAPSHOT, path) : join(repoRoot, 'snapshots', fixture, 'out', path);
}

/** Puts a fixture's whole golden project together in `dir`: its own files and the runtime files it has. */
export async function copyGoldenProject(fixture: string, dir: string): Promise<void> {
  for (const path of (await generateFixture(fixture)).keys()) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    copyFileSync(goldenPath(fixture, path), join(dir, path));
  }
}
