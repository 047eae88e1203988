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
  if (typeof value === 'string') return parse(field, value);
  return typeof value === 'number' || typeof value === 'boolean' ? parse(field, String(value)) : undefined;
}

/**
 * The objects that come after the cursor in the page's order: for sort fields a, b and key k,
 * `a after va, or a = va and b after vb, or a = va and b = vb and k after vk`. Where nulls come is
 * the engine's (`nullsLast`: after every value in ascending order, as on PostgreSQL; first, as on
 * SQLite and MongoDB), the order the page itself was read in.
 */
export function afterCursor(model: Model, sort: Ordering, cursor: Cursor, nullsLast: boolean): Where<Rec> {
  const order = keyOrder(model, sort);
  const branches: Where<Rec>[] = [];
  for (const [i, [name, direction]] of order.entries()) {
    // The key is never null: `or key is null` would only keep PostgreSQL from seeking its index.
    const nullsAfter = name !== model.primaryKey && (direction === 'asc' ? nullsLast : !nullsLast);
    const beyond = comesAfter(name, cursor.values[i], nullsAfter, direction);
    if (beyond === false) continue;
    const equal = order.slice(0, i).map(([before], j): Where<Rec> => ({ [before]: cursor.values[j] as never }));
    const all = [...equal, beyond];
    branches.push(all.length === 1 ? all[0]! : { AND: all });
  }
  // One condition alone, not an OR of one: by the key alone it is a plain comparison, whose page
  // is a statement compiled once (lib/sql/repository.ts plainConditions).
  if (branches.length === 1) return branches[0]!;
  return branches.length ? { OR: branches } : { [model.primaryKey]: { in: [] } };
}

/**
 * The condition "comes after `value`" on one field, or false when nothing does. `nullsAfter`:
 * whether, in this direction, nulls come after every value.
 */
function comesAfter(name: string, value: unknown, nullsAfter: boolean, direction: 'asc' | 'desc'): Where<Rec> | false {
  if (value === null) return nullsAfter ? false : { [name]: { not: null } };
  const beyond: FieldFilter<never> = direction === 'asc' ? { gt: value as never } : { lt: value as never };
  return nullsAfter ? { OR: [{ [name]: beyond }, { [name]: null }] } : { [name]: beyond };
}
