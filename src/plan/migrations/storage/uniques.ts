/**
 * `_unique_together` in SQL: a unique index per set of columns, named after the table and its
 * columns (`player_team_id_number_unique`), on SQLite and PostgreSQL alike. Both count a row with
 * any of them null in no set, as MongoDB's partial index does (lib/mongo/indexes.ts).
 *
 * A migration drops the sets a table no longer has, or whose name changes with a renamed table or
 * column, before anything else changes (SQLite's DROP COLUMN refuses an indexed column), and
 * creates the new ones last. Where stored rows already share the values, the migration fails and
 * changes nothing, by the index's own error: SQLite's names the table and columns (and the
 * service's migration runner adds the query that lists the rows that share values), PostgreSQL's
 * shows the shared values.
 */
import { uniquesOf, type StoredTable } from '../../../outdir/storage-model.js';
import { identifier, q, type Dialect } from './identifiers.js';

export function uniqueIndexName(table: string, columns: readonly string[], dialect: Dialect): string {
  return identifier(`${table}_${columns.join('_')}_unique`, dialect);
}

/** The unique indexes of a new table, or of one SQLite rebuilt (its old indexes went with the old table). */
export function createUniques(table: StoredTable, dialect: Dialect): string[] {
  return uniquesOf(table).map((set) => createUnique(table, set, dialect));
}

/** The indexes of `before` that `after` does not have under the same name: dropped first. */
export function droppedUniques(before: StoredTable, after: StoredTable, dialect: Dialect): string[] {
  const kept = new Set(indexNames(after, dialect));
  return indexNames(before, dialect)
    .filter((name) => !kept.has(name))
    .map(dropIndex);
}

/** Every index of a table that is dropped, by its name before the migration. */
export function dropUniques(table: StoredTable, dialect: Dialect): string[] {
  return indexNames(table, dialect).map(dropIndex);
}

/** The indexes of `after` that `before` did not have under the same name. */
export function addedUniques(before: StoredTable, after: StoredTable, dialect: Dialect): string[] {
  const had = new Set(indexNames(before, dialect));
  return uniquesOf(after)
    .filter((set) => !had.has(uniqueIndexName(after.name, set, dialect)))
    .map((set) => createUnique(after, set, dialect));
}

/** Whether the two versions of a table differ in their unique sets (an alter even when no column changes). */
export function uniquesChanged(before: StoredTable, after: StoredTable): boolean {
  const names = (t: StoredTable) => indexNames(t, 'sqlite').sort().join(' ');
  return names(before) !== names(after);
}

/** The names of the table's unique sets' indexes, in its order. */
function indexNames(table: StoredTable, dialect: Dialect): string[] {
  return uniquesOf(table).map((set) => uniqueIndexName(table.name, set, dialect));
}

/** `drop index if exists`: the index may have gone with its table. */
function dropIndex(name: string): string {
  return `drop index if exists ${q(name)};`;
}

function createUnique(table: StoredTable, set: readonly string[], dialect: Dialect): string {
  const columns = set.map(q).join(', ');
  return `create unique index ${q(uniqueIndexName(table.name, set, dialect))} on ${q(table.name)} (${columns});`;
}
