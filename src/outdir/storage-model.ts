/**
 * The storage model, as `src/db/storage.json` holds it: what the databases hold for a version of
 * the API, only what the schema depends on (tables, columns, their SQL types, constraints and
 * links). The plan makes it (plan/migrations/storage/model.ts); this reads it back from the
 * out-dir, which may come from a pull request: every value is checked before any of it reaches a
 * migration. Names must be identifiers and SQL types must look like types, so a tampered file
 * cannot put SQL of its own into the next migration.
 */
import { FIELD_TYPES, type FieldType, type Literal, type ReferentialAction } from '../ir/types.js';

/** Raised when the shape of storage.json changes in a way old files cannot be read as. */
export const STORAGE_FORMAT = 1;

/**
 * How SQLite's search index is kept (storage/search.ts): 1, in step with every write by FTS5
 * triggers (svcgen before 2026-11-22); 2, caught up in batches by the service, the writes only
 * marking what changed. Storage files without it were written by version 1.
 */
export const SEARCH_INDEX = 2;

export interface StorageModel {
  readonly format: typeof STORAGE_FORMAT;
  /** Sorted by name. */
  readonly tables: readonly StoredTable[];
}

export interface StoredTable {
  /** The table or collection: the lower-cased model name. */
  readonly name: string;
  readonly model: string;
  /** In the schema's order. */
  readonly columns: readonly StoredColumn[];
  /** The `_renamed_from` hint (as a table name) this version was generated with: applied once, then kept only as history. */
  readonly renamedFrom: string | null;
  /** The columns full-text search indexes (storage/search.ts), in the schema's order; none: no search index. */
  readonly search: readonly string[];
  /** How SQLite keeps that index (`SEARCH_INDEX`): a change rebuilds it in the next migration. */
  readonly searchIndex: number;
  /**
   * `_unique_together`: sets of columns no two rows share all values of (`uniquesOf`). Left out
   * where there are none, as in files written before svcgen had them.
   */
  readonly uniques?: readonly (readonly string[])[];
  /**
   * The relationships kept in other tables' rows (a trip's `days`, whose foreign key is in `day`):
   * no column here, but a name the model's kept events use, which a rename renames. Left out where
   * there are none, as in files written before svcgen kept them (`linksOf`).
   */
  readonly links?: readonly StoredLink[];
}

export interface StoredLink {
  readonly name: string;
  /** The `renamed_from` hint this version was generated with: applied once, then kept only as history. */
  readonly renamedFrom: string | null;
}

/** The table's relationships kept in other tables' rows (none where the file says none). */
export function linksOf(table: StoredTable): readonly StoredLink[] {
  return table.links ?? [];
}

/** The table's unique sets of columns (none where the file says none). */
export function uniquesOf(table: StoredTable): readonly (readonly string[])[] {
  return table.uniques ?? [];
}

export interface StoredColumn {
  readonly name: string;
  /** The field type of the API, for telling widening from narrowing. */
  readonly type: FieldType;
  readonly sqlite: string;
  readonly postgres: string;
  readonly primaryKey: boolean;
  /** A generated integer key (`id_field`): autoincrement / identity. */
  readonly generated: boolean;
  readonly notNull: boolean;
  /** Unique values (a unique field, or the key of a one-to-one link); not set on primary keys. */
  readonly unique: boolean;
  /**
   * An index asked for by `_db_settings.index`; not set where the key or a unique constraint
   * indexes the column already. (A foreign key column is indexed whatever this says.)
   */
  readonly indexed: boolean;
  /** What existing rows get when the column is added or made required: a literal, the time, or nothing known. */
  readonly fill: Fill;
  readonly references: Reference | null;
  /** Where a MongoDB document keeps the value: `_id` for the key, the relationship's name for a link. */
  readonly documentPath: string;
  /** The `renamed_from` hint this version was generated with: applied once, then kept only as history. */
  readonly renamedFrom: string | null;
  /** Of a `list`, the type of its items (absent in files written before svcgen kept it). */
  readonly items?: string;
}

export type Fill =
  { readonly kind: 'literal'; readonly value: Literal } | { readonly kind: 'now' } | { readonly kind: 'none' };

export interface Reference {
  readonly table: string;
  readonly column: string;
  readonly onDelete: ReferentialAction;
  readonly onUpdate: ReferentialAction;
}

/** The model, or what is wrong with the text (a sentence naming the place). */
export function parseStorageModel(text: string): StorageModel | { readonly problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { problem: `it is not JSON (${(error as Error).message})` };
  }
  try {
    return storage(data);
  } catch (error) {
    if (error instanceof ShapeError) return { problem: error.message };
    throw error;
  }
}

class ShapeError extends Error {}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SQL_TYPE = /^[a-z][a-z ]*(\(\d+(, \d+)?\))?$/;
const ACTIONS: readonly ReferentialAction[] = ['cascade', 'restrict', 'nullify'];

function fail(where: string, what: string): never {
  throw new ShapeError(`${where} ${what}`);
}

function object(value: unknown, where: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'must be an object');
  const extra = Object.keys(value).filter((k) => !keys.includes(k));
  if (extra.length) fail(where, `has unknown keys: ${extra.join(', ')}`);
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string, pattern: RegExp): string {
  if (typeof value !== 'string' || !pattern.test(value)) fail(where, `must match ${pattern}`);
  return value;
}

function flag(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') fail(where, 'must be true or false');
  return value;
}

function storage(data: unknown): StorageModel {
  const root = object(data, 'the file', ['format', 'tables']);
  if (root['format'] !== STORAGE_FORMAT)
    fail('"format"', `must be ${STORAGE_FORMAT} (written by another version of svcgen?)`);
  if (!Array.isArray(root['tables'])) fail('"tables"', 'must be a list');
  const tables = root['tables'].map((t, i) => table(t, `tables[${i}]`));
  const names = tables.map((t) => t.name);
  if (new Set(names).size !== names.length) fail('"tables"', 'names a table twice');
  return { format: STORAGE_FORMAT, tables };
}

function table(value: unknown, where: string): StoredTable {
  const t = object(value, where, [
    'name',
    'model',
    'columns',
    'renamedFrom',
    'search',
    'searchIndex',
    'uniques',
    'links',
  ]);
  if (!Array.isArray(t['columns'])) fail(`${where}.columns`, 'must be a list');
  const columns = t['columns'].map((c, i) => column(c, `${where}.columns[${i}]`));
  if (new Set(columns.map((c) => c.name)).size !== columns.length) fail(`${where}.columns`, 'names a column twice');
  return {
    name: text(t['name'], `${where}.name`, IDENTIFIER),
    model: text(t['model'], `${where}.model`, IDENTIFIER),
    columns,
    renamedFrom: t['renamedFrom'] === null ? null : text(t['renamedFrom'], `${where}.renamedFrom`, IDENTIFIER),
    // Absent in files written before full-text search: nothing indexed yet (the next migration adds it).
    search: t['search'] === undefined ? [] : searchColumns(t['search'], `${where}.search`, columns),
    searchIndex: t['searchIndex'] === undefined ? 1 : searchIndex(t['searchIndex'], `${where}.searchIndex`),
    ...(t['uniques'] === undefined ? {} : { uniques: uniques(t['uniques'], `${where}.uniques`, columns) }),
    ...(t['links'] === undefined ? {} : { links: links(t['links'], `${where}.links`) }),
  };
}

function links(value: unknown, where: string): StoredLink[] {
  if (!Array.isArray(value)) fail(where, 'must be a list');
  const read = value.map((link, i) => {
    const l = object(link, `${where}[${i}]`, ['name', 'renamedFrom']);
    return {
      name: text(l['name'], `${where}[${i}].name`, IDENTIFIER),
      renamedFrom: l['renamedFrom'] === null ? null : text(l['renamedFrom'], `${where}[${i}].renamedFrom`, IDENTIFIER),
    };
  });
  if (new Set(read.map((l) => l.name)).size !== read.length) fail(where, 'names a relationship twice');
  return read;
}

function uniques(value: unknown, where: string, columns: readonly StoredColumn[]): string[][] {
  if (!Array.isArray(value)) fail(where, 'must be a list');
  return value.map((set, i) => {
    const names = searchColumns(set, `${where}[${i}]`, columns);
    if (new Set(names).size !== names.length || names.length < 2)
      fail(`${where}[${i}]`, 'must name two or more different columns');
    return names;
  });
}

function column(value: unknown, where: string): StoredColumn {
  const c = object(value, where, [
    'name',
    'type',
    'sqlite',
    'postgres',
    'primaryKey',
    'generated',
    'notNull',
    'unique',
    'indexed',
    'fill',
    'references',
    'documentPath',
    'renamedFrom',
    'items',
  ]);
  if (!FIELD_TYPES.includes(c['type'] as FieldType)) fail(`${where}.type`, 'must be a field type');
  return {
    name: text(c['name'], `${where}.name`, IDENTIFIER),
    type: c['type'] as FieldType,
    sqlite: text(c['sqlite'], `${where}.sqlite`, SQL_TYPE),
    postgres: text(c['postgres'], `${where}.postgres`, SQL_TYPE),
    primaryKey: flag(c['primaryKey'], `${where}.primaryKey`),
    generated: flag(c['generated'], `${where}.generated`),
    notNull: flag(c['notNull'], `${where}.notNull`),
    unique: flag(c['unique'], `${where}.unique`),
    // Absent in files written before svcgen honoured `index`: no index was asked for.
    indexed: c['indexed'] === undefined ? false : flag(c['indexed'], `${where}.indexed`),
    fill: fill(c['fill'], `${where}.fill`),
    references: c['references'] === null ? null : reference(c['references'], `${where}.references`),
    documentPath: text(c['documentPath'], `${where}.documentPath`, IDENTIFIER),
    renamedFrom: c['renamedFrom'] === null ? null : text(c['renamedFrom'], `${where}.renamedFrom`, IDENTIFIER),
    ...(c['items'] === undefined ? {} : { items: text(c['items'], `${where}.items`, IDENTIFIER) }),
  };
}

function searchIndex(value: unknown, where: string): number {
  if (value !== 1 && value !== SEARCH_INDEX)
    fail(where, `must be 1 or ${SEARCH_INDEX} (written by another version of svcgen?)`);
  return value;
}

function searchColumns(value: unknown, where: string, columns: readonly StoredColumn[]): string[] {
  if (!Array.isArray(value)) fail(where, 'must be a list');
  return value.map((v, i) => {
    const name = text(v, `${where}[${i}]`, IDENTIFIER);
    if (!columns.some((c) => c.name === name)) fail(`${where}[${i}]`, 'must name a column of the table');
    return name;
  });
}

function fill(value: unknown, where: string): Fill {
  const f = object(value, where, ['kind', 'value']);
  if (f['kind'] === 'none' || f['kind'] === 'now') return { kind: f['kind'] };
  if (f['kind'] !== 'literal' || !('value' in f))
    fail(where, 'must be {"kind": "none" | "now"} or {"kind": "literal", "value": …}');
  return { kind: 'literal', value: f['value'] as Literal };
}

function reference(value: unknown, where: string): Reference {
  const r = object(value, where, ['table', 'column', 'onDelete', 'onUpdate']);
  const action = (v: unknown, w: string) =>
    ACTIONS.includes(v as ReferentialAction)
      ? (v as ReferentialAction)
      : fail(w, `must be one of ${ACTIONS.join(', ')}`);
  return {
    table: text(r['table'], `${where}.table`, IDENTIFIER),
    column: text(r['column'], `${where}.column`, IDENTIFIER),
    onDelete: action(r['onDelete'], `${where}.onDelete`),
    onUpdate: action(r['onUpdate'], `${where}.onUpdate`),
  };
}
