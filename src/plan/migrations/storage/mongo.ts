/**
 * The MongoDB steps of a migration (the runtime's `MongoStep`, lib/mongo/steps.ts): documents have no schema, so
 * only what the stored data must follow is a step: renamed collections and document fields,
 * values for documents that lack a field that became required or was added with a default (a
 * literal, or the time of the migration), fields and collections dropped, and the unique, link
 * and asked-for (`index`) indexes. The service also reconciles its indexes with the model at every start; the steps make
 * the history explicit.
 */
import type { MongoStep } from '../../../../runtime/src/lib/mongo/steps.js';
import type { Aspect, ColumnChange, TableChange } from './changes.js';
import { hasColumnIndex } from './ddl.js';
import type { StoredColumn, StoredTable } from '../../../outdir/storage-model.js';
import { sameSearch, wordSteps } from './search.js';
import { integerToText, temporalChange, type TemporalChange } from './conversions.js';
import { renamesInOrder } from './rename-order.js';

export type { MongoStep };

export function mongoSteps(changes: readonly TableChange[]): MongoStep[] {
  // What must hold of the documents is checked before anything changes, by the names they have now.
  const steps: MongoStep[] = changes.flatMap(requiredChecks);
  // Dropped collections go first: a renamed one may take a dropped one's name (renaming onto a
  // collection with documents fails).
  for (const c of changes) if (c.kind === 'drop') steps.push({ op: 'dropCollection', collection: c.table.name });
  // Collections are renamed next: the other steps name them by their new names.
  const renamed = changes.flatMap((c) =>
    c.kind === 'alter' && c.before.name !== c.after.name ? [[c.before.name, c.after.name] as const] : [],
  );
  for (const [from, to] of renamesInOrder(renamed)) steps.push({ op: 'renameCollection', from, to });
  for (const c of changes) {
    if (c.kind === 'create') steps.push(...c.table.columns.flatMap((col) => indexSteps(c.table.name, col)));
    if (c.kind === 'create' && c.table.search.length) steps.push(...wordSteps(c.table));
    if (c.kind === 'alter') steps.push(...alterSteps(c.after.name, c.columns));
    // After the fields moved and were filled: the words are named by the fields' new names, and a
    // searched field that old documents got a value for has words to index.
    if (c.kind === 'alter' && (!sameSearch(c.before, c.after) || filledSearchedField(c.after, c.columns)))
      steps.push(...wordSteps(c.after));
  }
  return steps;
}

/** A field become required with no default: the migration stops while a document has no value for it (SVC3108). */
function requiredChecks(change: TableChange): MongoStep[] {
  if (change.kind !== 'alter') return [];
  return change.columns.flatMap((c) =>
    c.kind === 'change' && c.aspects.has('notNull') && c.after.fill.kind === 'none'
      ? [{ op: 'requireValues' as const, collection: change.before.name, field: c.before.documentPath }]
      : [],
  );
}

/**
 * The fields of a collection, in phases: their indexes that go, dropped fields unset, renames (a
 * renamed field may take a dropped one's name; two that swap go through names of their own:
 * `$rename` writes over the field that has the new name), then each field's values and indexes
 * by its new name.
 */
function alterSteps(collection: string, columns: readonly ColumnChange[]): MongoStep[] {
  const moves = columns.flatMap((c) =>
    c.kind === 'change' && c.before.documentPath !== c.after.documentPath
      ? [[c.before.documentPath, c.after.documentPath] as const]
      : [],
  );
  return [
    ...columns.flatMap((c) => unindexSteps(collection, c)),
    ...columns.flatMap((c): MongoStep[] =>
      c.kind === 'drop' ? [{ op: 'unsetField', collection, field: c.column.documentPath }] : [],
    ),
    ...renamesInOrder(moves).map(([from, to]): MongoStep => ({ op: 'renameField', collection, from, to })),
    ...columns.flatMap((c) => valueSteps(collection, c)),
  ];
}

/** The index of a field dropped, moved or indexed otherwise, by its name before. */
function unindexSteps(collection: string, change: ColumnChange): MongoStep[] {
  if (change.kind === 'add') return [];
  const before = change.kind === 'drop' ? change.column : change.before;
  const goes = change.kind === 'drop' || reindexed(change);
  return goes && indexed(before) ? [{ op: 'dropIndex', collection, field: before.documentPath }] : [];
}

/** A field's values and index, by its new name: an added field's, or a changed one's. */
function valueSteps(collection: string, change: ColumnChange): MongoStep[] {
  if (change.kind === 'add') return [...fill(collection, change.column), ...indexSteps(collection, change.column)];
  if (change.kind === 'drop') return [];
  const { before, after, aspects } = change;
  const steps: MongoStep[] = [];
  if (integerToText(before, after)) steps.push({ op: 'convertToText', collection, field: after.documentPath });
  const temporal = temporalChange(before, after);
  if (temporal)
    steps.push({ op: 'convertTemporal', collection, field: after.documentPath, to: temporalTarget(temporal) });
  if (aspects.has('notNull')) steps.push(...fill(collection, after));
  if (reindexed(change)) steps.push(...indexSteps(collection, after));
  return steps;
}

function reindexed(change: Extract<ColumnChange, { kind: 'change' }>): boolean {
  return change.before.documentPath !== change.after.documentPath || REINDEXED.some((a) => change.aspects.has(a));
}

/**
 * Documents without a value get the default: a literal, or the time of the migration (`{{now}}`),
 * as the SQL migrations give rows; a callable default has no value known here.
 */
function fill(collection: string, column: StoredColumn): MongoStep[] {
  const field = column.documentPath;
  if (column.fill.kind === 'literal') return [{ op: 'setMissing', collection, field, value: column.fill.value }];
  if (column.fill.kind === 'now') return [{ op: 'setMissingNow', collection, field }];
  return [];
}

function temporalTarget(change: TemporalChange): 'datetime' | 'date' | 'time' {
  return change === 'date>datetime' ? 'datetime' : change === 'datetime>date' ? 'date' : 'time';
}

function filledSearchedField(table: StoredTable, changes: readonly ColumnChange[]): boolean {
  return changes.some(
    (c) =>
      c.kind === 'change' &&
      c.aspects.has('notNull') &&
      c.after.fill.kind !== 'none' &&
      table.search.includes(c.after.name),
  );
}

/** Changes after which a field's index is made again (by its new kind, or its new place). */
const REINDEXED: readonly Aspect[] = ['unique', 'notUnique', 'indexed', 'notIndexed', 'reference'];

function indexed(column: StoredColumn): boolean {
  return !column.primaryKey && (column.unique || hasColumnIndex(column));
}

/** The index of the runtime's start-up (lib/mongo/database.ts `indexKind`): unique, a link's, or one asked for. */
function indexSteps(collection: string, column: StoredColumn): MongoStep[] {
  if (!indexed(column)) return [];
  const asked = !column.unique && !column.references ? { asked: true as const } : {};
  return [{ op: 'createIndex', collection, field: column.documentPath, unique: column.unique, ...asked }];
}
