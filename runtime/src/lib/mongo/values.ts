/**
 * Field values between the service and MongoDB documents. Nulls are not stored (a field that is
 * null is absent), so that unique indexes, which are sparse, let many objects have no value, as
 * SQL unique columns do. Datetimes are BSON dates, lists arrays, other JSON (dicts) text.
 */
import type { FieldSpec, Model } from '../model.js';
import { fromDb, toDb } from '../values.js';

/** A service value, as a document stores it (undefined: not stored). */
export function toMongo(value: unknown, field: FieldSpec): unknown {
  if (value === null || value === undefined) return undefined;
  if (field.type === 'list') return value;
  // Whole numbers from query strings compare as numbers (SQL converts them the same way).
  if (field.storage === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  // As PostgreSQL would store it (booleans, rounded decimals, normalised times, dict text, bytes)…
  const stored = toDb(value, field, 'postgres');
  // …but datetimes as BSON dates, which sort and compare as times.
  return field.storage === 'datetime' && typeof stored === 'string' ? new Date(stored) : stored;
}

/** A stored value, as the service shows it. */
export function fromMongo(value: unknown, field: FieldSpec): unknown {
  if (value === null || value === undefined) return fromDb(null, field);
  const binary = value as { _bsontype?: string; buffer?: Uint8Array };
  if (binary._bsontype === 'Binary' && binary.buffer) return fromDb(Buffer.from(binary.buffer), field);
  return fromDb(value, field);
}

/**
 * Where a column's value lives in a document: the key in `_id`, a to-one relationship's key under
 * the relationship's name, any other column under its own name (`MongoRepository.pathOfColumn`).
 */
export function documentPath(model: Model, column: string): string {
  if (column === model.field(model.primaryKey)?.column) return '_id';
  return model.relations.find((r) => r.local && r.foreignKey === column)?.name ?? column;
}
