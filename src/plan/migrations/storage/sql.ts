/**
 * The SQL of a migration: the changes of `diff.ts` as SQLite and PostgreSQL statements.
 *
 * SQLite alters a table in place only for what ALTER TABLE can do (rename a table or column, add
 * a plain column, drop a plain column); anything else rebuilds the table with the documented
 * procedure (create the new shape, copy, drop the old table, rename, recreate its indexes). The
 * service's migration runner turns foreign keys off around the migration's transaction and checks
 * them before it commits, so a rebuild neither cascades into child rows nor leaves a broken link.
 *
 * PostgreSQL alters in place. Constraints are dropped by what they are (a lookup in pg_constraint),
 * not by name, so a constraint named by an earlier table or column name is found all the same.
 */
import type { Literal } from '../../../ir/types.js';
import {
  columnSql,
  foreignKeyClause,
  referenceClause,
  createColumnIndex,
  createTable,
  columnIndexes,
  columnIndexName,
  dropColumnIndex,
  hasColumnIndex,
  type MigrationSql,
} from './ddl.js';
import { q, type Dialect } from './identifiers.js';
import type { ColumnChange, TableChange } from './changes.js';
import { decimalDigits, family, FRACTIONAL, INTEGER_DIGITS, temporalChange, widens } from './conversions.js';
import type { StoredColumn, StoredTable } from '../../../outdir/storage-model.js';
import {
  createSearch,
  dropSearch,
  rebuiltSearches,
  searchFunctions,
  searchIndexChanged,
  searchState,
  vectorChanges,
  vectorSourceChanged,
} from './search.js';
import { addedUniques, createUniques, droppedUniques, dropUniques } from './uniques.js';

export function migrationSql(changes: readonly TableChange[]): MigrationSql {
  return { sqlite: sqliteSql(changes), postgres: postgresSql(changes) };
}

// --- renames ------------------------------------------------------------------------------------

/**
 * Renames in an order the databases accept, when a new name is still taken: by something that is
 * dropped (moved aside first, dropped under the name it was moved to), or by something renamed
 * away in the same migration (a swap or a chain: renamed through a temporary name).
 */
interface RenamePlan {
  /** `[from, to]` in order. */
  readonly steps: readonly (readonly [string, string])[];
  /** The name a dropped table or column has when it is dropped. */
  dropName(name: string): string;
}

function renamePlan(
  renames: readonly (readonly [string, string])[],
  existing: ReadonlySet<string>,
  dropped: readonly string[],
): RenamePlan {
  const targets = new Set(renames.map(([, to]) => to));
  const moved = new Map(dropped.filter((d) => targets.has(d)).map((d) => [d, `svc_dropped_${d}`]));
  const first: (readonly [string, string])[] = [...moved];
  const second: (readonly [string, string])[] = [];
  for (const [from, to] of renames) {
    if (existing.has(to) && !moved.has(to)) {
      first.push([from, `svc_renaming_${from}`]);
      second.push([`svc_renaming_${from}`, to]);
    } else first.push([from, to]);
  }
  return { steps: [...first, ...second], dropName: (name) => moved.get(name) ?? name };
}

function tableRenames(changes: readonly TableChange[]): RenamePlan {
  const renames = changes.flatMap((c) =>
    c.kind === 'alter' && c.before.name !== c.after.name ? [[c.before.name, c.after.name] as const] : [],
  );
  const existing = new Set(
    changes.flatMap((c) =>
      c.kind === 'alter' || c.kind === 'drop' ? [c.kind === 'alter' ? c.before.name : c.table.name] : [],
    ),
  );
  return renamePlan(
    renames,
    existing,
    changes.flatMap((c) => (c.kind === 'drop' ? [c.table.name] : [])),
  );
}

function columnRenames(before: StoredTable, columns: readonly ColumnChange[]): RenamePlan {
  const renames = columns.flatMap((c) =>
    c.kind === 'change' && c.aspects.has('name') ? [[c.before.name, c.after.name] as const] : [],
  );
  return renamePlan(
    renames,
    new Set(before.columns.map((c) => c.name)),
    columns.flatMap((c) => (c.kind === 'drop' ? [c.column.name] : [])),
  );
}

// --- SQLite ---------------------------------------------------------------------------------------

function sqliteSql(changes: readonly TableChange[]): string {
  const renames = tableRenames(changes);
  const searches = rebuiltSearches(
    changes,
    (c) => c.columns.some((x) => !inPlaceOnSqlite(x)) || searchIndexChanged(c.before, c.after),
  );
  // A dropped table's search goes first too: its FTS table is not dropped with it. So do its
  // column indexes, whose names (global on SQLite) a table renamed to its name takes.
  const out = [
    ...searches.flatMap((s) => dropSearch(s.before, 'sqlite')),
    ...changes.flatMap((c) => (c.kind === 'drop' ? dropSearch(c.table, 'sqlite') : [])),
    ...changes.flatMap((c) => (c.kind === 'drop' ? dropColumnIndexes(c.table.name, c.table.columns) : [])),
    ...changes.flatMap((c) => (c.kind === 'drop' ? dropUniques(c.table, 'sqlite') : [])),
  ];
  out.push(...renames.steps.map(([from, to]) => renameTable(from, to)));
  for (const c of changes)
    if (c.kind === 'create')
      out.push(
        createTable(c.table, 'sqlite'),
        ...columnIndexes(c.table, 'sqlite'),
        ...createUniques(c.table, 'sqlite'),
      );
  for (const c of changes) if (c.kind === 'alter') out.push(...alterSqlite(c.before, c.after, c.columns));
  for (const c of changes) if (c.kind === 'drop') out.push(`drop table ${q(renames.dropName(c.table.name))};`);
  out.push(
    ...searchState([
      ...changes.flatMap((c) => (c.kind === 'create' ? [c.table] : [])),
      ...searches.map((s) => s.after),
    ]),
  );
  for (const c of changes) if (c.kind === 'create') out.push(...createSearch(c.table, 'sqlite'));
  out.push(...searches.flatMap((s) => createSearch(s.after, 'sqlite')));
  return out.join('\n\n');
}

function renameTable(from: string, to: string): string {
  return `alter table ${q(from)} rename to ${q(to)};`;
}

/** In place when ALTER TABLE can do every change, else one rebuild. */
function alterSqlite(before: StoredTable, after: StoredTable, columns: readonly ColumnChange[]): string[] {
  if (columns.some((c) => !inPlaceOnSqlite(c))) return [...rebuild(after, columns), ...createUniques(after, 'sqlite')];
  const renames = columnRenames(before, columns);
  // Checked first, before anything changes.
  const out = columns.flatMap((c) =>
    c.kind === 'change'
      ? [
          ...lengthGuard(after, c.before, c.after),
          ...rangeGuard(after, c.before, c.after),
          ...decimalGuard(after, c.before, c.after, 'sqlite'),
        ]
      : [],
  );
  // Unique sets that go or change their name go first: DROP COLUMN refuses an indexed column.
  out.push(...droppedUniques(before, after, 'sqlite'));
  out.push(...renames.steps.map(([from, to]) => `alter table ${q(after.name)} rename column ${q(from)} to ${q(to)};`));
  // A dropped column's index goes first (DROP COLUMN refuses an indexed column), before a renamed column takes its name.
  out.push(
    ...dropColumnIndexes(
      before.name,
      columns.flatMap((c) => (c.kind === 'drop' ? [c.column] : [])),
    ),
  );
  // Column indexes are named after the table and column: a renamed table or column gets new ones.
  const added = new Set(columns.flatMap((c) => (c.kind === 'add' ? [c.column.name] : [])));
  for (const column of after.columns.filter((x) => !added.has(x.name))) {
    const change = columns.find((x) => x.kind === 'change' && x.after.name === column.name);
    const old = change?.kind === 'change' ? change.before : column;
    const [had, has] = [hasColumnIndex(old), hasColumnIndex(column)];
    if (!had && !has) continue;
    if (had && has && before.name === after.name && old.name === column.name) continue;
    if (had) out.push(dropColumnIndex(before.name, old.name, 'sqlite'));
    if (has) out.push(createColumnIndex(after.name, column.name, 'sqlite'));
  }
  for (const c of columns) {
    if (c.kind === 'add') {
      // Rows that exist get the default: a constant one as the column's DEFAULT, the time by an update.
      const fill = c.column.fill;
      const constant = fill.kind === 'literal' ? ` default ${literalSql(c.column, fill.value, 'sqlite')}` : '';
      out.push(`alter table ${q(after.name)} add column ${addedColumnSqlite(c.column)}${constant};`);
      if (fill.kind === 'now')
        out.push(`update ${q(after.name)} set ${q(c.column.name)} = ${nowSql(c.column, 'sqlite')};`);
      if (hasColumnIndex(c.column)) out.push(createColumnIndex(after.name, c.column.name, 'sqlite'));
    }
    if (c.kind === 'drop') out.push(`alter table ${q(after.name)} drop column ${q(renames.dropName(c.column.name))};`);
    if (c.kind === 'change') {
      const column = q(c.after.name);
      const converted = temporalConversion(c.before, c.after, column);
      if (converted) out.push(`update ${q(after.name)} set ${column} = ${converted} where ${column} is not null;`);
    }
  }
  out.push(...addedUniques(before, after, 'sqlite'));
  return out;
}

/** SQLite's conversion of a stored value (the SQL `value`) for a temporal change (./conversions.ts). */
export function temporalConversion(before: StoredColumn, after: StoredColumn, value: string): string | undefined {
  switch (temporalChange(before, after)) {
    case 'datetime>date':
      return `substr(${value}, 1, 10)`;
    case 'datetime>time':
      return `substr(${value}, 12, 8)`;
    case 'date>datetime':
      return `case when length(${value}) = 10 then ${value} || 'T00:00:00Z' else ${value} end`;
    case undefined:
      return undefined;
  }
}

/** SQLite: `drop index` for the columns of `table` (by its name before the migration) that have an index of their own. */
function dropColumnIndexes(table: string, columns: readonly StoredColumn[]): string[] {
  return columns.filter(hasColumnIndex).map((c) => dropColumnIndex(table, c.name, 'sqlite'));
}

/** `add column` takes a column-level REFERENCES (a table-level FOREIGN KEY cannot be added). */
function addedColumnSqlite(column: StoredColumn): string {
  const ref = column.references;
  return ref ? `${columnSql(column, 'sqlite')} ${referenceClause(ref)}` : columnSql(column, 'sqlite');
}

function inPlaceOnSqlite(c: ColumnChange): boolean {
  const plain = (col: StoredColumn) => !col.primaryKey && !col.unique;
  switch (c.kind) {
    case 'add':
      // A NOT NULL column needs a constant default; a foreign key column must default to null.
      return plain(c.column) && (!c.column.notNull || (c.column.fill.kind === 'literal' && !c.column.references));
    case 'drop':
      // DROP COLUMN refuses indexed, unique, key and foreign key columns (an index of its own goes first).
      return plain(c.column) && !c.column.references;
    case 'change':
      // SQLite stores by affinity: varchar(50) and varchar(200), integer and bigint are one column type.
      return [...c.aspects].every(
        (a) =>
          a === 'name' ||
          a === 'documentPath' ||
          a === 'indexed' ||
          a === 'notIndexed' ||
          (a === 'type' && sameOnSqlite(c.before, c.after)),
      );
  }
}

function sameOnSqlite(a: StoredColumn, b: StoredColumn): boolean {
  return a.sqlite === b.sqlite && (a.type === 'boolean') === (b.type === 'boolean');
}

/** The 12-step procedure of https://www.sqlite.org/lang_altertable.html, less what the runner does (steps 1, 2, 10–12). */
function rebuild(after: StoredTable, columns: readonly ColumnChange[]): string[] {
  const temporary = `svc_new_${after.name}`;
  const changeOf = new Map<string, ColumnChange & { kind: 'change' }>();
  for (const c of columns) if (c.kind === 'change') changeOf.set(c.after.name, c);
  const added = new Set(columns.flatMap((c) => (c.kind === 'add' ? [c.column.name] : [])));
  const values = after.columns.map((column) => {
    if (added.has(column.name)) return fillSql(column, 'sqlite') ?? 'null';
    const change = changeOf.get(column.name);
    const stored = q(change?.before.name ?? column.name);
    const source = (change && temporalConversion(change.before, change.after, stored)) ?? stored;
    const fill = column.notNull ? fillSql(column, 'sqlite') : undefined;
    return fill ? `coalesce(${source}, ${fill})` : source;
  });
  const guards = columns.flatMap((c) => [
    ...(c.kind === 'change' && c.aspects.has('type') && !sameOnSqlite(c.before, c.after)
      ? conversionGuard(after, c.before, c.after)
      : []),
    ...(c.kind === 'change' ? lengthGuard(after, c.before, c.after) : []),
    ...(c.kind === 'change' ? rangeGuard(after, c.before, c.after) : []),
    ...(c.kind === 'change' ? decimalGuard(after, c.before, c.after, 'sqlite') : []),
    ...(c.kind === 'change' && c.aspects.has('notNull') && !fillSql(c.after, 'sqlite') ? requiredGuard(after, c) : []),
  ]);
  return [
    ...guards,
    createTable(after, 'sqlite', temporary),
    `insert into ${q(temporary)} (${after.columns.map((c) => q(c.name)).join(', ')})\n  select ${values.join(', ')} from ${q(after.name)};`,
    ...(after.columns.some((c) => c.generated) ? keepKeyCounter(after.name, temporary) : []),
    `drop table ${q(after.name)};`,
    renameTable(temporary, after.name),
    ...columnIndexes(after, 'sqlite'),
  ];
}

/**
 * SQLite would keep a value that does not convert (the text "a dozen" in an integer column, read
 * back as nothing): the migration fails instead, as PostgreSQL's cast does, naming the field in
 * the failed CHECK. Values that convert are copied and take the new column's type.
 */
function conversionGuard(table: StoredTable, before: StoredColumn, after: StoredColumn): string[] {
  const value = q(before.name);
  const condition = convertsCondition(value, after);
  if (!condition) return [];
  const rule = `${table.model}.${after.name}: a stored value does not convert to ${after.type}`;
  return failIfAny(table, `${value} is not null and not (${condition})`, rule);
}

/** Whether SQLite's migration of a type change fails on a stored value that does not convert (as PostgreSQL's does). */
export function sqliteRefusesUnconverted(before: StoredColumn, after: StoredColumn): boolean {
  return (
    narrowedLength(before, after) !== undefined ||
    narrowedRange(before, after) !== undefined ||
    narrowedDecimal(before, after) !== undefined ||
    (!sameOnSqlite(before, after) && convertsCondition(q(before.name), after) !== undefined)
  );
}

/**
 * A text whose length limit narrows (`varchar(120)` → `varchar(60)`): SQLite keeps text of any
 * length, so the migration checks the stored values as PostgreSQL's change of type does, and fails
 * the same way, naming the field: a team that develops on SQLite learns it there, not at deploy.
 */
function lengthGuard(
  table: StoredTable,
  before: StoredColumn,
  after: StoredColumn,
  dialect: Dialect = 'sqlite',
): string[] {
  const limit = narrowedLength(before, after);
  if (limit === undefined) return [];
  const rule = `${table.model}.${after.name}: a stored value is longer than ${limit} characters`;
  // PostgreSQL's own change of type fails too, but names no field ("value too long").
  return failIfAnyOn(dialect, table, before, after, `length(${guarded(before, after, dialect)}) > ${limit}`, rule);
}

/** The column as a guard reads it: PostgreSQL's guards run after the migration's renames, SQLite's before anything changes. */
function guarded(before: StoredColumn, after: StoredColumn, dialect: Dialect): string {
  return q(dialect === 'postgres' ? after.name : before.name);
}

/** Statements that fail with `rule` while a row of `table` meets `condition`, on `dialect` (`failIfAny`, `failIfAnyPostgres`). */
function failIfAnyOn(
  dialect: Dialect,
  table: StoredTable,
  before: StoredColumn,
  after: StoredColumn,
  condition: string,
  rule: string,
): string[] {
  return dialect === 'postgres'
    ? failIfAnyPostgres(table, condition, rule, condition.replaceAll(q(after.name), q(before.name)))
    : failIfAny(table, condition, rule);
}

/**
 * A field become a 16- or 32-bit integer from a type with values beyond its range (a bigint, a
 * float, digits in text): SQLite's integers are all 64-bit and kept the text "3000000000" as the
 * number, which the service then served but refused in a filter or a write (a probe's migration
 * said it would fail, and did not). It fails as PostgreSQL's cast does, naming the field.
 */
function rangeGuard(
  table: StoredTable,
  before: StoredColumn,
  after: StoredColumn,
  dialect: Dialect = 'sqlite',
): string[] {
  const range = narrowedRange(before, after);
  // PostgreSQL's cast fails by itself, naming no row, with a lookup for PostgreSQL 16 alone (a
  // probe's 15 had none): a number is checked first, by a condition any version runs.
  if (range === undefined || (dialect === 'postgres' && !NUMBER_COLUMNS.has(family(before.postgres)))) return [];
  const [least, most] = range;
  const rule = `${table.model}.${after.name}: a stored value is outside the range of ${after.type} (${least} to ${most})`;
  const value = guarded(before, after, dialect);
  // SQLite compares text as text: a number written as digits is read as one first.
  const condition =
    dialect === 'sqlite'
      ? `${value} is not null and cast(${value} as integer) not between ${least} and ${most}`
      : `${value} not between ${least} and ${most}`;
  return failIfAnyOn(dialect, table, before, after, condition, rule);
}

/** The column types of numbers, whose values PostgreSQL compares with an integer's bounds. */
const NUMBER_COLUMNS: ReadonlySet<string> = new Set([...Object.keys(INTEGER_DIGITS), ...FRACTIONAL]);

/** The bits of a 16- and a 32-bit integer column's values, but for the sign. */
const SIGNED_BITS: Readonly<Record<string, number>> = { smallint: 15, integer: 31 };

/** The bounds of a 16- or 32-bit integer column whose stored values may lie beyond them, else undefined. */
function narrowedRange(before: StoredColumn, after: StoredColumn): readonly [bigint, bigint] | undefined {
  const bits = SIGNED_BITS[after.postgres];
  if (bits === undefined || widens(before, after)) return undefined;
  return [-(2n ** BigInt(bits)), 2n ** BigInt(bits) - 1n];
}

/** The new length limit of a text column whose limit narrows, else undefined. */
function narrowedLength(before: StoredColumn, after: StoredColumn): number | undefined {
  const limit = (column: StoredColumn) => /^varchar\((\d+)\)$/.exec(column.postgres)?.[1];
  const [had, has] = [limit(before), limit(after)];
  if (has === undefined || before.sqlite !== 'text') return undefined;
  return had === undefined || Number(has) < Number(had) ? Number(has) : undefined;
}

/** The SQL condition that the stored `value` converts to the type of `after`; none where SQLite cannot tell. */
function convertsCondition(value: string, after: StoredColumn): string | undefined {
  const fits: Partial<Record<string, string>> = {
    integer: `cast(${value} as integer) = ${value}`,
    real: `cast(${value} as real) = ${value}`,
  };
  const json =
    after.type === 'list' ? `json_valid(${value}) and json_type(${value}) = 'array'` : `json_valid(${value})`;
  return after.type === 'boolean'
    ? `${value} in (0, 1)`
    : after.sqlite === 'text' && ['list', 'dict', 'pickle'].includes(after.type)
      ? json
      : fits[after.sqlite];
}

/**
 * A field become required with no default: the migration fails while a stored row has no value,
 * naming the field (the rebuild's own error would name its temporary table). PostgreSQL's
 * `set not null` fails the same way by itself (SVC3108).
 */
function requiredGuard(table: StoredTable, change: ColumnChange & { kind: 'change' }): string[] {
  const rule = `${table.model}.${change.after.name}: a stored row has no value, and the field is now required`;
  return failIfAny(table, `${q(change.before.name)} is null`, rule);
}

/**
 * Statements that fail with the CHECK `rule` when a row of `table` meets `condition`, and change
 * nothing. The rule says how to find those rows, to fix them before the service starts again (a
 * probe's team could not tell which rows stopped it).
 */
function failIfAny(table: StoredTable, condition: string, rule: string): string[] {
  const named = `${rule} ${findThem(table, condition)}`;
  return [
    `create temp table "svc_conversion_check" ("ok" integer constraint ${q(named)} check ("ok"));`,
    `insert into "svc_conversion_check" select 0 from ${q(table.name)} where ${condition} limit 1;`,
    `drop table "svc_conversion_check";`,
  ];
}

/** How to find the rows that stop a migration, to fix them before the service starts again. */
function findThem(table: StoredTable, condition: string): string {
  return `(find them: select * from ${q(table.name)} where ${condition})`;
}

/**
 * AUTOINCREMENT never gives a key twice, because sqlite_sequence remembers the highest one ever
 * given: the new table takes over the old one's, or a row deleted before the rebuild would see
 * its key given again (to a new row, which old links and URLs would then reach). The rename that
 * follows carries the entry over to the table's name.
 */
function keepKeyCounter(table: string, temporary: string): string[] {
  return [
    `delete from sqlite_sequence where name = ${sqlString(temporary)};`,
    `insert into sqlite_sequence (name, seq) select ${sqlString(temporary)}, seq from sqlite_sequence where name = ${sqlString(table)};`,
  ];
}

// --- PostgreSQL -----------------------------------------------------------------------------------

function postgresSql(changes: readonly TableChange[]): string {
  const searches = rebuiltSearches(changes, vectorSourceChanged);
  const vectors = searches.map((s) => vectorChanges(s.change));
  // Vectors go before the columns they are made from change (by the table's name before the migration).
  const out: string[] = vectors.flatMap((v) => v.drop);
  const constraints: string[] = [];
  const renames = tableRenames(changes);
  // A dropped table gives up its unique sets' names first (a table renamed to its name takes them).
  out.push(...changes.flatMap((c) => (c.kind === 'drop' ? dropUniques(c.table, 'postgres') : [])));
  // A table moved aside to be dropped gives up its index names first.
  for (const c of changes) {
    if (c.kind === 'drop' && renames.dropName(c.table.name) !== c.table.name)
      out.push(...c.table.columns.filter(hasColumnIndex).map((x) => dropColumnIndex(c.table.name, x.name, 'postgres')));
  }
  out.push(...renames.steps.map(([from, to]) => renameTable(from, to)));
  for (const c of changes) {
    if (c.kind !== 'alter' || c.before.name === c.after.name) continue;
    for (const col of c.before.columns.filter(hasColumnIndex))
      out.push(
        `alter index if exists ${q(columnIndexName(c.before.name, col.name, 'postgres'))} rename to ${q(columnIndexName(c.after.name, col.name, 'postgres'))};`,
      );
  }
  for (const c of changes) if (c.kind === 'create') out.push(createTable(c.table, 'postgres'));
  for (const c of changes)
    if (c.kind === 'alter') out.push(...alterPostgres(c.before, c.after, c.columns, constraints));
  for (const c of changes)
    if (c.kind === 'create')
      constraints.push(
        ...c.table.columns.filter((x) => x.references).map((x) => addReference(c.table.name, x)),
        ...columnIndexes(c.table, 'postgres'),
        ...createUniques(c.table, 'postgres'),
      );
  out.push(...constraints);
  const dropped = changes.filter((c) => c.kind === 'drop').map((c) => q(renames.dropName(c.table.name)));
  if (dropped.length) out.push(`drop table ${dropped.join(', ')};`);
  const created = changes.flatMap((c) => (c.kind === 'create' ? [c.table] : []));
  out.push(
    ...searchFunctions([...created, ...searches.map((s) => s.after)]),
    ...created.flatMap((t) => createSearch(t, 'postgres')),
    ...vectors.flatMap((v) => v.add),
  );
  return out.join('\n\n');
}

function alterPostgres(
  old: StoredTable,
  table: StoredTable,
  columns: readonly ColumnChange[],
  constraints: string[],
): string[] {
  const t = q(table.name);
  const renames = columnRenames(old, columns);
  // Unique sets that go or change their name go first, by their names before the migration.
  const out = droppedUniques(old, table, 'postgres');
  // A column moved aside to be dropped gives up its index name first.
  out.push(
    ...columns.flatMap((c) =>
      c.kind === 'drop' && hasColumnIndex(c.column) && renames.dropName(c.column.name) !== c.column.name
        ? [dropColumnIndex(table.name, c.column.name, 'postgres')]
        : [],
    ),
  );
  out.push(...renames.steps.map(([from, to]) => `alter table ${t} rename column ${q(from)} to ${q(to)};`));
  for (const c of columns) {
    if (c.kind === 'change' && c.aspects.has('name') && hasColumnIndex(c.before))
      out.push(
        `alter index if exists ${q(columnIndexName(table.name, c.before.name, 'postgres'))} rename to ${q(columnIndexName(table.name, c.after.name, 'postgres'))};`,
      );
  }
  for (const c of columns) {
    if (c.kind !== 'change') continue;
    const { before, after, aspects } = c;
    const col = q(after.name);
    if (aspects.has('reference') && before.references) out.push(dropConstraints(table.name, after.name, 'f'));
    if (aspects.has('notUnique')) out.push(dropConstraints(table.name, after.name, 'u'));
    if (aspects.has('type'))
      out.push(
        ...fractionGuard(table, before, after),
        ...rangeGuard(table, before, after, 'postgres'),
        ...decimalGuard(table, before, after, 'postgres'),
        ...lengthGuard(table, before, after, 'postgres'),
        alterType(t, col, before, after, table),
      );
    if (aspects.has('notNull')) {
      const fill = fillSql(after, 'postgres');
      if (fill) out.push(`update ${t} set ${col} = ${fill} where ${col} is null;`);
      out.push(`alter table ${t} alter column ${col} set not null;`);
    }
    if (aspects.has('nullable')) out.push(`alter table ${t} alter column ${col} drop not null;`);
    if (aspects.has('unique')) out.push(addUnique(table.name, after.name));
    if (aspects.has('reference') && after.references) constraints.push(addReference(table.name, after));
    if (!hasColumnIndex(before) && hasColumnIndex(after))
      constraints.push(createColumnIndex(table.name, after.name, 'postgres'));
    if (hasColumnIndex(before) && !hasColumnIndex(after)) out.push(dropColumnIndex(table.name, after.name, 'postgres'));
  }
  for (const c of columns) {
    if (c.kind !== 'add') continue;
    const column = c.column;
    const fill = fillSql(column, 'postgres');
    // Added without NOT NULL, filled, then constrained: rows that exist get the fill.
    out.push(`alter table ${t} add column ${columnSql({ ...column, notNull: false, unique: false }, 'postgres')};`);
    if (fill) out.push(`update ${t} set ${q(column.name)} = ${fill};`);
    if (column.notNull) out.push(`alter table ${t} alter column ${q(column.name)} set not null;`);
    if (column.unique) out.push(addUnique(table.name, column.name));
    if (column.references) constraints.push(addReference(table.name, column));
    if (hasColumnIndex(column)) constraints.push(createColumnIndex(table.name, column.name, 'postgres'));
  }
  for (const c of columns)
    if (c.kind === 'drop') out.push(`alter table ${t} drop column ${q(renames.dropName(c.column.name))};`);
  constraints.push(...addedUniques(old, table, 'postgres'));
  return out;
}

/**
 * Text to text converts as an assignment would, which refuses a value that is too long (an
 * explicit cast would cut it short); other conversions need the explicit cast.
 */
function alterType(
  table: string,
  column: string,
  before: StoredColumn,
  after: StoredColumn,
  stored: StoredTable,
): string {
  const text = (t: string) => t === 'text' || t.startsWith('varchar(');
  const using = text(before.postgres) && text(after.postgres) ? '' : ` using ${column}::${after.postgres}`;
  const alter = `alter table ${table} alter column ${column} type ${after.postgres}${using};`;
  if (!using || !castMayFail(before, after)) return alter;
  // PostgreSQL's cast names the value, not the field ("invalid input syntax for type integer:
  // "two""), where SQLite's guard names both (a probe's): its failure is said as the guard's.
  const rule = `${stored.model}.${after.name}: a stored value does not convert to ${after.type}`;
  const find = `(PostgreSQL 16 and later find them: select * from ${q(stored.name)} where not pg_input_is_valid(${q(before.name)}::text, ${sqlString(after.postgres)}))`;
  return [
    'do $$ begin',
    `  ${alter}`,
    'exception when data_exception then',
    `  raise exception using message = ${sqlString(`${rule} `)} || '(' || sqlerrm || ') ' || ${sqlString(find)}, errcode = 'check_violation';`,
    'end $$;',
  ].join('\n');
}

/** Whether PostgreSQL's cast of a stored value can fail: not into text, nor where every value fits (`widens`). */
function castMayFail(before: StoredColumn, after: StoredColumn): boolean {
  if (after.postgres === 'text' || after.postgres.startsWith('varchar(')) return false;
  return !widens(before, after);
}

/**
 * A number with a fraction into a whole number (`float` → `integer`): PostgreSQL's cast rounds
 * 52.37 to 52 without a word, where SQLite's migration refuses it (`conversionGuard`). So the
 * migration fails on such a value here too, naming the field and how to find the rows, and changes
 * nothing.
 */
function fractionGuard(table: StoredTable, before: StoredColumn, after: StoredColumn): string[] {
  if (INTEGER_DIGITS[after.postgres] === undefined || !FRACTIONAL.has(family(before.postgres))) return [];
  const value = guarded(before, after, 'postgres');
  const rule = `${table.model}.${after.name}: a stored value does not convert to ${after.type}`;
  return failIfAnyOn('postgres', table, before, after, `${value} <> trunc(${value})`, rule);
}

/**
 * PostgreSQL: a statement that fails with `rule` (a check violation) when a row of `table` meets
 * `condition`. The rule's query to find those rows is `shown`: the condition with the column by the
 * name it has while the migration is undone (a rename in the same migration is undone with it).
 */
function failIfAnyPostgres(table: StoredTable, condition: string, rule: string, shown: string = condition): string[] {
  return [
    [
      `do $$ begin`,
      `  if exists (select 1 from ${q(table.name)} where ${condition}) then`,
      `    raise exception using message = ${sqlString(`${rule} ${findThem(table, shown)}`)}, errcode = 'check_violation';`,
      `  end if;`,
      `end $$;`,
    ].join('\n'),
  ];
}

/**
 * A decimal whose stored values may no longer fit (`numeric(10, 2)` → `numeric(10, 1)`, fewer
 * digits before the point, a float or an unbounded decimal given a scale): PostgreSQL's change of
 * type rounded 19.55 to 19.6 without a word, and SQLite kept 19.55, so that the two then answered
 * `?price=19.55` differently. The migration fails instead, on both, while a stored value has more
 * decimals than the new scale or too many digits before the point, naming the field and how to find
 * the rows (round them, then start again).
 */
function decimalGuard(table: StoredTable, before: StoredColumn, after: StoredColumn, dialect: Dialect): string[] {
  const digits = narrowedDecimal(before, after);
  if (!digits) return [];
  const { precision, scale } = digits;
  const value = guarded(before, after, dialect);
  const number = dialect === 'postgres' ? `${value}::numeric` : value;
  const rounded = `round(${number}, ${scale})`;
  const condition = `${value} is not null and (${rounded} <> ${number} or abs(${rounded}) >= 1${'0'.repeat(precision - scale)})`;
  const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
  const rule = `${table.model}.${after.name}: a stored value has more than ${plural(scale, 'decimal')}, or more than ${plural(precision - scale, 'digit')} before the point`;
  return failIfAnyOn(dialect, table, before, after, condition, rule);
}

/**
 * The digits of a decimal column (`numeric(p, s)`) that a stored number may not fit after a change
 * of type, else undefined: fewer decimals or fewer digits before the point than it had, or a number
 * without those bounds before (a float, an unbounded decimal). Not text: its conversion is checked
 * as such (`conversionGuard`, PostgreSQL's cast).
 */
function narrowedDecimal(before: StoredColumn, after: StoredColumn): { precision: number; scale: number } | undefined {
  const to = decimalDigits(after.postgres);
  if (!to || after.type === 'boolean') return undefined;
  const from = decimalDigits(before.postgres);
  const whole = to.precision - to.scale;
  if (from) return to.scale >= from.scale && whole >= from.precision - from.scale ? undefined : to;
  const integerDigits = INTEGER_DIGITS[before.postgres];
  if (integerDigits !== undefined) return whole >= integerDigits ? undefined : to;
  return FRACTIONAL.has(before.postgres) ? to : undefined;
}

/** Constraints added by migrations are left for PostgreSQL to name (a renamed column's may still hold the name). */
function addUnique(table: string, column: string): string {
  return `alter table ${q(table)} add unique (${q(column)});`;
}

function addReference(table: string, column: StoredColumn): string {
  return `alter table ${q(table)} add ${foreignKeyClause(column)};`;
}

/** Drops the one-column constraints of `kind` (`f` foreign key, `u` unique) on a column, whatever their names. */
function dropConstraints(table: string, column: string, kind: 'f' | 'u'): string {
  const relation = `'${q(table).replace(/'/g, "''")}'::regclass`;
  return [
    'do $$ declare name text; begin',
    `  for name in select c.conname from pg_constraint c join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]`,
    `    where c.conrelid = ${relation} and c.contype = '${kind}' and cardinality(c.conkey) = 1 and a.attname = ${sqlString(column)}`,
    `  loop execute format('alter table %I drop constraint %I', ${sqlString(table)}, name); end loop;`,
    'end $$;',
  ].join('\n');
}

// --- values ---------------------------------------------------------------------------------------

/** What rows without a value get, as SQL; undefined when nothing is known (a callable default). */
function fillSql(column: StoredColumn, dialect: Dialect): string | undefined {
  const fill = column.fill;
  if (fill.kind === 'literal') return literalSql(column, fill.value, dialect);
  if (fill.kind === 'now') return nowSql(column, dialect);
  return undefined;
}

function nowSql(column: StoredColumn, dialect: Dialect): string {
  if (dialect === 'postgres')
    return column.type === 'date' ? 'current_date' : column.type === 'time' ? 'localtime(0)' : 'now()';
  const format = column.type === 'date' ? '%Y-%m-%d' : column.type === 'time' ? '%H:%M:%S' : '%Y-%m-%dT%H:%M:%SZ';
  return `strftime('${format}', 'now')`;
}

function literalSql(column: StoredColumn, value: Literal, dialect: Dialect): string {
  if (typeof value === 'boolean') return dialect === 'sqlite' ? (value ? '1' : '0') : String(value);
  if (typeof value === 'number') return String(value);
  const text =
    typeof value === 'string' && !['list', 'dict', 'pickle'].includes(column.type) ? value : JSON.stringify(value);
  return column.postgres === 'jsonb' && dialect === 'postgres' ? `${sqlString(text)}::jsonb` : sqlString(text);
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
