/**
 * What changed between two storage models, and what that does to stored data. Tables and
 * columns are matched by name, or by an explicit `renamed_from` (renames are never guessed: a
 * drop and an add of the same shape is a drop and an add). Each change that loses data, or that
 * existing rows cannot follow without a value nobody gave, is a finding for the caller to refuse.
 */
import type { StorageModel, StoredColumn, StoredTable } from './model.js';

export interface Renames {
  /** New table → its name in the previous model. */
  readonly tables: ReadonlyMap<string, string>;
  /** `<new table>.<new column>` → the column's name in the previous model. */
  readonly columns: ReadonlyMap<string, string>;
}

export type TableChange =
  | { readonly kind: 'create'; readonly table: StoredTable }
  | { readonly kind: 'drop'; readonly table: StoredTable }
  | { readonly kind: 'alter'; readonly before: StoredTable; readonly after: StoredTable; readonly columns: readonly ColumnChange[] };

export type ColumnChange =
  | { readonly kind: 'add'; readonly column: StoredColumn }
  | { readonly kind: 'drop'; readonly column: StoredColumn }
  | { readonly kind: 'change'; readonly before: StoredColumn; readonly after: StoredColumn; readonly aspects: ReadonlySet<Aspect> };

/** What about a kept column changed. `type`: its SQL type (or SQLite's boolean check). */
export type Aspect = 'name' | 'type' | 'notNull' | 'nullable' | 'unique' | 'notUnique' | 'reference' | 'documentPath';

export interface Finding {
  /** `dataLoss`: allowed with --allow-data-loss; the others are always refused. */
  readonly kind: 'dataLoss' | 'needsFill' | 'unsupported' | 'rename';
  /** The model (and field) it is about, in the new model where it exists there. */
  readonly model: string;
  readonly field?: string;
  readonly message: string;
  readonly hint?: string;
}

export interface StorageDiff {
  readonly changes: readonly TableChange[];
  readonly findings: readonly Finding[];
}

export function diffStorage(previous: StorageModel, next: StorageModel, renames: Renames): StorageDiff {
  const findings: Finding[] = [];
  const before = new Map(previous.tables.map((t) => [t.name, t]));
  const after = new Map(next.tables.map((t) => [t.name, t]));
  const oldNameOf = tableRenames(before, after, renames, findings);
  const matched = new Set([...after.keys()].map((name) => oldNameOf.get(name) ?? name).filter((name) => before.has(name)));
  const changes: TableChange[] = [];
  for (const table of next.tables) {
    const old = before.get(oldNameOf.get(table.name) ?? table.name);
    if (!old) changes.push({ kind: 'create', table });
    else {
      const columns = diffColumns(old, table, renames, oldNameOf, findings);
      if (columns.length || old.name !== table.name) changes.push({ kind: 'alter', before: old, after: table, columns });
    }
  }
  for (const table of previous.tables) {
    if (matched.has(table.name)) continue;
    changes.push({ kind: 'drop', table });
    findings.push({
      kind: 'dataLoss',
      model: table.model,
      message: `model ${table.model} is removed: table ${table.name} and every ${table.model} in it are dropped`,
      hint: renameHint(`"_renamed_from": "${table.model}"`, 'the schema of the model that replaces it'),
    });
  }
  return { changes, findings };
}

/** New table → old table, for the `_renamed_from` hints that name a table of the previous model. */
function tableRenames(before: ReadonlyMap<string, StoredTable>, after: ReadonlyMap<string, StoredTable>, renames: Renames, findings: Finding[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, from] of renames.tables) {
    if (before.has(name)) continue; // applied already: the previous model has the new name
    const table = after.get(name)!;
    if (!before.has(from)) {
      findings.push({ kind: 'rename', model: table.model, message: `"_renamed_from" of ${table.model} names no model of the previous version (${from})`, hint: `previous models: ${[...before.values()].map((t) => t.model).join(', ') || 'none'}` });
    } else if (after.has(from)) {
      findings.push({ kind: 'rename', model: table.model, message: `${table.model} is "_renamed_from" ${from}, which the API still has` });
    } else out.set(name, from);
  }
  return out;
}

function diffColumns(
  before: StoredTable,
  after: StoredTable,
  renames: Renames,
  tableRenamed: ReadonlyMap<string, string>,
  findings: Finding[],
): ColumnChange[] {
  // A reference to a renamed table is the same reference (the databases follow the rename).
  const newTableOf = new Map([...tableRenamed].map(([to, from]) => [from, to]));
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const oldNameOf = new Map<string, string>();
  for (const column of after.columns) {
    const from = renames.columns.get(`${after.name}.${column.name}`);
    if (from === undefined || old.has(column.name)) continue; // no hint, or applied already
    if (!old.has(from)) {
      findings.push({ kind: 'rename', model: after.model, field: column.name, message: `"renamed_from" of ${after.model}.${column.name} names no field of the previous version (${from})`, hint: `previous fields: ${before.columns.map((c) => c.name).join(', ')}` });
    } else if (after.columns.some((c) => c.name === from)) {
      findings.push({ kind: 'rename', model: after.model, field: column.name, message: `${after.model}.${column.name} is "renamed_from" ${from}, which the model still has` });
    } else oldNameOf.set(column.name, from);
  }
  const changes: ColumnChange[] = [];
  const kept = new Set<string>();
  for (const column of after.columns) {
    const previous = old.get(oldNameOf.get(column.name) ?? column.name);
    if (!previous) {
      changes.push({ kind: 'add', column });
      if (column.notNull && column.fill.kind === 'none' && !column.generated) {
        findings.push({ kind: 'needsFill', model: after.model, field: column.name, message: `required field ${after.model}.${column.name} is added, and the rows already stored have no value for it`, hint: 'give it a literal "default" (existing rows get it), or add it as optional first' });
      }
      continue;
    }
    kept.add(previous.name);
    const aspects = columnAspects(previous, column, (table) => newTableOf.get(table) ?? table);
    if (aspects.size) changes.push({ kind: 'change', before: previous, after: column, aspects });
    checkChange(after.model, previous, column, aspects, findings);
  }
  for (const column of before.columns) {
    if (kept.has(column.name)) continue;
    changes.push({ kind: 'drop', column });
    findings.push({
      kind: 'dataLoss',
      model: after.model,
      field: column.name,
      message: `field ${after.model}.${column.name} is removed: its values are dropped`,
      hint: renameHint(`"renamed_from": "${column.name}"`, "the new field's _db_settings"),
    });
  }
  return changes;
}

function renameHint(setting: string, where: string): string {
  return `if it was renamed, say so with ${setting} in ${where}; to drop it, run generate with --allow-data-loss`;
}

function columnAspects(a: StoredColumn, b: StoredColumn, currentTable: (name: string) => string): Set<Aspect> {
  const aspects = new Set<Aspect>();
  if (a.name !== b.name) aspects.add('name');
  if (a.sqlite !== b.sqlite || a.postgres !== b.postgres || (a.type === 'boolean') !== (b.type === 'boolean')) aspects.add('type');
  if (!a.notNull && b.notNull) aspects.add('notNull');
  if (a.notNull && !b.notNull) aspects.add('nullable');
  if (!a.unique && b.unique) aspects.add('unique');
  if (a.unique && !b.unique) aspects.add('notUnique');
  const reference = a.references && { ...a.references, table: currentTable(a.references.table) };
  if (JSON.stringify(reference) !== JSON.stringify(b.references)) aspects.add('reference');
  if (a.documentPath !== b.documentPath) aspects.add('documentPath');
  return aspects;
}

function checkChange(model: string, a: StoredColumn, b: StoredColumn, aspects: ReadonlySet<Aspect>, findings: Finding[]): void {
  const field = b.name;
  if (a.primaryKey !== b.primaryKey || a.generated !== b.generated) {
    findings.push({ kind: 'unsupported', model, field, message: `${model}.${field} changes whether it is the primary key, which a migration cannot do`, hint: 'keep the primary key; add a new model for data keyed differently' });
    return;
  }
  if (aspects.has('type') && !widens(a, b)) {
    findings.push({
      kind: 'dataLoss',
      model,
      field,
      message: `field ${model}.${field} narrows from ${a.postgres} to ${b.postgres}: stored values are converted (on PostgreSQL a value that does not fit makes the migration fail; SQLite and MongoDB keep it as it is)`,
      hint: 'keep the type, or run generate with --allow-data-loss to convert',
    });
  }
  if (aspects.has('notNull') && b.fill.kind === 'none') {
    findings.push({ kind: 'needsFill', model, field, message: `field ${model}.${field} becomes required, and stored rows may have no value for it`, hint: 'give it a literal "default" (rows without a value get it)' });
  }
}

/** A type change that keeps every value: a larger integer, a longer or unbounded text, more digits. */
export function widens(a: StoredColumn, b: StoredColumn): boolean {
  if ((a.type === 'boolean') !== (b.type === 'boolean')) return false;
  if (a.postgres === b.postgres) return a.sqlite === b.sqlite;
  const ints = ['smallint', 'integer', 'bigint'];
  if (ints.includes(a.postgres) && ints.includes(b.postgres)) return ints.indexOf(b.postgres) >= ints.indexOf(a.postgres);
  const text = (t: string) => (t === 'text' ? Infinity : /^varchar\((\d+)\)$/.exec(t) ? Number(/^varchar\((\d+)\)$/.exec(t)![1]) : undefined);
  const [from, to] = [text(a.postgres), text(b.postgres)];
  if (from !== undefined && to !== undefined) return to >= from;
  const numeric = (t: string) => /^numeric(?:\((\d+), (\d+)\))?$/.exec(t);
  const [x, y] = [numeric(a.postgres), numeric(b.postgres)];
  if (x && y) {
    if (!y[1]) return true;
    if (!x[1]) return false;
    const [p1, s1, p2, s2] = [x[1], x[2], y[1], y[2]].map(Number) as [number, number, number, number];
    return s2 >= s1 && p2 - s2 >= p1 - s1;
  }
  return false;
}
