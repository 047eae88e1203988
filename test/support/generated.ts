/**
 * The fixtures with golden generated trees, and generating them in memory. A fixture's golden tree
 * is its own files, in snapshots/<fixture>/out/; the runtime files every project gets as they are
 * have one copy, their source in runtime/ (test/generate/snapshots.test.ts checks each generated
 * one is its source with a header line).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { staticTemplates } from '../../src/plan/runtime/files.js';
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

const runtimePaths = new Set(staticTemplates().map((f) => f.path));

/** Whether a generated file is one of the runtime's, which every project gets as they are. */
export function isRuntimeFile(path: string): boolean {
  return runtimePaths.has(path);
}

/** Where the golden copy of a fixture's own generated file is. */
export function goldenPath(fixture: string, path: string): string {
  return join(repoRoot, 'snapshots', fixture, 'out', path);
}

/** Puts a fixture's whole golden project together in `dir`: its own golden files and the runtime's. */
export async function copyGoldenProject(fixture: string, dir: string): Promise<void> {
  for (const [path, file] of await generateFixture(fixture)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    if (isRuntimeFile(path)) writeFileSync(join(dir, path), file.content);
    else copyFileSync(goldenPath(fixture, path), join(dir, path));
  }
}
