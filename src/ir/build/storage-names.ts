/**
 * Names the database cannot tell apart. A model's table is its name lower-cased (`/pet_toys` is
 * PetToy, `/pettoys` is Pettoy: both `pettoy`), and SQLite compares column names without case
 * (`Weight` beside `weight`). Each such pair generated without a word and made a service whose
 * first migration failed at start ("table already exists", "duplicate column name").
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { ModelDraft } from './models.js';

export function checkStorageNames(diagnostics: DiagnosticBag, models: ReadonlyMap<string, ModelDraft>): void {
  const byTable = new Map<string, ModelDraft>();
  for (const model of models.values()) {
    const table = model.table.toLowerCase();
    const first = byTable.get(table);
    if (!first) {
      byTable.set(table, model);
      continue;
    }
    const [declared, other] = model.internal ? [first, model] : [model, first];
    diagnostics.report(
      'SVC2107',
      `models ${other.name} and ${declared.name} would both be stored in the table "${table}"`,
      {
        span: declared.definedAt,
        hint: `a model's table is its name lower-cased, and its name comes from its resource: rename one of the two resources`,
      },
    );
  }
  for (const model of models.values()) checkColumnNames(diagnostics, model);
}

function checkColumnNames(diagnostics: DiagnosticBag, model: ModelDraft): void {
  const byColumn = new Map<string, string>();
  for (const { field, nameSpan } of model.fields) {
    // A relationship kept in the other model's rows, or a list of keys, is no column of this table.
    if (field.type === 'relationship') continue;
    const column = field.name.toLowerCase();
    const first = byColumn.get(column);
    if (first === undefined) {
      byColumn.set(column, field.name);
      continue;
    }
    // A key written twice in the schema's JSON is that (SVC1005), not two fields.
    if (first === field.name) continue;
    diagnostics.report(
      'SVC2107',
      `fields "${first}" and "${field.name}" of ${model.name} differ only in case, and SQLite takes them for one column`,
      { span: field.synthesized ? model.definedAt : nameSpan, hint: 'give one of them another name' },
    );
  }
}
