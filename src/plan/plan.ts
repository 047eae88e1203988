/**
 * The whole output tree as a value: every file of the generated project with its owner, its
 * purpose (for the header) and how to produce it, from every artifact (artifacts.ts). Nothing
 * here touches the disk; `render` turns the plan into contents.
 */
import type { ServiceIR } from '../ir/types.js';
import type { PlanContext, PlannedFile } from './artifact.js';
import { ARTIFACTS } from './artifacts.js';
import { NO_HISTORY, type MigrationHistory } from '../outdir/history.js';
import { planMigrations, type MigrationPlan } from './migrations/plan.js';
import { FieldTypes } from './shared/field-types.js';

export type { FileSource, PlannedFile } from './artifact.js';

export interface ProjectPlan {
  readonly files: readonly PlannedFile[];
  /** The schema's evolution: the new migration, if any, and what it does to stored data. */
  readonly migrations: MigrationPlan;
}

export interface PlanOptions {
  /** What the out-dir holds of the schema's history. */
  readonly history?: MigrationHistory;
  readonly allowDataLoss?: boolean;
}

export async function planProject(ir: ServiceIR, options: PlanOptions = {}): Promise<ProjectPlan> {
  const types = new FieldTypes(ir);
  const history = options.history ?? NO_HISTORY;
  const migrations = planMigrations(ir, types, history, { allowDataLoss: options.allowDataLoss ?? false });
  const ctx: PlanContext = { ir, types, history, migrations };
  const planned = await Promise.all(ARTIFACTS.map(async (artifact) => artifact.files(ctx)));
  const files = planned.flat().sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, migrations };
}
