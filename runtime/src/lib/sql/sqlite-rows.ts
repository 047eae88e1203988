/**
 * SQLite's rows as objects, made in JavaScript: better-sqlite3 makes each row's object in C++ one
 * property at a time, which cost a page of 20 rows 16.4 µs against 11.2 µs for the same rows read
 * as arrays and made objects by a function compiled for the statement's columns (an object
 * literal, so every row of a statement shares one shape). bench/RESULTS.md, "Two costs of the
 * drivers, per statement".
 *
 * The names are read once, when the statement is prepared. SQLite prepares a statement again after
 * a schema change (behind the service's back too): one that names its columns keeps them, or fails
 * when one is gone, while a `select *` would get the table's columns as they are then. So the
 * executor makes arrays only of statements with no `*` but `count(*)` (`namesItsColumns`), and the
 * runtime names the columns it selects.
 */
import type Database from 'better-sqlite3';

/** Turns a read's rows, read as arrays, into objects keyed by its columns' names. */
export type RowMaker = (rows: unknown[][]) => Record<string, unknown>[];

/** Makes `statement` (a reader) return arrays; what turns its rows into objects. */
export function arrayRows(statement: Database.Statement): RowMaker {
  statement.raw(true);
  const names = statement.columns().map((column) => column.name);
  const properties = names.map((name, i) =>
    // A `__proto__` key in a literal would set the object's prototype; computed, it is a property.
    name === '__proto__' ? `["__proto__"]: v[${i}]` : `${JSON.stringify(name)}: v[${i}]`,
  );
  // The names are JSON string literals (quoted and escaped): nothing of them is code.
  // oxlint-disable-next-line typescript/no-implied-eval
  const row = new Function('v', `return { ${properties.join(', ')} };`) as (
    values: unknown[],
  ) => Record<string, unknown>;
  return (rows) => rows.map(row);
}
