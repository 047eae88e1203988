/**
 * Field values between the service and MongoDB documents. Nulls are not stored (a field that is
 * null is absent), so that unique indexes, which are sparse, let many objects have no value, as
 * SQL unique columns do. Datetimes are BSON dates, lists arrays, other JSON (dicts) text.
 */
import type { FieldSpec } from '../model.js';
import { fromDb, parseDatetime, parseTime } from '../values.js';

/** A service value, as a document stores it (undefined: not stored). */
export function toMongo(value: unknown, field: FieldSpec): unknown {
  if (value === null || value === undefined) return undefined;
  switch (field.storage) {
    case 'boolean':
      return Boolean(value);
    case 'integer':
      return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    case 'real':
      return field.scale !== undefined && typeof value === 'number' ? Number(value.toFixed(field.scale)) : value;
    case 'json':
      return field.type === 'list' ? value : JSON.stringify(value);
    case 'datetime': {
      const text = typeof value === 'string' ? parseDatetime(value) : undefined;
      return text ? new Date(text) : value;
    }
    case 'time':
      return typeof value === 'string' ? (parseTime(value) ?? value) : value;
    case 'blob':
      return Buffer.from(String(value), 'base64');
    default:
      return value;
  }
}

/** A stored value, as the service shows it. */
export function fromMongo(value: unknown, field: FieldSpec): unknown {
  if (value === null || value === undefined) return null;
  const binary = value as { _bsontype?: string; buffer?: Uint8Array };
  if (binary._bsontype === 'Binary' && binary.buffer) return fromDb(Buffer.from(binary.buffer), field);
  return fromDb(value, field);
}
