/**
 * Keyset paging: `_after=<cursor>` starts a page right after the object the cursor names, in the
 * page's `_sort` order (then the primary key), so a deep page costs what the first one does — no
 * rows are read and thrown away, as `_start=500000` must. Every page that has a next one names it
 * in `next`, with the cursor of its last object.
 *
 * A cursor is opaque to clients: base64url of `[sort, start, ...values]`, the `_sort` it was made
 * under (another `_sort` is a 400, not a page of something else), the offset the next page starts
 * at (reported as its `start`), and the last object's values of the sort fields and its key. The
 * values are parsed again by their fields' types, as filter values are, and only ever become bound
 * parameters of conditions ANDed with the caller's others: a forged cursor is a 400 or another
 * starting point, never a way around a filter or an ACL.
 */
import type { FieldSpec, Model, ModelRegistry } from '../model.js';
import type { FieldFilter, Where } from '../repository.js';
import { isStorable } from './request-shape.js';

type Rec = Record<string, unknown>;
export type Ordering = readonly Readonly<Record<string, 'asc' | 'desc'>>[];

/** Where a cursor points: after the object with these values of the ordering's fields. */
export interface Cursor {
  /** The offset of the page it starts (for `start`). */
  readonly start: number;
  /** The values of `keyOrder(model, sort)`'s fields, in that order. */
  readonly values: readonly unknown[];
}

/** The full order of a page: the `_sort` fields, then the primary key (as every engine orders). */
export function keyOrder(model: Model, sort: Ordering): [name: string, direction: 'asc' | 'desc'][] {
  const order = sort.flatMap((entry) => Object.entries(entry));
  return order.some(([name]) => name === model.primaryKey) ? order : [...order, [model.primaryKey, 'asc']];
}

/** `_sort` as a cursor records it: `-created_at,id`. */
export function sortText(sort: Ordering): string {
  return keyOrderText(sort.flatMap((entry) => Object.entries(entry)));
}

function keyOrderText(order: readonly (readonly [string, string])[]): string {
  return order.map(([name, direction]) => (direction === 'desc' ? `-${name}` : name)).join(',');
}

/** The cursor of the page after `last` (a record as the repository read it), which starts at offset `start`. */
export function encodeCursor(model: Model, sort: Ordering, last: Rec, start: number, models: ModelRegistry): string {
  const values = keyOrder(model, sort).map(([name]) => storedValue(model, name, last[name], models));
  return Buffer.from(JSON.stringify([sortText(sort), start, ...values])).toString('base64url');
}

/** A related object embedded in the page stands for its key. */
function storedValue(model: Model, name: string, value: unknown, models: ModelRegistry): unknown {
  const relation = model.relation(name);
  if (relation && value !== null && typeof value === 'object') {
    const target = models.get(relation.target);
    return target ? ((value as Rec)[target.primaryKey] ?? null) : null;
  }
  return value ?? null;
}

/**
 * The cursor `text` names, or the reason it cannot be one. `parse` reads a value by its field's
 * type, as a filter value is read (undefined: it does not parse).
 */
export function decodeCursor(
  model: Model,
  sort: Ordering,
  text: string,
  parse: (field: FieldSpec, text: string) => unknown,
): Cursor | string {
  let decoded: unknown;
  try {
    decoded = /^[\w-]{1,4000}$/.test(text) ? JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) : undefined;
  } catch {
    decoded = undefined;
  }
  if (!Array.isArray(decoded) || typeof decoded[0] !== 'string') return 'is not a cursor this service gave';
  const [sorted, start, ...raw] = decoded as unknown[];
  if (sorted !== sortText(sort)) return `was made for _sort=${String(sorted)}: give the same _sort, or start again`;
  const order = keyOrder(model, sort);
  if (!Number.isSafeInteger(start) || (start as number) < 0 || raw.length !== order.length)
    return 'is not a cursor this service gave';
  const values: unknown[] = [];
  for (const [i, [name]] of order.entries()) {
    const value = valueOf(model.field(name), raw[i], parse);
    if (value === undefined) return 'is not a cursor this service gave';
    values.push(value);
  }
  // The key makes the position unique: it is never null.
  if (values[order.findIndex(([name]) => name === model.primaryKey)] === null)
    return 'is not a cursor this service gave';
  return { start: start as number, values };
}

/** A cursor's value of a field, parsed as a filter value is; undefined when it is not one. */
function valueOf(
  field: FieldSpec | undefined,
  value: unknown,
  parse: (field: FieldSpec, text: string) => unknown,
): unknown {
  if (value === null) return null;
  if (!field) return undefined;
  // Decoded from the client's base64, past the request's check for text no database keeps.
  if (typeof value === 'string') return isStorable(value) ? parse(field, value) : undefined;
  return typeof value === 'number' || typeof value === 'boolean' ? parse(field, String(value)) : undefined;
}

/**
 * The objects that come after the cursor in the page's order, as conditions to read one after the
 * other: every object the first selects comes before every one the second does, so a page reads
 * the next only while it is short. Where nulls come is the engine's (`nullsLast`: after every value
 * in ascending order, as on PostgreSQL; first, as on SQLite and MongoDB), the order the page itself
 * was read in.
 *
 * For sort fields a, b and key k the first is `a >= va and (a > va or <after vb, vk>)`: its leading
 * comparison is a range an index on `a` seeks to, where the equivalent `a > va or a = va and …`
 * makes PostgreSQL read the index from its start (200 ms instead of 0.3 at row 500,000 of a
 * million). The nulls of `a` that come after every value are the second condition, not an `or a
 * is null` in the first, which would keep the index from seeking as well.
 */
export function afterCursor(model: Model, sort: Ordering, cursor: Cursor, nullsLast: boolean): Where<Rec>[] {
  const order = keyOrder(model, sort).map(([name, direction], i) => ({
    name,
    direction,
    value: cursor.values[i],
    // The key is never null: `or key is null` would only keep PostgreSQL from seeking its index.
    nullsAfter: name !== model.primaryKey && (direction === 'asc' ? nullsLast : !nullsLast),
    key: name === model.primaryKey,
  }));
  return segmentsAfter(order);
}

interface Position {
  readonly name: string;
  readonly direction: 'asc' | 'desc';
  readonly value: unknown;
  readonly nullsAfter: boolean;
  readonly key: boolean;
}

/** The conditions, in order, of what comes after `order[0]`'s value among objects equal on the fields before it. */
function segmentsAfter(order: readonly Position[]): Where<Rec>[] {
  const [first, ...others] = order;
  if (!first) return [];
  const { name, direction, value, nullsAfter } = first;
  const beyond: FieldFilter<never> = direction === 'asc' ? { gt: value as never } : { lt: value as never };
  // Past the key nothing is equal to the cursor's object but itself. By the key alone the page's
  // condition is one plain comparison, a statement compiled once (lib/sql/repository.ts plainConditions).
  if (first.key) return [{ [name]: beyond }];
  const rest = anyOf(segmentsAfter(others));
  if (value === null) {
    const tied = rest ? [{ AND: [{ [name]: null }, rest] }] : [];
    return nullsAfter ? tied : [...tied, { [name]: { not: null } }];
  }
  const from: FieldFilter<never> = direction === 'asc' ? { gte: value as never } : { lte: value as never };
  const main = rest ? { AND: [{ [name]: from }, { OR: [{ [name]: beyond }, rest] }] } : { [name]: beyond };
  return nullsAfter ? [main, { [name]: null }] : [main];
}

/** Conditions as one: an OR of several, the one alone, or none. */
function anyOf(conditions: readonly Where<Rec>[]): Where<Rec> | undefined {
  if (conditions.length <= 1) return conditions[0];
  return { OR: [...conditions] };
}
