/**
 * What an artifact of a generated project is to the planner: given the service model and what
 * the plan shares (the field types, the schema's evolution), the files it adds to the output tree.
 * Each artifact has a folder of its own under src/plan/; src/plan/artifacts.ts lists them all.
 */
import type { ServiceIR } from '../ir/types.js';
import type { Owner } from '../output.js';
import type { MigrationHistory } from '../outdir/history.js';
import type { MigrationPlan } from './migrations/plan.js';
import type { FieldTypes } from './shared/field-types.js';
import type { TemplateSource } from './views.js';

export type FileSource =
  | TemplateSource
  | { readonly kind: 'static'; readonly content: string }
  | { readonly kind: 'text'; readonly content: string }
  /** A file kept as it is on disk, header and all (a migration written by an earlier run). */
  | { readonly kind: 'verbatim'; readonly content: string };

export interface PlannedFile {
  readonly path: string;
  readonly owner: Owner;
  /** Said in the file's header. */
  readonly purpose: string;
  readonly source: FileSource;
}

/** What every artifact plans from. */
export interface PlanContext {
  readonly ir: ServiceIR;
  readonly types: FieldTypes;
  /** What the out-dir holds of the schema's history. */
  readonly history: MigrationHistory;
  /** The schema's evolution, worked out once for the whole plan (migrations/plan.ts). */
  readonly migrations: MigrationPlan;
}

export interface Artifact {
  /** Its folder under src/plan/. */
  readonly name: string;
  files(ctx: PlanContext): readonly PlannedFile[] | Promise<readonly PlannedFile[]>;
}

/** A file of the plan; generated (svcgen's, rewritten every run) unless `owner` says otherwise. */
export function planned(path: string, purpose: string, source: FileSource, owner: Owner = 'generated'): PlannedFile {
  return { path, owner, purpose, source };
}
