/**
 * The storage model: what the databases hold for a version of the API, as plain data. svcgen
 * keeps it in the generated project (`src/db/storage.json`) so that the next run can compare
 * the new API's storage with it and write a migration for the difference. It has
 * only what the schema depends on: tables, columns, their SQL types, constraints and links.
 */
import type { Field, FieldType, Literal, Model, ReferentialAction, ServiceIR } from '../../ir/types.js';
import type { FieldTypes } from '../field-types.js';
import { holdsKey } from '../model-file.js';
import { searchFields } from '../search.js';

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
  /** What existing rows get when the column is added or made required: a literal, the time, or nothing known. */
  readonly fill: Fill;
  readonly references: Reference | null;
  /** Where a MongoDB document keeps the value: `_id` for the key, the relationship's name for a link. */
  readonly documentPath: string;
  /** The `renamed_from` hint this version was generated with: applied once, then kept only as history. */
  readonly renamedFrom: string | null;
}

export type Fill =
  { readonly kind: 'literal'; readonly value: Literal } | { readonly kind: 'now' } | { readonly kind: 'none' };

export interface Reference {
  readonly table: string;
  readonly column: string;
  readonly onDelete: ReferentialAction;
  readonly onUpdate: ReferentialAction;
}

export function storageModel(ir: ServiceIR, types: FieldTypes): StorageModel {
  const tables = ir.models
    .map((m) => storedTable(m, types))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { format: STORAGE_FORMAT, tables };
}

/** Fields that are columns: everything but relationships (kept in foreign keys). */
export function storedFields(model: Model): Field[] {
  return model.fields.filter((f) => f.type !== 'relationship');
}

function storedTable(model: Model, types: FieldTypes): StoredTable {
  return {
    name: model.table,
    model: model.name,
    columns: storedFields(model).map((f) => storedColumn(model, f, types)),
    renamedFrom: model.renamedFrom?.toLowerCase() ?? null,
    search: searchFields(model).map((f) => f.name),
    searchIndex: SEARCH_INDEX,
  };
}

function storedColumn(model: Model, field: Field, types: FieldTypes): StoredColumn {
  const generated = field.primaryKey && field.type === 'id_field';
  const fk = field.foreignKey;
  return {
    name: field.name,
    type: field.type,
    sqlite: generated ? 'integer' : types.sqlType(model, field, 'sqlite'),
    postgres: generated ? 'integer' : types.sqlType(model, field, 'postgres'),
    primaryKey: field.primaryKey,
    generated,
    notNull: field.required || field.primaryKey,
    // A one-to-one link is unique: one object on each side.
    unique: (field.unique || types.isOneToOneLink(model, field)) && !field.primaryKey,
    fill: fillOf(field),
    references: fk
      ? { table: fk.model.toLowerCase(), column: fk.column, onDelete: fk.onDelete, onUpdate: fk.onUpdate }
      : null,
    documentPath: documentPath(model, field),
    renamedFrom: field.renamedFrom,
  };
}

function fillOf(field: Field): Fill {
  const source = field.default;
  if (source?.kind === 'literal' && source.value !== null) return { kind: 'literal', value: source.value };
  if (source?.kind === 'now') return { kind: 'now' };
  return { kind: 'none' };
}

/** As the MongoDB engine names it (lib/mongo/repository.ts documentPath). */
function documentPath(model: Model, field: Field): string {
  if (field.primaryKey) return '_id';
  const link = model.relationships.find((r) => holdsKey(model, r) && r.foreignKey.field === field.name);
  return link ? link.name : field.name;
}
