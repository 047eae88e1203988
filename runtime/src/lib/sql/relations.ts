/**
 * Relationships on SQL: loading them into a page of records (one query per relationship, never one
 * per object), checking that the objects a write links to exist, and pointing the objects whose
 * foreign key is in the other table at the object written.
 */
import type { Kysely } from 'kysely';
import type { Model } from '../model.js';
import {
  attachRelated,
  checkReferences as checkEveryReference,
  mayUnlink,
  movedSinceRead,
  retryableConflict,
  type FindManyArgs,
  type Where,
} from '../repository.js';
import type { SqlExecutor } from './executor.js';
import { text } from '../text.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely is used with table names known at run time. */
type Rec = Record<string, unknown>;
type Included = Record<string, true | { include?: Record<string, unknown> }>;

/** What relationships need of the repository of a model (SqlRepository is one). */
export interface RelationSource {
  readonly model: Model;
  readonly ctx: { readonly compiler: Kysely<any> };
  /** The repository of a related model on `executor`. */
  repositoryOf(model: string, executor: SqlExecutor): RelationSource;
  /** A key as the database stores it, or undefined when it cannot be one. */
  keyValue(key: unknown): unknown;
  /** The primary keys of the objects that match. */
  keys(where?: Where<Rec>): Promise<unknown[]>;
  /** The objects whose `field` is one of `values`. */
  findIn(field: string, values: readonly unknown[], args?: FindManyArgs<Rec>): Promise<Rec[]>;
  /** Runs a write, turning constraint errors into `ConstraintViolation`. */
  run<R>(write: () => Promise<R>): Promise<R>;
}

/** Loads relationships for a page of records: one query per relationship. */
export async function includeRelated(
  source: RelationSource,
  executor: SqlExecutor,
  records: Rec[],
  include: Included,
): Promise<void> {
  if (records.length === 0) return;
  for (const [name, how] of Object.entries(include)) {
    const relation = source.model.relation(name);
    if (!relation) continue;
    const target = source.repositoryOf(relation.target, executor);
    if (relation.local) {
      if (typeof how === 'object') {
        const keys = unique(records.map((r) => r[name]).filter((k) => k !== null && k !== undefined));
        const related = await target.findIn(
          target.model.primaryKey,
          keys,
          how.include ? { include: how.include as never } : {},
        );
        const byKey = new Map(related.map((o) => [String(o[target.model.primaryKey]), o]));
        for (const r of records)
          r[name] = r[name] === null || r[name] === undefined ? null : (byKey.get(text(r[name])) ?? null);
      }
      continue;
    }
    // The foreign key is in the target's table: fetch the related objects that point at this page.
    const keys = records.map((r) => r[source.model.primaryKey]);
    const fk = relation.foreignKey;
    const fkField = target.model.columns.find((c) => c.column === fk)!;
    const related = await target.findIn(
      fkField.name,
      keys,
      typeof how === 'object'
        ? how.include
          ? { include: how.include as never }
          : {}
        : { select: { [fkField.name]: true } },
    );
    attachRelated(records, related, {
      relation,
      key: source.model.primaryKey,
      ownerField: fkField.name,
      targetKey: target.model.primaryKey,
      asObjects: typeof how === 'object',
    });
  }
}

/** Relationship values must name objects that exist (an unknown key is a 400); long key lists in slices. */
export function checkReferences(source: RelationSource, executor: SqlExecutor, data: Rec): Promise<void> {
  return checkEveryReference(source.model, data, (relation) => {
    const target = source.repositoryOf(relation.target, executor);
    return {
      keyValue: (key) => target.keyValue(key),
      existing: async (keys) => {
        const have = new Set<string>();
        for (const chunk of chunks(unique(keys)))
          for (const key of await target.keys({ [target.model.primaryKey]: { in: chunk } })) have.add(String(key));
        return have;
      },
    };
  });
}

/** Relationships whose foreign key is in the target's table: point exactly the given objects at `record`. */
export async function linkRelations(
  source: RelationSource,
  executor: SqlExecutor,
  record: Rec,
  data: Rec,
): Promise<void> {
  for (const relation of source.model.relations) {
    if (relation.local || !(relation.name in data) || data[relation.name] === undefined) continue;
    const target = source.repositoryOf(relation.target, executor);
    const value = data[relation.name];
    const wanted = new Set(
      (value === null ? [] : Array.isArray(value) ? value : [value]).map((k) => String(target.keyValue(k))),
    );
    const fk = relation.foreignKey;
    const owner = source.keyValue(record[source.model.primaryKey]);
    const fkField = target.model.columns.find((c) => c.column === fk)!;
    const linked = new Set((await target.keys({ [fkField.name]: owner })).map(String));
    const moved = movedSinceRead(data, relation.name, wanted, linked);
    if (moved.length && executor.dialect === 'postgres')
      throw retryableConflict(`${relation.target} ${moved.join(', ')} moved by another write meanwhile`);
    const dropped = [...linked].filter((k) => !wanted.has(k) && mayUnlink(data, relation.name, k));
    const gained = [...wanted].filter((k) => !linked.has(k));
    await lockInKeyOrder(source, executor, target, [...dropped, ...gained]);
    // Unlink first: a one-to-one link is unique, so the new object can take it only once it is free.
    await setLink(source, executor, target, fk, dropped, null, owner);
    await setLink(source, executor, target, fk, gained, owner);
  }
}

/**
 * PostgreSQL: the rows a write re-links, locked in key order before it changes them. Each of two
 * writes that swap two lists (a team's PATCH of the other's memberships, and the other's of its)
 * unlinked its own rows, then waited for the other's: a deadlock, which the retries met again under
 * a probe's burst (a 503). In one order, the second waits for the first.
 */
async function lockInKeyOrder(
  source: RelationSource,
  executor: SqlExecutor,
  target: RelationSource,
  keys: readonly string[],
): Promise<void> {
  if (executor.dialect !== 'postgres' || keys.length < 2) return;
  const key = target.model.primaryKey;
  // The same slices in every write that locks the same rows: sorted before they are cut.
  const values = keys.map((k) => target.keyValue(k)).sort(byValue);
  for (const chunk of chunks(values)) {
    const lock = source.ctx.compiler
      .selectFrom(target.model.table)
      .select(key as never)
      .where(key as never, 'in', chunk as never)
      .orderBy(key as never)
      .forNoKeyUpdate();
    await executor.all(lock.compile());
  }
}

function byValue(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Points the target's objects `keys` at `owner` (or at nothing) through the foreign key column `fk`;
 * given `from`, only those that still point at it. An unlink names it: on PostgreSQL a write that
 * moved one of them elsewhere since it was read (another object's PATCH of the same list) commits
 * first, and the unlink, which waits for its row, then finds it no longer `from`'s and leaves it.
 * Without it, a probe's two PATCHes at once left three memberships on no team, an order of the
 * two writes that neither answer told of.
 */
async function setLink(
  source: RelationSource,
  executor: SqlExecutor,
  target: RelationSource,
  fk: string,
  keys: readonly string[],
  owner: unknown,
  from?: unknown,
): Promise<void> {
  for (const chunk of chunks(keys.map((k) => target.keyValue(k)))) {
    let update = source.ctx.compiler
      .updateTable(target.model.table)
      .set({ [fk]: owner } as never)
      .where(target.model.primaryKey, 'in', chunk as never);
    if (from !== undefined) update = update.where(fk as never, '=', from as never);
    await source.run(() => executor.run(update.compile()));
  }
}

function unique<V>(values: readonly V[]): V[] {
  return [...new Set(values)];
}

/** Long key lists go to the database in slices (SQLite allows 32,766 parameters). */
export function chunks<V>(values: readonly V[], size = 500): V[][] {
  const out: V[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}
