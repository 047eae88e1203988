/**
 * The storage model of a version of the API (its shape: outdir/storage-model.ts): what the
 * databases hold, as plain data. svcgen keeps it in the generated project (`src/db/storage.json`)
 * so that the next run can compare the new API's storage with it and write a migration for the
 * difference.
 */
import type { Field, Model, ServiceIR } from '../../../ir/types.js';
import {
  SEARCH_INDEX,
  STORAGE_FORMAT,
  type Fill,
  type StorageModel,
  type StoredColumn,
  type StoredLink,
  type StoredTable,
} from '../../../outdir/storage-model.js';
import type { FieldTypes } from '../../shared/field-types.js';
import { holdsKey } from '../../../ir/links.js';
import { searchFields } from '../../shared/search.js';

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
    ...(model.uniqueTogether.length ? { uniques: model.uniqueTogether.map((set) => [...set]) } : {}),
    ...(linksKeptElsewhere(model).length ? { links: linksKeptElsewhere(model) } : {}),
  };
}

/** The relationships whose foreign key is in other rows (the other model's): their names are in the model's events. */
function linksKeptElsewhere(model: Model): StoredLink[] {
  return model.relationships
    .filter((r) => !holdsKey(model, r))
    .map((r) => ({ name: r.name, renamedFrom: model.fields.find((f) => f.name === r.name)?.renamedFrom ?? null }));
}

function storedColumn(model: Model, field: Field, types: FieldTypes): StoredColumn {
  const generated = field.primaryKey && field.type === 'id_field';
  const fk = field.foreignKey;
  // A one-to-one link is unique: one object on each side.
  const unique = (field.unique || types.isOneToOneLink(model, field)) && !field.primaryKey;
  return {
    name: field.name,
    type: field.type,
    sqlite: generated ? 'integer' : types.sqlType(model, field, 'sqlite'),
    postgres: generated ? 'integer' : types.sqlType(model, field, 'postgres'),
    primaryKey: field.primaryKey,
    generated,
    notNull: field.required || field.primaryKey,
    unique,
    indexed: field.index && !field.primaryKey && !unique,
    fill: fillOf(field),
    references: fk
      ? { table: fk.model.toLowerCase(), column: fk.column, onDelete: fk.onDelete, onUpdate: fk.onUpdate }
      : null,
    documentPath: documentPath(model, field),
    renamedFrom: field.renamedFrom,
    ...(field.type === 'list' && field.itemType ? { items: field.itemType } : {}),
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
