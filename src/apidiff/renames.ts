/**
 * The fields a version of the API renames with `_db_settings.renamed_from`, by the component
 * schemas that hold them (the model's answer, create, update and replace bodies: plan/openapi/context.ts),
 * for the classifier to say "renamed" where it would see one field removed and one added.
 */
import type { ServiceIR } from '../ir/types.js';
import type { ClassifyOptions } from './classify.js';

/** What the classifier is told of a version's renames: its fields' and its models' (`_renamed_from`). */
export function classifyOptionsOf(ir: ServiceIR): ClassifyOptions {
  return {
    renames: renamesOf(ir),
    models: new Map(ir.models.flatMap((m) => (m.renamedFrom ? [[m.renamedFrom, m.name] as const] : []))),
  };
}

export function renamesOf(ir: ServiceIR): Map<string, Map<string, string>> {
  const renames = new Map<string, Map<string, string>>();
  for (const model of ir.models) {
    const renamed = new Map(
      model.fields.flatMap((f) => (f.renamedFrom !== null ? [[f.renamedFrom, f.name] as const] : [])),
    );
    if (renamed.size === 0) continue;
    for (const schema of [model.name, `${model.name}Create`, `${model.name}Update`, `${model.name}Replace`])
      renames.set(schema, renamed);
  }
  return renames;
}
