/**
 * The full-text search indexes of the storage model (the generated runtime's
 * lib/sql/search.ts and lib/mongo/search.ts query them under the same names):
 *
 * - SQLite: an FTS5 table `svc_search_<table>` over the text columns, contentless (it stores no
 *   copy of the text; rows are deleted by rowid), tokenizer `unicode61 remove_diacritics 2`. The
 *   service catches it up in batches (the runtime's lib/sql/search-index.ts): rows beyond
 *   `svc_search_state.indexed_to` are new; triggers put the rowids of rows indexed before and
 *   changed or deleted since into `svc_search_<table>_stale`. A write thus costs one small
 *   marker at most, where an FTS5 insert per transaction cost a small insert ~40 % of a POST.
 * - PostgreSQL: per text field, a stored generated `tsvector` column `svc_search_<field>` of the
 *   field's folded text (lower case, no diacritics, only letters and digits: the words SQLite's
 *   tokenizer makes; the runtime's lib/sql/search-fold.ts) with a GIN index. One column per
 *   field, so that a caller who may search only some fields is answered from the indexes. The
 *   configuration is `simple` here; the service switches the columns to service.ini's
 *   `search.language` at start-up.
 * - MongoDB: the words of each document in `_search`, written by the repository; the migration
 *   steps fill them for stored documents and index them.
 *
 * A table's search objects are rebuilt when what they index changes (a searched field added,
 * removed, renamed or retyped, the table renamed, or on SQLite rebuilt): dropped first, before the
 * table changes under them, and created last. SQLite's FTS5 table is rebuilt whole; PostgreSQL's
 * vectors only where their field changed (`vectorChanges`).
 */
import type { MongoStep } from '../../../../runtime/src/lib/mongo/steps.js';
import { foldedText, vectorOf } from '../../../../runtime/src/lib/sql/search-fold.js';
import { identifier, q, type Dialect } from './identifiers.js';
import type { TableChange } from './changes.js';
import type { StoredTable } from '../../../outdir/storage-model.js';

/** The words of a text (lib/sql/search-fold.ts), for searches to fold their words with. */
const FOLD_FUNCTION = `create or replace function svc_search_fold(value text) returns text
  language sql immutable parallel safe
  return ${foldedText('value')};`;

export function ftsTable(table: string): string {
  return `svc_search_${table}`;
}

/**
 * SQLite: the FTS5 column of a searched field, its name but for the two FTS5 reserves for itself
 * (`rank`, `rowid`, in any case: "reserved fts5 column name"), which get a `_` before them (no
 * field name starts with one). The runtime's lib/sql/search-index.ts names them alike.
 */
export function ftsColumn(field: string): string {
  return /^(rank|rowid)$/i.test(field) ? `_${field}` : field;
}

/** SQLite: the rowids of indexed rows changed or deleted since (lib/sql/search-index.ts reads it). */
export function staleTable(table: string): string {
  return `svc_search_${table}_stale`;
}

/** SQLite: per table, the highest rowid the index has taken (one table for the database). */
export const SEARCH_STATE = 'svc_search_state';

export function vectorColumn(field: string): string {
  return identifier(`svc_search_${field}`, 'postgres');
}

/** The statements that create a table's search objects; none for a table without text fields. */
export function createSearch(table: StoredTable, dialect: Dialect): string[] {
  if (table.search.length === 0) return [];
  return dialect === 'sqlite' ? createFts(table) : table.search.map((field) => addVector(table.name, field));
}

/** The statements that drop a table's search objects, by the names it has before the migration. */
export function dropSearch(table: StoredTable, dialect: Dialect): string[] {
  if (table.search.length === 0) return [];
  if (dialect === 'sqlite')
    return [
      ...TRIGGERS.map((t) => `drop trigger if exists ${q(`${ftsTable(table.name)}_${t}`)};`),
      `drop table if exists ${q(ftsTable(table.name))};`,
      ...(table.searchIndex >= 2
        ? [
            `drop table if exists ${q(staleTable(table.name))};`,
            `delete from ${q(SEARCH_STATE)} where "name" = ${sqlString(table.name)};`,
          ]
        : []),
    ];
  return dropVectors(table.name, table.search);
}

/** PostgreSQL: the statement that drops the vectors of `fields` (none for none); the GIN index goes with its column. */
function dropVectors(table: string, fields: readonly string[]): string[] {
  if (fields.length === 0) return [];
  return [`alter table ${q(table)} ${fields.map((f) => `drop column if exists ${q(vectorColumn(f))}`).join(', ')};`];
}

/** SQLite: the table of how far each search index is caught up, before the first index that needs it. */
export function searchState(tables: readonly StoredTable[]): string[] {
  return tables.some((t) => t.search.length)
    ? [`create table if not exists ${q(SEARCH_STATE)} ("name" text primary key, "indexed_to" integer not null);`]
    : [];
}

/** PostgreSQL: the fold function, which searches call on their words (vector columns spell it out). */
export function searchFunctions(tables: readonly StoredTable[]): string[] {
  return tables.some((t) => t.search.length) ? [FOLD_FUNCTION] : [];
}

const TRIGGERS = ['insert', 'delete', 'update'] as const;

function createFts(table: StoredTable): string[] {
  const fts = q(ftsTable(table.name));
  const stale = q(staleTable(table.name));
  const name = sqlString(table.name);
  const columns = table.search.map(q).join(', ');
  const ftsColumns = table.search.map((f) => q(ftsColumn(f))).join(', ');
  const key = table.columns.find((c) => c.primaryKey)?.name;
  const watched = [...table.search, ...(key && !table.search.includes(key) ? [key] : [])].map(q).join(', ');
  // A row at or below the mark was indexed (or its rowid was, before it was deleted): mark it stale.
  const indexed = (row: 'new' | 'old') =>
    `${row}.rowid <= (select "indexed_to" from ${q(SEARCH_STATE)} where "name" = ${name})`;
  const markStale = (row: 'new' | 'old') => `insert or ignore into ${stale} ("changed") values (${row}.rowid);`;
  return [
    `create virtual table ${fts} using fts5(${ftsColumns}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');`,
    `create table ${stale} ("changed" integer primary key);`,
    `create trigger ${q(`${ftsTable(table.name)}_insert`)} after insert on ${q(table.name)} when ${indexed('new')} begin\n  ${markStale('new')}\nend;`,
    `create trigger ${q(`${ftsTable(table.name)}_delete`)} after delete on ${q(table.name)} when ${indexed('old')} begin\n  ${markStale('old')}\nend;`,
    `create trigger ${q(`${ftsTable(table.name)}_update`)} after update of ${watched} on ${q(table.name)} begin\n  ${markStale('old')}\n  ${markStale('new')}\nend;`,
    `insert into ${fts} (rowid, ${ftsColumns}) select rowid, ${columns} from ${q(table.name)};`,
    `insert or replace into ${q(SEARCH_STATE)} ("name", "indexed_to") values (${name}, coalesce((select max(rowid) from ${q(table.name)}), 0));`,
  ];
}

function addVector(table: string, field: string): string {
  const column = q(vectorColumn(field));
  return [
    `alter table ${q(table)} add column ${column} tsvector generated always as (${vectorOf(q(field), 'simple')}) stored;`,
    `create index ${q(searchIndexName(table, field))} on ${q(table)} using gin (${column});`,
  ].join('\n');
}

/** PostgreSQL's GIN index of a searched field's vector (the runtime's search-language.ts names it so too). */
export function searchIndexName(table: string, field: string): string {
  return identifier(`${table}_${field}_search_idx`, 'postgres');
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

// --- migrations -----------------------------------------------------------------------------------

type Alter = Extract<TableChange, { kind: 'alter' }>;

/**
 * The altered tables whose search objects a migration rebuilds: what they index changed, or the
 * table changes under them in a way they cannot follow. `tableRebuilt` (SQLite): the migration
 * copies the table into a new one, which gives its rows new rowids and drops its triggers.
 */
export function rebuiltSearches(
  changes: readonly TableChange[],
  tableRebuilt: (change: Alter) => boolean,
): { before: StoredTable; after: StoredTable; change: Alter }[] {
  return changes.flatMap((c) =>
    c.kind === 'alter' && searchRebuilt(c, tableRebuilt) ? [{ before: c.before, after: c.after, change: c }] : [],
  );
}

function searchRebuilt(change: Alter, tableRebuilt: (change: Alter) => boolean): boolean {
  const { before, after } = change;
  if (before.search.length === 0 && after.search.length === 0) return false;
  return !sameSearch(before, after) || before.name !== after.name || tableRebuilt(change);
}

/** SQLite keeps the index another way than the earlier version did (`SEARCH_INDEX`): it is rebuilt. */
export function searchIndexChanged(before: StoredTable, after: StoredTable): boolean {
  return before.search.length > 0 && after.search.length > 0 && before.searchIndex !== after.searchIndex;
}

/**
 * PostgreSQL cannot change the type of a column a vector is generated from: the vectors go first.
 * Other changes of a searched column (required, unique, indexed) leave its vector as it is; a
 * rename changes what is searched, which rebuilds them anyway.
 */
export function vectorSourceChanged(change: Alter): boolean {
  return change.columns.some(
    (c) => c.kind === 'change' && c.aspects.has('type') && change.before.search.includes(c.before.name),
  );
}

/**
 * PostgreSQL: the statements that change a rebuilt search's vectors, one column per field. Those
 * of fields no longer searched, or whose column changes type (which PostgreSQL refuses under a
 * vector), go first; those of fields newly searched, or retyped, come last; the others stay, since
 * each vector dropped or added rewrites the table under an exclusive lock (a new-user probe's CRM
 * had every vector of its deals dropped and made again for one new searched field). A renamed
 * table, or a renamed field, has its vectors made again: their indexes are named by both.
 */
export function vectorChanges(change: Alter): { readonly drop: string[]; readonly add: string[] } {
  const { before, after } = change;
  if (before.name !== after.name) return { drop: dropSearch(before, 'postgres'), add: createSearch(after, 'postgres') };
  // A name that stays may still be another column: a field dropped and another renamed onto its name.
  const [leaving, arriving] = [new Set<string>(), new Set<string>()];
  for (const c of change.columns) {
    if (c.kind === 'drop') leaving.add(c.column.name);
    else if (c.kind === 'add') arriving.add(c.column.name);
    else if (c.aspects.has('name') || c.aspects.has('type')) {
      leaving.add(c.before.name);
      arriving.add(c.after.name);
    }
  }
  const kept = (field: string) =>
    before.search.includes(field) && after.search.includes(field) && !leaving.has(field) && !arriving.has(field);
  return {
    drop: dropVectors(
      before.name,
      before.search.filter((f) => !kept(f)),
    ),
    add: after.search.filter((f) => !kept(f)).map((f) => addVector(after.name, f)),
  };
}

/** The same fields searched, in the same order. */
export function sameSearch(a: StoredTable, b: StoredTable): boolean {
  return a.search.join(',') === b.search.join(',');
}

/** The MongoDB steps for a table's words: fill and index them, or drop them. */
export function wordSteps(table: StoredTable): MongoStep[] {
  if (table.search.length === 0) return [{ op: 'dropWords', collection: table.name }];
  const paths = new Map(table.columns.map((c) => [c.name, c.documentPath]));
  return [
    {
      op: 'indexWords',
      collection: table.name,
      fields: Object.fromEntries(table.search.map((f) => [f, paths.get(f) ?? f])),
    },
  ];
}
