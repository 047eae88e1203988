/**
 * The repository interface every model has on every engine, shaped like Prisma
 * Client: `findMany({ where, orderBy, skip, take, select, include })`, `create({ data })`, …
 * Routes, handlers (`event.db`) and tests use only this.
 */
import type { FieldSpec, Model, RelationSpec } from './model.js';
import type { SearchFilter } from './search.js';
import { isFilterOperator, type FilterOperator } from './query-operators.js';
import { text } from './text.js';

export type Scalar = string | number | boolean | null;

/** Conditions on one field. Several in one object must all hold. */
export interface FieldFilter<V = Scalar> {
  equals?: V | null;
  not?: V | null | FieldFilter<V>;
  in?: readonly V[];
  notIn?: readonly V[];
  gt?: V;
  gte?: V;
  lt?: V;
  lte?: V;
  /** Substring, case-insensitive. */
  contains?: string;
  startsWith?: string;
  /** For list fields and to-many relationships: holds this value (a missing list holds nothing). */
  has?: V;
  /** For list fields and to-many relationships: holds at least one of these values. */
  hasSome?: readonly V[];
}

/** Every key of `FieldFilter` (lib/query-operators.ts): an object of only these keys is a filter, not a value. */
export { FILTER_OPERATORS, type FilterOperator } from './query-operators.js';

/**
 * Whether a field's condition is a `FieldFilter` (an object of only its operators) rather than a
 * value it equals. A `Date` is a value: it has no keys of its own, which would make it a filter of
 * no condition at all, and the condition would select every object.
 */
export function isFieldFilter(value: unknown): value is FieldFilter<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    Object.keys(value).every(isFilterOperator)
  );
}

/** `FieldFilter` has exactly the conditions of the operators' table, or this does not compile. */
export type FieldFilterIsTheTable = Holds<Same<keyof FieldFilter, FilterOperator>>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

/**
 * Conditions on a model: field conditions are ANDed; `AND`, `OR` and `NOT` combine whole
 * conditions; `SEARCH` is full-text search. A `findMany` without `orderBy` whose `where` searches
 * (at its top, or in its top-level `AND`s) returns the best matches first.
 *
 * As in SQL (and Prisma), a comparison with a null is neither true nor false, and neither it nor
 * its `NOT` matches: `NOT: { owner: 'ann' }` leaves out objects without an owner. `EXCEPT` is the
 * objects the condition does not select, those included.
 */
export type Where<T> = { [K in keyof T]?: FilterOf<T[K]> } & {
  AND?: readonly Where<T>[];
  OR?: readonly Where<T>[];
  NOT?: Where<T> | readonly Where<T>[];
  EXCEPT?: Where<T>;
  SEARCH?: SearchFilter;
};

// Fields of unknown type (generic code over any model) take any condition. Not distributed over a
// union: a choice's `in: ['pending', 'approved']` is one filter of the whole union, not a filter of
// each of its values (which no list of two would fit).
type FilterOf<V> = unknown extends V
  ? unknown
  : [NonNullable<V>] extends [readonly (infer I)[]]
    ? I | FieldFilter<I>
    : [V] extends [Scalar]
      ? V | FieldFilter<V>
      : never;

/**
 * On a filter of a relationship kept in the other model's rows, the related objects it may look
 * at: only those this condition selects (the ones the caller may view, lib/http/hidden-links.ts).
 * A symbol, so that it is nothing a client's query or a typed `where` can name.
 */
export const RELATED_AMONG = Symbol('related among');

/** The condition `RELATED_AMONG` put on `filter`, if any. */
export function relatedAmong(filter: object): Where<Record<string, unknown>> | undefined {
  return (filter as { [RELATED_AMONG]?: Where<Record<string, unknown>> })[RELATED_AMONG];
}

/** A condition on a related object's key: `has` and `hasSome` ask for one key, or one of several. */
export function relatedKeyFilter(op: string, operand: unknown): FieldFilter<unknown> {
  if (op === 'has') return { equals: operand };
  if (op === 'hasSome') return { in: operand as unknown[] };
  return { [op]: operand };
}

export type OrderBy<T> = { [K in keyof T]?: 'asc' | 'desc' };

/** Relationships to load: `true` gives the related keys, `{ include }` the related objects. */
export type Include<T> = { [K in keyof T]?: true | { include?: Record<string, unknown> } };

export interface FindManyArgs<T> {
  where?: Where<T>;
  orderBy?: OrderBy<T> | readonly OrderBy<T>[];
  skip?: number;
  take?: number;
  /** Only these fields (the primary key is always included). */
  select?: { [K in keyof T]?: boolean };
  include?: Include<T>;
}

export interface Repository<T, Create = Partial<T>, Update = Partial<T>> {
  findMany(args?: FindManyArgs<T>): Promise<T[]>;
  findFirst(args?: FindManyArgs<T>): Promise<T | null>;
  findUnique(args: { where: Partial<T>; include?: Include<T>; select?: FindManyArgs<T>['select'] }): Promise<T | null>;
  count(args?: { where?: Where<T> }): Promise<number>;
  create(args: { data: Create; include?: Include<T> }): Promise<T>;
  /** Throws `RecordNotFound` when nothing matches. */
  update(args: { where: Partial<T>; data: Update; include?: Include<T> }): Promise<T>;
  updateMany(args: { where?: Where<T>; data: Update }): Promise<{ count: number }>;
  /** Throws `RecordNotFound` when nothing matches. */
  delete(args: { where: Partial<T> }): Promise<T>;
  deleteMany(args?: { where?: Where<T> }): Promise<{ count: number }>;
}

/**
 * The objects each relationship kept in the other model's rows had linked when the route's write
 * read them (http/moved-links.ts: to check the caller's rights to move them, run their handlers and
 * record their events): the write then unlinks none but those. One that a concurrent write linked
 * since (a create naming this object, committed meanwhile) stays linked, as if it came after this
 * write; unlinked too, it changed with no event, no handler and no check (a probe's PostgreSQL race:
 * the event stream said three attendances were still a booking's). Keyed by the write's data object.
 */
const linkedWhenRead = new WeakMap<object, ReadonlyMap<string, ReadonlySet<string>>>();

/** `data`, written next, unlinks by each relationship (by name) only the keys (as text) of `linked`. */
export function unlinkOnly(data: object, linked: ReadonlyMap<string, ReadonlySet<string>>): void {
  linkedWhenRead.set(data, linked);
}

/** Whether the write of `data` may unlink `key` (as text) from its relationship `relation`. */
export function mayUnlink(data: object, relation: string, key: string): boolean {
  return linkedWhenRead.get(data)?.get(relation)?.has(key) ?? true;
}

/**
 * The keys (as text) the write of `data` would link by `relation` that were linked when it read
 * them and are no longer: a concurrent write moved them away since. Linked back now, they would move
 * without their rights checked, their old owner's event, or their rows locked in order (a probe's
 * concurrent PATCHes of two rooms' `bookings` deadlocked on PostgreSQL, 503s): the write runs again
 * instead (`retryableConflict`), and reads them where they are now.
 */
export function movedSinceRead(
  data: object,
  relation: string,
  wanted: Iterable<string>,
  linked: ReadonlySet<string>,
): string[] {
  const read = linkedWhenRead.get(data)?.get(relation);
  return read ? [...wanted].filter((key) => read.has(key) && !linked.has(key)) : [];
}

/** PostgreSQL's serialization_failure: the transaction is undone and run again (executor.ts `retried`). */
export function retryableConflict(message: string): Error {
  return Object.assign(new Error(message), { code: '40001' });
}

/** `update` or `delete` found nothing to change. */
export class RecordNotFound extends Error {
  constructor(
    readonly model: string,
    readonly key: unknown,
  ) {
    super(`${model} ${String(key)} not found`);
    this.name = 'RecordNotFound';
  }
}

/** A write broke a unique or foreign-key constraint. */
export class ConstraintViolation extends Error {
  constructor(
    /** `invalid`: a value the column cannot hold (too long, out of range) that validation let through. */
    readonly kind: 'unique' | 'foreign_key' | 'not_null' | 'invalid',
    readonly fields: readonly string[],
    message: string,
  ) {
    super(message);
    this.name = 'ConstraintViolation';
  }
}

/**
 * A whole number beyond what its integer field holds, written through a repository (a handler's
 * `quantity + delta`): refused naming the field on every engine, where PostgreSQL refused it
 * unnamed and SQLite stored it (a probe's 4294967294 in a 32-bit quantity, served past the
 * maximum its schema declares).
 */
export function checkRange(field: FieldSpec, value: unknown): void {
  const range = field.range;
  if (!range || typeof value !== 'number' || (value >= range[0] && value <= range[1])) return;
  throw new ConstraintViolation(
    'invalid',
    [field.name],
    `${field.name}: ${value} is outside what the field holds (${range[0]} to ${range[1]})`,
  );
}

/** A relationship write names objects that do not exist. */
export class UnknownReference extends Error {
  constructor(
    readonly field: string,
    readonly model: string,
    readonly keys: readonly unknown[],
  ) {
    super(`${model} ${namedKeys(keys)} not found`);
    this.name = 'UnknownReference';
  }
}

/** The keys an answer names at most: a body of 70,000 unknown keys was answered with all of them, twice. */
const NAMED_KEYS = 20;

/**
 * `1, 2, 3`, or the first NAMED_KEYS of them and how many more; each once, as its text (a probe's
 * `[77, 77, "77"]` was "Visit 77, 77, 77 not found").
 */
export function namedKeys(keys: readonly unknown[]): string {
  const distinct = [...new Set(keys.map(String))];
  const named = distinct.slice(0, NAMED_KEYS).join(', ');
  return distinct.length > NAMED_KEYS ? `${named} and ${distinct.length - NAMED_KEYS} more` : named;
}

/** What checking a relationship's values needs of the related model, on either engine. */
export interface ReferenceTarget {
  /** The key a value stands for, as the database stores it; undefined when it cannot be a key. */
  keyValue(key: unknown): unknown;
  /** Which of `keys` are keys of stored objects (as strings). */
  existing(keys: readonly unknown[]): Promise<Set<string>>;
}

/** Relationship values must name objects that exist: an unknown key is an `UnknownReference` (a 400). */
export async function checkReferences(
  model: Model,
  data: Record<string, unknown>,
  targetOf: (relation: RelationSpec) => ReferenceTarget,
): Promise<void> {
  for (const relation of model.relations) {
    const value = data[relation.name];
    if (value === undefined || value === null) continue;
    const keys = Array.isArray(value) ? value : [value];
    if (keys.length === 0) continue;
    const target = targetOf(relation);
    const valid = keys.map((k) => target.keyValue(k));
    const have = await target.existing(valid.filter((k) => k !== undefined));
    const missing = keys.filter((_, i) => valid[i] === undefined || !have.has(text(valid[i])));
    if (missing.length) throw new UnknownReference(relation.name, relation.target, missing);
  }
}

/**
 * Sets `relation` on each record from related objects that hold its key in `ownerField` (a
 * relationship kept on the other side, read for a whole page): a list, or the one object or null.
 * `asObjects`: the related objects themselves, else their keys (`targetKey`).
 */
export function attachRelated(
  records: Record<string, unknown>[],
  related: readonly Record<string, unknown>[],
  how: { relation: RelationSpec; key: string; ownerField: string; targetKey: string; asObjects: boolean },
): void {
  const groups = new Map<string, unknown[]>();
  for (const o of related) {
    const owner = String(o[how.ownerField]);
    const group = groups.get(owner) ?? [];
    group.push(how.asObjects ? o : o[how.targetKey]);
    groups.set(owner, group);
  }
  for (const r of records) {
    const list = groups.get(String(r[how.key])) ?? [];
    r[how.relation.name] = how.relation.cardinality === 'many' ? list : (list[0] ?? null);
  }
}
