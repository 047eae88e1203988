/**
 * The repository of one model on MongoDB (the same interface and behaviour as the
 * SQL engine). A document holds the model's columns, with the primary key as `_id` and nulls left
 * out; a relationship is stored once, as the related key on the side that holds it (under the
 * relationship's name), so both sides stay consistent by construction. What SQL constraints do —
 * unique values, `ondelete` rules, references that must exist — is done here (unique values by
 * the indexes `database.ts` creates). One thing a SQL foreign key does is not: on a replica set, a
 * request that links to an object while another deletes it can both commit, leaving a link to
 * nothing (MongoDB has no shared locks; an exclusive lock document per referenced object would
 * make every concurrent write that links to one popular object conflict).
 */
import type { ClientSession, Collection, Db, Document } from 'mongodb';
import {
  keyOfWhere,
  keyValue,
  withDefaults,
  type FieldSpec,
  type Model,
  type ModelRegistry,
  type RelationSpec,
} from '../model.js';
import {
  checkRange,
  ConstraintViolation,
  RecordNotFound,
  type FindManyArgs,
  type Include,
  type Repository,
  type Where,
} from '../repository.js';
import type { WindowCounter, WindowFields } from '../database.js';
import { rankingSearch } from '../search.js';
import { mongoFilter, type FilterSource, type MongoFilter } from './filter.js';
import { changesWords, documentWords, rankedPipeline, SEARCH_FIELD } from './search.js';
import { checkReferences, includeRelated, linkRelations, type RelationSource } from './relations.js';
import { documentPath, fromMongo, toMongo } from './values.js';

type Rec = Record<string, unknown>;

export interface MongoContext {
  readonly db: Db;
  readonly models: ModelRegistry;
  /** The transaction's session, inside `transaction`. */
  readonly session?: ClientSession;
  /** Runs `work` in a transaction (or in the current one). */
  readonly transaction: <R>(work: (ctx: MongoContext) => Promise<R>) => Promise<R>;
}

/** Generated integer keys come from one counter document per model. */
export const COUNTERS = 'svc_counters';

export class MongoRepository<T extends object, Create = Partial<T>, Update = Partial<T>> implements Repository<
  T,
  Create,
  Update
> {
  constructor(
    readonly model: Model<T>,
    readonly ctx: MongoContext,
  ) {}

  /** A null (or a field left out) sorts before every value, as on SQLite. */
  readonly nullsLast = false;

  get collection(): Collection<Document> {
    return this.ctx.db.collection(this.model.table);
  }

  get options(): { session?: ClientSession } {
    return this.ctx.session ? { session: this.ctx.session } : {};
  }

  // --- reads ---------------------------------------------------------------------------------------

  async findMany(args: FindManyArgs<T> = {}): Promise<T[]> {
    // MongoDB reads `limit: 0` as no limit at all.
    if (args.take === 0) return [];
    const filter = await this.filter(args.where);
    const projection = args.select ? this.projection(args.select) : undefined;
    const page = {
      ...(args.skip ? { skip: args.skip } : {}),
      ...(args.take !== undefined ? { limit: args.take } : {}),
      ...(projection ? { projection } : {}),
    };
    const search = rankingSearch(args);
    const docs = search
      ? await this.collection
          .aggregate(rankedPipeline(this.model as Model, filter, search, page), this.options)
          .toArray()
      : await this.collection.find(filter, { ...this.options, sort: this.ordering(args.orderBy), ...page }).toArray();
    const records = await this.records(docs, args.include);
    if (!args.select) return records;
    const kept = this.selectedNames(args.select, args.include ?? {});
    return records.map((r) => Object.fromEntries(Object.entries(r as Rec).filter(([name]) => kept.has(name))) as T);
  }

  /** With `select`, a record has the key, the selected and the included fields only (as the SQL engine's). */
  selectedNames(select: Rec, include: object): Set<string> {
    const projection = this.projection(select);
    const stored = (column: string) => this.pathOfColumn(column) in projection;
    return new Set([
      ...Object.keys(include),
      ...this.model.columns.filter((f) => stored(f.column!)).map((f) => f.name),
      ...this.model.relations.filter((r) => r.local && stored(r.foreignKey)).map((r) => r.name),
    ]);
  }

  async findFirst(args: FindManyArgs<T> = {}): Promise<T | null> {
    return (await this.findMany({ ...args, take: 1 }))[0] ?? null;
  }

  async findUnique(args: {
    where: Partial<T>;
    include?: Include<T>;
    select?: FindManyArgs<T>['select'];
  }): Promise<T | null> {
    return this.findFirst({
      where: args.where as Where<T>,
      ...(args.include ? { include: args.include } : {}),
      ...(args.select ? { select: args.select } : {}),
    });
  }

  async count(args: { where?: Where<T> } = {}): Promise<number> {
    return this.collection.countDocuments(await this.filter(args.where), this.options);
  }

  async keys(where?: Where<T>): Promise<unknown[]> {
    const docs = await this.collection
      .find(await this.filter(where), { ...this.options, projection: { _id: 1 }, sort: { _id: 1 } })
      .toArray();
    return docs.map((d) => fromMongo(d._id, this.pkField()));
  }

  /** The distinct values of a stored field among the documents that match. */
  async distinct(path: string, filter: MongoFilter): Promise<unknown[]> {
    return this.collection.distinct(path, filter, this.options);
  }

  /**
   * Nothing to do: in a transaction MongoDB refuses a second writer of the same document (a write
   * conflict, and `transaction` runs the work again), and without transactions nothing is atomic.
   */
  async lockForUpdate(): Promise<void> {}

  lockForDelete(): Promise<boolean> {
    return Promise.resolve(false);
  }

  lockForUpdates(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * One `findOneAndUpdate` with upsert per counter, all at once: each is atomic, whether its
   * document exists or not, and an update pipeline reads the window's end before it is changed.
   */
  async countInWindows(fields: WindowFields, counters: readonly WindowCounter[], now: Date) {
    const [count, ends] = [this.pathOf(fields.count), this.pathOf(fields.ends)];
    const over = { $lte: [{ $ifNull: [`$${ends}`, new Date(0)] }, now] };
    const after = await Promise.all(
      counters.map((counter) =>
        this.write(() =>
          this.collection.findOneAndUpdate(
            { _id: this.keyValue(counter.key) as never },
            [
              {
                $set: {
                  [count]: { $cond: [over, 1, { $add: [`$${count}`, 1] }] },
                  [ends]: { $cond: [over, counter.ends, `$${ends}`] },
                },
              },
            ],
            { ...this.options, upsert: true, returnDocument: 'after' },
          ),
        ),
      ),
    );
    return after.map((doc) => ({ count: Number(doc?.[count]), ends: doc?.[ends] as Date }));
  }

  /** The keys of at most `limit` windows that ended before `before`, then those deleted. */
  async forgetWindows(fields: WindowFields, before: Date, limit: number): Promise<number> {
    const ends = this.pathOf(fields.ends);
    const over = await this.collection
      .find({ [ends]: { $lt: before } }, { ...this.options, projection: { _id: 1 }, limit })
      .toArray();
    if (over.length === 0) return 0;
    // The end checked again: a window a guess started over since the find is kept.
    const { deletedCount } = await this.collection.deleteMany(
      { _id: { $in: over.map((d) => d._id) }, [ends]: { $lt: before } },
      this.options,
    );
    return deletedCount;
  }

  // --- writes --------------------------------------------------------------------------------------

  async create(args: { data: Create; include?: Include<T> }): Promise<T> {
    return this.ctx.transaction(async (ctx) => {
      const self = this.on(ctx);
      // The schema's defaults, for what the create type leaves optional (the routes applied them already).
      const data = withDefaults(self.model as Model, args.data as Rec);
      await checkReferences(self.asRelationSource, data);
      self.checkRequiredLinks(data, 'create');
      const doc = self.document(data);
      if (self.model.searchFields.length) doc[SEARCH_FIELD] = documentWords(self.model as Model, doc);
      if (self.pkField().generated) {
        if (doc._id === undefined) doc._id = await self.nextKey();
        else await self.keyTaken(doc._id);
      }
      await self.write(() => self.collection.insertOne(doc, self.options));
      const record = self.record(doc);
      await linkRelations(self.asRelationSource, record, data);
      return (await self.records([doc], args.include))[0]!;
    });
  }

  async update(args: { where: Partial<T>; data: Update; include?: Include<T> }): Promise<T> {
    return this.ctx.transaction(async (ctx) => {
      const self = this.on(ctx);
      const key = self.keyValue(self.keyOf(args.where));
      const data = args.data as Rec;
      if (self.model.primaryKey in data && self.keyValue(data[self.model.primaryKey]) !== key) {
        throw new Error(`${self.model.name}: MongoDB cannot change a primary key (_id)`);
      }
      await checkReferences(self.asRelationSource, data);
      self.checkRequiredLinks(data, 'update');
      const change = self.change(data);
      const filter = { _id: key as never };
      // One round trip: the document as changed (or as it is, with nothing to change).
      const doc =
        key === undefined
          ? null
          : change
            ? await self.write(() =>
                self.collection.findOneAndUpdate(filter, change, { ...self.options, returnDocument: 'after' }),
              )
            : await self.collection.findOne(filter, self.options);
      if (!doc) throw new RecordNotFound(self.model.name, self.keyOf(args.where));
      if (changesWords(self.model as Model, change)) await self.refreshWords([doc]);
      await linkRelations(self.asRelationSource, { [self.model.primaryKey]: key }, data);
      return (await self.records([doc], args.include))[0]!;
    });
  }

  async updateMany(args: { where?: Where<T>; data: Update }): Promise<{ count: number }> {
    return this.ctx.transaction(async (ctx) => {
      const self = this.on(ctx);
      const keys = await self.keys(args.where);
      if (keys.length === 0) return { count: 0 };
      const data = args.data as Rec;
      await checkReferences(self.asRelationSource, data);
      self.checkRequiredLinks(data, 'update');
      const change = self.change(data);
      if (change)
        await self.write(() => self.collection.updateMany({ _id: { $in: keys } as never }, change, self.options));
      if (changesWords(self.model as Model, change)) {
        const changed = await self.collection.find({ _id: { $in: keys } as never }, self.options).toArray();
        await self.refreshWords(changed);
      }
      for (const key of keys) await linkRelations(self.asRelationSource, { [self.model.primaryKey]: key }, data);
      return { count: keys.length };
    });
  }

  async delete(args: { where: Partial<T> }): Promise<T> {
    return this.ctx.transaction(async (ctx) => {
      const self = this.on(ctx);
      const key = self.keyOf(args.where);
      const existing = await self.findUnique({ where: { [self.model.primaryKey]: key } as Partial<T> });
      if (!existing) throw new RecordNotFound(self.model.name, key);
      await self.removeAll([self.keyValue(key)]);
      return existing;
    });
  }

  async deleteMany(args: { where?: Where<T> } = {}): Promise<{ count: number }> {
    return this.ctx.transaction(async (ctx) => {
      const self = this.on(ctx);
      const keys = await self.keys(args.where);
      if (keys.length) await self.removeAll(keys.map((k) => self.keyValue(k)));
      return { count: keys.length };
    });
  }

  /**
   * Deletes the objects `keys`, doing to their related objects what each relationship's `ondelete`
   * says. `removing`: what this delete already takes, by model (a cascade may come back round).
   */
  async removeAll(keys: readonly unknown[], removing = new Map<string, Set<string>>()): Promise<void> {
    const taken = removing.get(this.model.name) ?? new Set<string>();
    removing.set(this.model.name, taken);
    for (const key of keys) taken.add(String(key));
    const others = this.model.relations.filter((r) => !r.local);
    // Named: the RESTRICT relationships that hold objects, not every one the model has.
    const holding: string[] = [];
    for (const relation of others.filter((r) => r.onDelete === 'restrict')) {
      const target = this.repositoryOf(relation.target);
      const fk = target.pathOfColumn(relation.foreignKey);
      if (await target.collection.countDocuments({ [fk]: { $in: keys } }, { ...target.options, limit: 1 }))
        holding.push(relation.name);
    }
    if (holding.length)
      throw new ConstraintViolation(
        'foreign_key',
        holding,
        `${this.model.name} is still referenced through ${holding.join(', ')}`,
      );
    for (const relation of others) {
      const target = this.repositoryOf(relation.target);
      const fk = target.pathOfColumn(relation.foreignKey);
      if (relation.onDelete === 'cascade') {
        const related = (await target.keys({ [target.fieldOfColumn(relation.foreignKey)]: { in: keys } }))
          .map((k) => target.keyValue(k))
          .filter((k) => !removing.get(target.model.name)?.has(String(k)));
        if (related.length) await target.removeAll(related, removing);
      } else if (relation.onDelete === 'nullify') {
        await target.unlink({ [fk]: { $in: keys } }, fk, relation);
      }
    }
    await this.collection.deleteMany({ _id: { $in: keys } as never }, this.options);
  }

  /** Stores the words of documents whose text changed (`_search`, see search.ts). */
  async refreshWords(docs: readonly Document[]): Promise<void> {
    if (docs.length === 0) return;
    const writes = docs.map((doc) => ({
      updateOne: {
        filter: { _id: doc._id },
        update: { $set: { [SEARCH_FIELD]: documentWords(this.model as Model, doc) } },
      },
    }));
    await this.collection.bulkWrite(writes, this.options);
  }

  /**
   * The next generated key of this model, from its counter document. Outside the transaction, as
   * a SQL sequence is: concurrent creates never conflict on it, and a rolled-back create leaves a gap.
   */
  async nextKey(): Promise<number> {
    const counter = await this.counters().findOneAndUpdate(
      { _id: this.model.table },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    return counter!.seq;
  }

  /** A key given for a generated key field: later generated keys start above it. */
  async keyTaken(key: unknown): Promise<void> {
    if (typeof key !== 'number') return;
    await this.counters().updateOne({ _id: this.model.table }, { $max: { seq: key } }, { upsert: true });
  }

  counters(): Collection<{ _id: string; seq: number }> {
    return this.ctx.db.collection<{ _id: string; seq: number }>(COUNTERS);
  }

  /**
   * A link whose foreign key is required cannot be emptied (SQL: a not-null violation). `data`:
   * what a create or update writes.
   */
  checkRequiredLinks(data: Rec, action: 'create' | 'update'): void {
    for (const relation of this.model.relations) {
      if (!relation.local || !this.requiredLink(relation)) continue;
      const value = data[relation.name];
      if (value === null || (action === 'create' && value === undefined)) {
        throw new ConstraintViolation('not_null', [relation.name], `${this.model.name}.${relation.name} is required`);
      }
    }
  }

  /** The foreign key field of a link kept here is required. */
  requiredLink(relation: RelationSpec): boolean {
    return Boolean(this.model.columns.find((c) => c.column === relation.foreignKey)?.required);
  }

  /** Runs a write, turning duplicate key errors into `ConstraintViolation`. */
  async write<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (error) {
      const e = error as { code?: number; keyPattern?: Rec; message?: string };
      if (e.code !== 11000) throw error;
      const paths = Object.keys(e.keyPattern ?? {});
      throw new ConstraintViolation(
        'unique',
        paths.map((p) => this.fieldOfPath(p)),
        e.message ?? 'duplicate key',
      );
    }
  }

  // --- documents and records -----------------------------------------------------------------------

  /** The same repository in another context (a transaction). */
  on(ctx: MongoContext): MongoRepository<T, Create, Update> {
    return ctx === this.ctx ? this : new MongoRepository(this.model, ctx);
  }

  repositoryOf(model: string): MongoRepository<Rec> {
    return new MongoRepository(this.ctx.models.get(model)!, this.ctx);
  }

  pkField(): FieldSpec {
    return this.model.field(this.model.primaryKey)!;
  }

  /**
   * The document field of a column: the primary key is `_id`, and a link is kept under its
   * relationship's name (`{ owner: "alice" }`, as Ramses' documents had it), not in a separate
   * foreign key field; the foreign key field of the model shows the same value.
   */
  pathOfColumn(column: string): string {
    return documentPath(this.model as Model, column);
  }

  /** The document field of a model field (or of a to-one relationship kept here). */
  pathOf(name: string): string {
    const field = this.model.field(name);
    if (field?.column) return this.pathOfColumn(field.column);
    const relation = this.model.relation(name);
    if (relation?.local) return this.pathOfColumn(relation.foreignKey);
    throw new Error(`${this.model.name}.${name} is not stored in its documents`);
  }

  fieldOfColumn(column: string): string {
    return this.model.columns.find((c) => c.column === column)!.name;
  }

  /** What clients call a stored field (a link is named by its relationship). */
  fieldOfPath(path: string): string {
    if (path === '_id') return this.model.primaryKey;
    return this.model.columns.find((c) => c.column === path)?.name ?? path;
  }

  /** A value of field `name` as documents store it (a related key, for a relationship). */
  valueFor(name: string, value: unknown): unknown {
    const relation = this.model.relation(name);
    if (relation) return this.repositoryOf(relation.target).keyValue(value);
    const field = this.model.field(name)!;
    // A decimal is compared as given, not rounded as stored (sql/conditions.ts dbValue).
    if (field.storage === 'real' && typeof value === 'number') return value;
    return field.primaryKey ? this.keyValue(value) : (toMongo(value, field) ?? null);
  }

  keyOf(where: Rec): unknown {
    return keyOfWhere(this.model as Model, where);
  }

  keyValue(key: unknown): unknown {
    return keyValue(this.model as Model, key);
  }

  /** A new document from data: own columns and to-one relationships kept here, nulls left out. */
  document(data: Rec): Document {
    const doc: Document = {};
    for (const [path, value] of Object.entries(this.stored(data))) if (value !== undefined) doc[path] = value;
    return doc;
  }

  /** `$set` and `$unset` for data, or null when it changes no stored field. */
  change(data: Rec): Document | null {
    const set: Rec = {};
    const unset: Rec = {};
    for (const [path, value] of Object.entries(this.stored(data))) {
      if (path === '_id') continue;
      if (value === undefined) unset[path] = '';
      else set[path] = value;
    }
    const change: Document = {};
    if (Object.keys(set).length) change.$set = set;
    if (Object.keys(unset).length) change.$unset = unset;
    return Object.keys(change).length ? change : null;
  }

  /** Stored fields of data (undefined: null, not stored). */
  stored(data: Rec): Rec {
    const out: Rec = {};
    for (const [name, value] of Object.entries(data)) {
      if (value === undefined) continue;
      const field = this.model.field(name);
      if (field?.column) {
        checkRange(field, value);
        out[this.pathOfColumn(field.column)] = field.primaryKey ? this.keyValue(value) : toMongo(value, field);
      }
      const relation = this.model.relation(name);
      if (relation?.local)
        out[this.pathOfColumn(relation.foreignKey)] =
          value === null ? undefined : this.repositoryOf(relation.target).keyValue(value);
    }
    return out;
  }

  ordering(orderBy: FindManyArgs<T>['orderBy']): [string, 1 | -1][] {
    const list = orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy];
    const out: [string, 1 | -1][] = [];
    for (const entry of list as Record<string, 'asc' | 'desc'>[]) {
      for (const [name, direction] of Object.entries(entry))
        out.push([this.pathOf(name), direction === 'desc' ? -1 : 1]);
    }
    if (!out.some(([path]) => path === '_id')) out.push(['_id', 1]);
    return out;
  }

  projection(select: Rec): Document {
    const projection: Document = { _id: 1 };
    for (const f of this.model.columns) if (select[f.name] === true) projection[this.pathOfColumn(f.column!)] = 1;
    for (const r of this.model.relations)
      if (select[r.name] === true && r.local) projection[this.pathOfColumn(r.foreignKey)] = 1;
    return projection;
  }

  async records(docs: readonly Document[], include?: Include<T>): Promise<T[]> {
    const records = docs.map((doc) => this.record(doc));
    if (include)
      await includeRelated(
        this.asRelationSource,
        records,
        include as Record<string, true | { include?: Record<string, unknown> }>,
      );
    return records as T[];
  }

  /** A document → a record: every column (absent: null), and to-one relationships kept here. */
  record(doc: Document): Rec {
    const out: Rec = {};
    for (const f of this.model.columns) out[f.name] = fromMongo(doc[this.pathOfColumn(f.column!)], f);
    for (const r of this.model.relations) {
      if (!r.local) continue;
      out[r.name] = fromMongo(
        doc[this.pathOfColumn(r.foreignKey)],
        this.model.columns.find((c) => c.column === r.foreignKey)!,
      );
    }
    return out;
  }

  /**
   * Empties the link `path` of the objects that match (the other side's `relation` let them go),
   * unless the link is required: then it is a not-null violation, as in SQL.
   */
  async unlink(filter: MongoFilter, path: string, relation: RelationSpec): Promise<void> {
    const inverse = this.model.relation(relation.inverse);
    if (
      inverse &&
      this.requiredLink(inverse) &&
      (await this.collection.countDocuments(filter, { ...this.options, limit: 1 }))
    ) {
      throw new ConstraintViolation('not_null', [inverse.name], `${this.model.name}.${inverse.name} is required`);
    }
    await this.collection.updateMany(filter, { $unset: { [path]: '' } }, this.options);
  }

  /** This repository as relations.ts sees it. */
  get asRelationSource(): RelationSource {
    return this as unknown as RelationSource;
  }

  async filter(where: Where<T> | undefined): Promise<MongoFilter> {
    return mongoFilter(this as unknown as FilterSource, where);
  }
}
