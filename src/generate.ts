/**
 * The generating half of the pipeline: plan the output tree → render → format. The result is a
 * value (path → file); `write/` decides what reaches the disk.
 *
 * Regeneration is made cheap without giving up that: an earlier run's output (`PreviousOutput`,
 * read by `write/previous.ts`) is reused where it cannot differ — the whole tree when the input
 * (service model, RAML file name, svcgen's build) is the same, else each file whose rendering is
 * the same, so only changed files pay for formatting.
 */
import type { ServiceIR } from './ir/types.js';
import { formatSource, loadFormatter } from './format/format.js';
import type { MigrationHistory } from './outdir/history.js';
import type { MigrationPlan } from './plan/migrations/plan.js';
import { planProject, type PlannedFile } from './plan/plan.js';
import { contentHash, type OutputFile, type OutputTree, type PreviousOutput } from './output.js';
import { header } from './render/header.js';
import { renderSource } from './render/templates.js';
import { buildFingerprint } from './version.js';

export interface GenerateOptions {
  /** The RAML file's name as the headers cite it. */
  readonly ramlFile: string;
  /** What an earlier run wrote, to reuse where it cannot have changed. */
  readonly previous?: PreviousOutput;
  /** Called as files are produced (for a progress line). */
  readonly onProgress?: (done: number, total: number) => void;
  /** What the out-dir holds of the schema's history (write/history.ts). */
  readonly history?: MigrationHistory;
  /** `--allow-data-loss`: a migration may drop data (it says so in a comment). */
  readonly allowDataLoss?: boolean;
}

export interface GeneratedProject {
  readonly tree: OutputTree;
  /** What the tree was generated from (`inputKey`), for the manifest. */
  readonly inputKey: string;
  /** The schema's evolution; null when an earlier run's tree was reused (the same input: nothing new). */
  readonly migrations: MigrationPlan | null;
}

export async function generateProject(ir: ServiceIR, options: GenerateOptions): Promise<GeneratedProject> {
  const key = inputKey(
    ir,
    options.ramlFile,
    (options.history?.migrations ?? []).map((m) => m.name),
  );
  const reused = options.previous?.tree(key);
  if (reused) return { tree: reused, inputKey: key, migrations: null };
  // Loading the formatter overlaps planning and rendering.
  void loadFormatter();
  const plan = await planProject(ir, {
    ...(options.history ? { history: options.history } : {}),
    allowDataLoss: options.allowDataLoss ?? false,
  });
  let done = 0;
  const files = await Promise.all(
    plan.files.map(async (file) => {
      const produced = await produce(file, options);
      options.onProgress?.(++done, plan.files.length);
      return produced;
    }),
  );
  const tree = new Map(files.map((f) => [f.path, f]));
  return { tree, inputKey: inputKey(ir, options.ramlFile, plan.migrations.names), migrations: plan.migrations };
}

/**
 * Everything the output depends on: equal keys, equal trees. The migrations are those of the
 * output: a run that adds one records the key the next run (with that migration on disk) computes.
 */
export function inputKey(ir: ServiceIR, ramlFile: string, migrations: readonly string[]): string {
  return contentHash(`${buildFingerprint()}\0${ramlFile}\0${JSON.stringify(ir)}\0${migrations.join(',')}`);
}

async function produce(file: PlannedFile, options: GenerateOptions): Promise<OutputFile> {
  const head = header(file.path, file.owner, options.ramlFile, file.purpose);
  const { path, owner } = file;
  if (file.source.kind === 'verbatim') return { path, owner, content: file.source.content };
  // Static files are kept formatted in svcgen's repository (a test checks it).
  if (file.source.kind !== 'template') return { path, owner, content: head + file.source.content };
  const rendered = renderSource(file.source);
  const source = contentHash(`${buildFingerprint()}\0${head}\0${rendered}`);
  const content = options.previous?.file(path, owner, source) ?? head + (await formatSource(path, rendered));
  // A migration is rendered once; later runs take it from disk as it is, with no rendering to
  // compare: recorded with one, its manifest entry changed at the next run.
  return owner === 'migration' ? { path, owner, content } : { path, owner, content, source };
}
