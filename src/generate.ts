/**
 * The generating half of the pipeline: plan the output tree → render → format. The result is a
 * value (path → file); `write/` decides what reaches the disk.
 */
import { createHash } from 'node:crypto';
import type { ServiceIR } from './ir/types.js';
import { formatSource } from './format/format.js';
import { planProject, type PlannedFile } from './plan/project.js';
import { header, type Owner } from './render/header.js';
import { render } from './render/templates.js';

export interface OutputFile {
  readonly path: string;
  readonly owner: Owner;
  readonly content: string;
}

/** The generated project, by path, in path order. */
export type OutputTree = ReadonlyMap<string, OutputFile>;

export interface GenerateOptions {
  /** The RAML file's name as the headers cite it. */
  readonly ramlFile: string;
}

export async function generateProject(ir: ServiceIR, options: GenerateOptions): Promise<OutputTree> {
  const plan = await planProject(ir);
  const files = await Promise.all(plan.map((file) => produce(file, options)));
  return new Map(files.map((f) => [f.path, f]));
}

async function produce(file: PlannedFile, options: GenerateOptions): Promise<OutputFile> {
  const body =
    file.source.kind === 'template'
      ? await formatSource(file.path, render(file.source.template, file.source.view))
      : // Static files are kept formatted in svcgen's repository (a test checks it).
        file.source.content;
  return { path: file.path, owner: file.owner, content: header(file.path, file.owner, options.ramlFile, file.purpose) + body };
}

export function contentHash(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}
