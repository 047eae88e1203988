/**
 * Relationships on MongoDB: loading them into a page of records (one query per relationship,
 * never one per object), checking that the objects a write links to exist, and pointing the
 * objects that hold the link at the object written (the same behaviour as the SQL engine's).
 */
import type { ClientSession, Collection, Document } from 'mongodb';
import type { Model, RelationSpec } from '../model.js';
import {
  attachRelated,
  checkReferences as checkEveryReference,
  mayUnlink,
  type FindManyArgs,
  type Where,
} from '../repository.js';
import type { MongoFilter } from './filter.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;
type How = true | { include?: Record<string, unknown> };

/** What relationships need of the repository of a model (MongoRepository is one). */
export interface RelationSource {
  readonly model: Model;
  readonly collection: Collection<Document>;
  readonly options: { session?: ClientSession };
  /** The repository of a related model, in the same transaction. */
  repositoryOf(model: string): RelationSource;
  findMany(args: FindManyArgs<Rec>): Promise<Rec[]>;
  /** The primary keys of the objects that match. */
  keys(where?: Where<Rec>): Promise<unknown[]>;
  /** A key as the database stores it, or undefined when it cannot be one. */
  keyValue(key: unknown): unknown;
  /** The field that a column (a foreign key) is, and where it lives in a document. */
  fieldOfColumn(column: string): string;
  pathOfColumn(column: string): string;
  /** Empties the link `path` of the objects that match (refused where the link is required). */
  unlink(filter: MongoFilter, path: string, relation: RelationSpec): Promise<void>;
  /** Runs a write, turning duplicate-key errors into `ConstraintViolation`. */
  write<R>(work: () => Promise<R>): Promise<R>;
}

/** Loads relationships for a page of records: one query per relationship. */
export async function includeRelated(
  source: RelationSource,
  records: Rec[],
  include: Record<string, How>,
): Promise<void> {
  if (records.length === 0) return;
  for (const [name, how] of Object.entries(include)) {
    const relation = source.model.relation(name);
    if (!relation) continue;
    const target = source.repositoryOf(relation.target);
    if (relation.local) {
      if (typeof how !== 'object') continue;
      const keys = [...new Set(records.map((r) => r[name]).filter((k) => k !== null && k !== undefined))];
      const related = await target.findMany({
        where: { [target.model.primaryKey]: { in: keys } },
        ...(how.include ? { include: how.include as never } : {}),
      });
      const byKey = new Map(related.map((o) => [String(o[target.model.primaryKey]), o]));
      for (const r of records)
        r[name] = r[name] === null || r[name] === undefined ? null : (byKey.get(text(r[name])) ?? null);
      continue;
    }
    await includeOtherSide(source, records, relation, target, how);
  }
}

/** A relationship whose key the related objects hold: fetch the ones that point at this page. */
async function includeOtherSide(
  source: RelationSource,
  records: Rec[],
  relation: RelationSpec,
  target: RelationSource,
  how: How,
): Promise<void> {
  const fkName = target.fieldOfColumn(relation.foreignKey);
  const related = await target.findMany({
    where: { [fkName]: { in: records.map((r) => r[source.model.primaryKey]) } },
    ...(typeof how === 'object'
      ? how.include
        ? { include: how.include as never }
        : {}
      : { select: { [fkName]: true } }),
  });
  attachRelated(records, related, {
    relation,
    key: source.model.primaryKey,
    ownerField: fkName,
    targetKey: target.model.primaryKey,
    asObjects: typeof how === 'object',
  });
}

/** Relationship values must name objects that exist (an unknown key is a 400). */
export function checkReferences(source: RelationSource, data: Rec): Promise<void> {
  return checkEveryReference(source.model, data, (relation) => {
    const target = source.repositoryOf(relation.target);
    return {
      keyValue: (key) => target.keyValue(key),
      existing: async (keys) => new Set((await target.keys({ [target.model.primaryKey]: { in: keys } })).map(String)),
    };
  });
}

/** Relationships whose key the related objects hold: point exactly the given objects at `record`. */
export async function linkRelations(source: RelationSource, record: Rec, data: Rec): Promise<void> {
  for (const relation of source.model.relations) {
    if (relation.local || data[relation.name] === undefined) continue;
    const target = source.repositoryOf(relation.target);
    const value = data[relation.name];
    const wanted = new Set(
      (value === null ? [] : Array.isArray(value) ? value : [value]).map((k) => String(target.keyValue(k))),
    );
    const fk = target.pathOfColumn(relation.foreignKey);
    const owner = source.keyValue(record[source.model.primaryKey]);
    const linked = new Set((await target.keys({ [target.fieldOfColumn(relation.foreignKey)]: owner })).map(String));
    const key = (k: string) => target.keyValue(k);
    // Unlink first: a one-to-one link is unique, so the new object can take it only once it is free.
    const unlink = [...linked].filter((k) => !wanted.has(k) && mayUnlink(data, relation.name, k)).map(key);
    // Only those still linked to `record` when the write reaches them: one another write moved meanwhile stays moved.
    if (unlink.length) await target.unlink({ _id: { $in: unlink }, [fk]: owner }, fk, relation);
    const link = [...wanted].filter((k) => !linked.has(k)).map(key);
    if (link.length)
      await target.write(() =>
        target.collection.updateMany({ _id: { $in: link } as never }, { $set: { [fk]: owner } }, target.options),
      );
  }
}
