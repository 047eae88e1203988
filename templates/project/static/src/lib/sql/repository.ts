/**
 * The repository of one model on SQL (SQLite or PostgreSQL). Queries are built with Kysely and
 * run by the executor. Relationships whose foreign key is in another table are read with one
 * query per relationship for a whole page of objects (never one query per object).
 */
import {
  sql,
  type ExpressionBuilder,
  type Expression,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
import { keyOfWhere, keyValue, type FieldSpec, type Model, type ModelRegistry, type RelationSpec } from '../model.js';
import {
  attachRelated,
  ConstraintViolation,
  RecordNotFound,
  FILTER_OPERATORS as OPERATORS,
  relatedKeyFilter,
  UnknownReference,
  type FieldFilter,
  type FindManyArgs,
  type Include,
  type Repository,
  type Where,
} from '../repository.js';
import { rankingSearch, searchOnly, type SearchFilter } from '../search.js';
import { fromDb, toDb } from '../values.js';
import type { Compiled, SqlExecutor } from './executor.js';
import { countMatches, rankedMatches, relevance, searchCondition, type SearchTarget } from './search.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely is used with table names known at run time. */
type AnyDB = Record<string, Record<string, unknown>>;
type Eb = ExpressionBuilder<AnyDB, string>;
type Row = Record<string, unknown>;
type Rec = Record<string, unknown>;

export interface SqlContext {
  readonly executor: SqlExecutor;
  readonly compiler: Kysely<any>;
  readonly models: ModelRegistry;
  /** PostgreSQL's text search configuration for `q` (service.ini `search.language`). */
  readonly searchLanguage: string;
}

export class SqlRepository<T extends object, Create = Partial<T>, Update = Partial<T>> implements Repository<
  T,
  Create,
  Update
> {
  /** `select … from table where pk = ?`, compiled once per model: the hottest query of all. */
  readonly #byKey: string;
  readonly #related = new Map<string, SqlRepository<Rec>>();

  constructor(
    readonly model: Model<T>,
    readonly ctx: SqlContext,
  ) {
    this.#byKey = byKeySql(model as Model, ctx);
  }

  get dialect() {
    return this.ctx.executor.dialect;
  }

  get searchTarget(): SearchTarget {
    return { model: this.model as Model, dialect: this.dialect, language: this.ctx.searchLanguage };
  }

  table() {
    return this.ctx.compiler.selectFrom(this.model.table);
  }

  // --- reads ---------------------------------------------------------------------------------------

  async findMany(args: FindManyArgs<T> = {}): Promise<T[]> {
    let query = this.table().select(this.selectedColumns(args.select));
    const search = rankingSearch(args);
    // SQLite joins the ranked matches: when the search is the only condition, that join is the whole
    // of it, and the page is the best matches (ties in key order: the key must be the rowid).
    const matchesOnly =
      search !== undefined &&
      this.dialect === 'sqlite' &&
      searchOnly(args.where) !== undefined &&
      this.pkField().storage === 'integer';
    if (args.where && !matchesOnly) query = query.where((eb) => this.condition(eb, args.where as Where<Rec>));
    if (search) query = this.bestFirst(query, search, matchesOnly ? pageEnd(args) : undefined);
    for (const [field, direction] of this.ordering(args.orderBy)) query = query.orderBy(field, direction);
    if (args.take !== undefined) query = query.limit(args.take);
    // SQLite takes an offset only after a limit (-1: none); PostgreSQL refuses a negative limit.
    if (args.skip)
      query =
        args.take === undefined && this.dialect === 'sqlite'
          ? query.limit(-1).offset(args.skip)
          : query.offset(args.skip);
    const rows = await this.ctx.executor.all<Row>(query.compile());
    return this.records(rows, args.include);
  }

  /**
   * A search without `_sort`: the best matches first (then by key, as every list). `best`: on
   * SQLite, only that many best matches are needed (nothing else filters them).
   */
  bestFirst<Q extends SelectQueryBuilder<AnyDB, string, Row>>(query: Q, search: SearchFilter, best?: number): Q {
    if (this.dialect === 'postgres') return query.orderBy(relevance(this.searchTarget, search), 'desc') as Q;
    return query
      .innerJoin(rankedMatches(this.model as Model, search, best).as('svc_search'), (join) =>
        join.onRef('svc_search.svc_rowid' as never, '=', `${this.model.table}.rowid` as never),
      )
      .orderBy(sql`svc_search.svc_rank`) as unknown as Q;
  }

  async findFirst(args: FindManyArgs<T> = {}): Promise<T | null> {
    return (await this.findMany({ ...args, take: 1 }))[0] ?? null;
  }

  async findUnique(args: {
    where: Partial<T>;
    include?: Include<T>;
    select?: FindManyArgs<T>['select'];
  }): Promise<T | null> {
    const where = args.where as Rec;
    const keys = Object.keys(where);
    if (keys.length === 1 && keys[0] === this.model.primaryKey && !args.select) {
      const key = this.keyValue(where[this.model.primaryKey]);
      if (key === undefined) return null;
      const rows = await this.ctx.executor.all<Row>({ sql: this.#byKey, parameters: [key] });
      return (await this.records(rows, args.include))[0] ?? null;
    }
    return this.findFirst({
      where: args.where as Where<T>,
      ...(args.include ? { include: args.include } : {}),
      ...(args.select ? { select: args.select } : {}),
    });
  }

  async count(args: { where?: Where<T> } = {}): Promise<number> {
    // SQLite counts a search alone in its index, without reading the table.
    const search = this.dialect === 'sqlite' ? searchOnly(args.where) : undefined;
    if (search) {
      const rows = await this.ctx.executor.all<{ n: unknown }>(
        countMatches(this.model as Model, search).compile(this.ctx.compiler),
      );
      return Number(rows[0]?.n ?? 0);
    }
    let query = this.table().select((eb) => eb.fn.countAll().as('n'));
    if (args.where) query = query.where((eb) => this.condition(eb, args.where as Where<Rec>));
    const rows = await this.ctx.executor.all<{ n: unknown }>(query.compile());
    return Number(rows[0]?.n ?? 0);
  }

  /** The primary keys of the objects that match, in key order. */
  async keys(where?: Where<T>): Promise<unknown[]> {
    const pk = this.model.primaryKey;
    let query = this.table().select(pk).orderBy(pk);
    if (where) query = query.where((eb) => this.condition(eb, where as Where<Rec>));
    const rows = await this.ctx.executor.all<Row>(query.compile());
    return rows.map((r) => fromDb(r[pk], this.pkField()));
  }

  /** PostgreSQL: `select … for update`. SQLite needs nothing: one transaction writes at a time. */
  async lockForUpdate(key: unknown): Promise<void> {
    const value = this.keyValue(key);
    if (this.dialect !== 'postgres' || value === undefined) return;
    const query = this.table()
      .select(this.model.primaryKey)
      .where(this.model.primaryKey, '=', value as never)
      .forUpdate();
    await this.ctx.executor.all(query.compile());
  }

  // --- writes --------------------------------------------------------------------------------------

  async create(args: { data: Create; include?: Include<T> }): Promise<T> {
    return this.ctx.executor.transaction(async (tx) => {
      const data = args.data as Rec;
      await this.checkReferences(tx, data);
      const values = this.columnValues(data);
      const insert = this.cachedWrite('insert', values, () =>
        Object.keys(values).length
          ? this.ctx.compiler.insertInto(this.model.table).values(values).returning(this.allColumns()).compile()
          : this.ctx.compiler.insertInto(this.model.table).defaultValues().returning(this.allColumns()).compile(),
      );
      const rows = await this.run(() => tx.all<Row>(insert));
      await this.linkRelations(tx, this.record(rows[0]!), data);
      // The row as inserted (RETURNING); relationships are read after linking them.
      return (await this.records(rows, args.include, tx))[0]!;
    });
  }

  async update(args: { where: Partial<T>; data: Update; include?: Include<T> }): Promise<T> {
    return this.ctx.executor.transaction(async (tx) => {
      const key = this.keyOf(args.where as Rec);
      const data = args.data as Rec;
      await this.checkReferences(tx, data);
      const values = this.columnValues(data);
      const value = this.keyValue(key);
      const rows = value === undefined ? [] : await this.updateByKey(tx, value, values);
      if (rows.length === 0) throw new RecordNotFound(this.model.name, key);
      await this.linkRelations(tx, this.record(rows[0]!), data);
      return (await this.records(rows, args.include, tx))[0]!;
    });
  }

  async updateMany(args: { where?: Where<T>; data: Update }): Promise<{ count: number }> {
    return this.ctx.executor.transaction(async (tx) => {
      const keys = await this.withExecutor(tx).keys(args.where);
      if (keys.length === 0) return { count: 0 };
      const data = args.data as Rec;
      await this.checkReferences(tx, data);
      const values = this.columnValues(data);
      if (Object.keys(values).length) {
        for (const chunk of chunks(keys)) {
          const update = this.ctx.compiler
            .updateTable(this.model.table)
            .set(values)
            .where(this.model.primaryKey, 'in', chunk.map((k) => this.keyValue(k)) as never);
          await this.run(() => tx.run(update.compile()));
        }
      }
      for (const key of keys) await this.linkRelations(tx, { [this.model.primaryKey]: key }, data);
      return { count: keys.length };
    });
  }

  async delete(args: { where: Partial<T> }): Promise<T> {
    return this.ctx.executor.transaction(async (tx) => {
      const key = this.keyOf(args.where as Rec);
      const existing = await this.withExecutor(tx).findUnique({
        where: { [this.model.primaryKey]: key } as Partial<T>,
      });
      if (!existing) throw new RecordNotFound(this.model.name, key);
      const query = this.ctx.compiler
        .deleteFrom(this.model.table)
        .where(this.model.primaryKey, '=', this.keyValue(key) as never);
      await this.run(() => tx.run(query.compile()));
      return existing;
    });
  }

  async deleteMany(args: { where?: Where<T> } = {}): Promise<{ count: number }> {
    return this.ctx.executor.transaction(async (tx) => {
      const keys = await this.withExecutor(tx).keys(args.where);
      for (const chunk of chunks(keys)) {
        const query = this.ctx.compiler
          .deleteFrom(this.model.table)
          .where(this.model.primaryKey, 'in', chunk.map((k) => this.keyValue(k)) as never);
        await this.run(() => tx.run(query.compile()));
      }
      return { count: keys.length };
    });
  }

  /** `update … set values where key = ? returning *` (or the row as it is, with nothing to set). */
  async updateByKey(tx: SqlExecutor, key: unknown, values: Row): Promise<Row[]> {
    const pk = this.model.primaryKey;
    if (Object.keys(values).length === 0) return tx.all<Row>({ sql: this.#byKey, parameters: [key] });
    const compile = () =>
      this.ctx.compiler
        .updateTable(this.model.table)
        .set(values)
        .where(pk, '=', key as never)
        .returning(this.allColumns())
        .compile();
    // The key is the last parameter; a change of the key itself is rare enough to compile each time.
    const query = pk in values ? compile() : this.cachedWrite('update', { ...values, [pk]: key }, compile);
    return this.run(() => tx.all<Row>(query));
  }

  /**
   * Inserts and updates by key are compiled once per set of columns: their SQL depends only on
   * the column names, and their parameters are the values in order (the key last, for updates).
   */
  cachedWrite(kind: 'insert' | 'update', values: Row, compile: () => Compiled): Compiled {
    const key = `${kind}:${Object.keys(values).join(',')}`;
    let text = writeCache(this.model, this.dialect).get(key);
    if (text === undefined) {
      text = compile().sql;
      writeCache(this.model, this.dialect).set(key, text);
    }
    return { sql: text, parameters: Object.values(values) };
  }

  /** The same repository, running on another executor (a transaction). */
  withExecutor(executor: SqlExecutor): SqlRepository<T, Create, Update> {
    return executor === this.ctx.executor ? this : new SqlRepository(this.model, { ...this.ctx, executor });
  }

  // --- rows and records ----------------------------------------------------------------------------

  pkField(): FieldSpec {
    return this.model.field(this.model.primaryKey)!;
  }

  /** The model's columns: never `*`, which on PostgreSQL would read the search vectors too. */
  allColumns(): string[] {
    return this.model.columns.map((f) => f.column!);
  }

  selectedColumns(select?: FindManyArgs<T>['select']): string[] {
    const columns = this.model.columns.filter(
      (f) =>
        !select || f.primaryKey || (select as Rec)[f.name] === true || this.selectedThroughRelation(select as Rec, f),
    );
    return columns.map((f) => f.column!);
  }

  /** A to-one relationship kept in a column of this table is selected through that column. */
  selectedThroughRelation(select: Rec, column: FieldSpec): boolean {
    return this.model.relations.some((r) => select[r.name] === true && r.local && r.foreignKey === column.column);
  }

  ordering(orderBy: FindManyArgs<T>['orderBy']): [string, 'asc' | 'desc'][] {
    const list = orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy];
    const out: [string, 'asc' | 'desc'][] = [];
    for (const entry of list as Record<string, 'asc' | 'desc'>[]) {
      for (const [name, direction] of Object.entries(entry)) out.push([this.columnOf(name), direction]);
    }
    if (!out.some(([column]) => column === this.model.primaryKey)) out.push([this.model.primaryKey, 'asc']);
    return out;
  }

  /** The column that holds a field (or a to-one relationship kept in this table). */
  columnOf(name: string): string {
    const field = this.model.field(name);
    if (field?.column) return field.column;
    const relation = this.model.relation(name);
    if (relation && relation.local) return relation.foreignKey;
    throw new Error(`${this.model.name}.${name} is not a column`);
  }

  /** Rows → records: values converted, to-one relationships kept here filled in, others loaded as asked. */
  async records(rows: readonly Row[], include?: Include<T>, executor: SqlExecutor = this.ctx.executor): Promise<T[]> {
    const records = rows.map((row) => this.record(row));
    if (include)
      await this.include(executor, records, include as Record<string, true | { include?: Record<string, unknown> }>);
    return records as T[];
  }

  record(row: Row): Rec {
    const out: Rec = {};
    for (const f of this.model.columns) if (f.column! in row) out[f.name] = fromDb(row[f.column!], f);
    for (const r of this.model.relations) {
      if (!r.local || !(r.foreignKey in row)) continue;
      const fk = this.model.columns.find((c) => c.column === r.foreignKey)!;
      out[r.name] = fromDb(row[r.foreignKey], fk);
    }
    return out;
  }

  /** Loads relationships for a page of records: one query per relationship. */
  async include(
    executor: SqlExecutor,
    records: Rec[],
    include: Record<string, true | { include?: Record<string, unknown> }>,
  ): Promise<void> {
    if (records.length === 0) return;
    for (const [name, how] of Object.entries(include)) {
      const relation = this.model.relation(name);
      if (!relation) continue;
      const target = this.repositoryOf(relation.target, executor);
      if (relation.local) {
        if (typeof how === 'object') {
          const keys = unique(records.map((r) => r[name]).filter((k) => k !== null && k !== undefined));
          const related = await target.findIn(
            target.model.primaryKey,
            keys,
            how.include ? { include: how.include as never } : {},
          );
          const byKey = new Map(related.map((o) => [String((o as Rec)[target.model.primaryKey]), o]));
          for (const r of records)
            r[name] = r[name] === null || r[name] === undefined ? null : (byKey.get(String(r[name])) ?? null);
        }
        continue;
      }
      // The foreign key is in the target's table: fetch the related objects that point at this page.
      const keys = records.map((r) => r[this.model.primaryKey]);
      const fk = relation.foreignKey;
      const fkField = target.model.columns.find((c) => c.column === fk)!;
      const related = await target.findIn(
        fkField.name,
        keys,
        typeof how === 'object'
          ? how.include
            ? { include: how.include as never }
            : {}
          : { select: { [fkField.name]: true } as never },
      );
      attachRelated(records, related as Rec[], {
        relation,
        key: this.model.primaryKey,
        ownerField: fkField.name,
        targetKey: target.model.primaryKey,
        asObjects: typeof how === 'object',
      });
    }
  }

  /** The objects whose `field` is one of `values`, in slices short enough for any database. */
  async findIn(field: string, values: readonly unknown[], args: FindManyArgs<T> = {}): Promise<T[]> {
    const found: T[] = [];
    for (const chunk of chunks(values))
      found.push(...(await this.findMany({ ...args, where: { [field]: { in: chunk } } as never })));
    return found;
  }

  /** The repository of a related model on `executor` (kept, for this repository's own executor). */
  repositoryOf(model: string, executor: SqlExecutor): SqlRepository<Rec> {
    if (executor !== this.ctx.executor)
      return new SqlRepository(this.ctx.models.get(model)!, { ...this.ctx, executor });
    let repository = this.#related.get(model);
    if (!repository) this.#related.set(model, (repository = new SqlRepository(this.ctx.models.get(model)!, this.ctx)));
    return repository;
  }

  keyOf(where: Rec): unknown {
    return keyOfWhere(this.model as Model, where);
  }

  /** A key as the database compares it; undefined when it cannot be a key (e.g. "abc" for an integer key). */
  keyValue(key: unknown): unknown {
    return keyValue(this.model as Model, key);
  }

  /** The values of fields stored in this table: own columns and to-one relationships kept here. */
  columnValues(data: Rec): Row {
    const values: Row = {};
    for (const [name, value] of Object.entries(data)) {
      if (value === undefined) continue;
      const field = this.model.field(name);
      if (field?.column) {
        values[field.column] = toDb(value, field, this.dialect);
        continue;
      }
      const relation = this.model.relation(name);
      if (relation && relation.local) {
        const fk = this.model.columns.find((c) => c.column === relation.foreignKey)!;
        values[relation.foreignKey] =
          value === null
            ? null
            : toDb(this.repositoryOf(relation.target, this.ctx.executor).keyValue(value), fk, this.dialect);
      }
    }
    return values;
  }

  /** Relationship values must name objects that exist (an unknown key is a 400). */
  async checkReferences(executor: SqlExecutor, data: Rec): Promise<void> {
    for (const relation of this.model.relations) {
      const value = data[relation.name];
      if (value === undefined || value === null) continue;
      const keys = Array.isArray(value) ? value : [value];
      if (keys.length === 0) continue;
      const target = this.repositoryOf(relation.target, executor);
      const valid = keys.map((k) => target.keyValue(k));
      const have = new Set<string>();
      for (const chunk of chunks(unique(valid.filter((k) => k !== undefined)))) {
        for (const key of await target.keys({ [target.model.primaryKey]: { in: chunk } } as never))
          have.add(String(key));
      }
      const missing = keys.filter((_, i) => valid[i] === undefined || !have.has(String(valid[i])));
      if (missing.length) throw new UnknownReference(relation.name, relation.target, missing);
    }
  }

  /** Relationships whose foreign key is in the target's table: point exactly the given objects at `record`. */
  async linkRelations(executor: SqlExecutor, record: Rec, data: Rec): Promise<void> {
    for (const relation of this.model.relations) {
      if (relation.local || !(relation.name in data) || data[relation.name] === undefined) continue;
      const target = this.repositoryOf(relation.target, executor);
      const value = data[relation.name];
      const wanted = new Set(
        (value === null ? [] : Array.isArray(value) ? value : [value]).map((k) => String(target.keyValue(k))),
      );
      const fk = relation.foreignKey;
      const owner = this.keyValue(record[this.model.primaryKey]);
      const fkField = target.model.columns.find((c) => c.column === fk)!;
      const linked = new Set((await target.keys({ [fkField.name]: owner } as never)).map(String));
      // Unlink first: a one-to-one link is unique, so the new object can take it only once it is free.
      await this.setLink(
        executor,
        target,
        fk,
        [...linked].filter((k) => !wanted.has(k)),
        null,
      );
      await this.setLink(
        executor,
        target,
        fk,
        [...wanted].filter((k) => !linked.has(k)),
        owner,
      );
    }
  }

  /** Points the target's objects `keys` at `owner` (or at nothing) through the foreign key column `fk`. */
  async setLink(
    executor: SqlExecutor,
    target: SqlRepository<Rec>,
    fk: string,
    keys: readonly string[],
    owner: unknown,
  ): Promise<void> {
    for (const chunk of chunks(keys.map((k) => target.keyValue(k)))) {
      const update = this.ctx.compiler
        .updateTable(target.model.table)
        .set({ [fk]: owner } as never)
        .where(target.model.primaryKey, 'in', chunk as never);
      await this.run(() => executor.run(update.compile()));
    }
  }

  /** Runs a write, turning constraint errors of either database into `ConstraintViolation`. */
  async run<R>(write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (error) {
      throw this.constraint(error) ?? error;
    }
  }

  constraint(error: unknown): ConstraintViolation | undefined {
    const e = error as { code?: string; message?: string; detail?: string; column?: string; constraint?: string };
    const message = e.message ?? '';
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === '23505') {
      const columns =
        e.code === '23505'
          ? (/Key \(([^)]*)\)/.exec(e.detail ?? '')?.[1] ?? '').split(', ')
          : [...message.matchAll(/\w+\.(\w+)/g)].map((m) => m[1]!);
      return new ConstraintViolation('unique', this.fieldsOf(columns), message);
    }
    // RESTRICT is its own code: 23001 in PostgreSQL, a "trigger" constraint in SQLite. Links are
    // checked before writes (checkReferences), so what breaks a foreign key is a delete that a
    // RESTRICT relationship prevents: name those relationships.
    const restrict = e.code === '23001' || (e.code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/i.test(message));
    if (e.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || e.code === '23503' || restrict) {
      return new ConstraintViolation(
        'foreign_key',
        this.model.relations.filter((r) => r.onDelete === 'restrict').map((r) => r.name),
        message,
      );
    }
    if (e.code === 'SQLITE_CONSTRAINT_NOTNULL' || e.code === '23502') {
      const column = e.column ?? /\w+\.(\w+)/.exec(message)?.[1] ?? '';
      return new ConstraintViolation('not_null', this.fieldsOf([column]), message);
    }
    // PostgreSQL refuses values its column types cannot hold (out of range, too long): a client's mistake.
    if (e.code && ['22001', '22003', '22007', '22008', '22P02'].includes(e.code))
      return new ConstraintViolation('invalid', e.column ? this.fieldsOf([e.column]) : [], message);
    return undefined;
  }

  /** The fields clients know for columns: a foreign key column is named by the relationship it holds. */
  fieldsOf(columns: readonly string[]): string[] {
    return columns
      .filter(Boolean)
      .map(
        (c) =>
          this.model.relations.find((r) => r.local && r.foreignKey === c)?.name ??
          this.model.columns.find((f) => f.column === c)?.name ??
          c,
      );
  }

  // --- conditions ----------------------------------------------------------------------------------

  condition(eb: Eb, where: Where<Rec>): Expression<SqlBool> {
    const parts: Expression<SqlBool>[] = [];
    for (const [name, value] of Object.entries(where)) {
      if (value === undefined) continue;
      if (name === 'AND') parts.push(eb.and((value as Where<Rec>[]).map((w) => this.condition(eb, w))));
      else if (name === 'OR') parts.push(eb.or((value as Where<Rec>[]).map((w) => this.condition(eb, w))));
      else if (name === 'NOT')
        parts.push(
          eb.not(eb.and((Array.isArray(value) ? value : [value]).map((w: Where<Rec>) => this.condition(eb, w)))),
        );
      else if (name === 'SEARCH') parts.push(searchCondition(this.searchTarget, value as SearchFilter));
      else parts.push(this.fieldCondition(eb, name, value));
    }
    return eb.and(parts);
  }

  /** `table`: how the query names this model's table (an alias in subqueries). */
  fieldCondition(eb: Eb, name: string, value: unknown, table: string = this.model.table): Expression<SqlBool> {
    const filter: FieldFilter<unknown> = isFilter(value) ? value : { equals: value };
    const relation = this.model.relation(name);
    if (relation && !relation.local) return this.relatedCondition(eb, relation, filter);
    const column = `${table}.${this.columnOf(name)}`;
    const field = this.model.field(name) ?? this.model.columns.find((c) => c.column === this.columnOf(name))!;
    const convert = (v: unknown) =>
      relation ? this.repositoryOf(relation.target, this.ctx.executor).keyValue(v) : this.dbValue(v, field);
    const parts: Expression<SqlBool>[] = [];
    const ref = eb.ref(column);
    for (const [op, operand] of Object.entries(filter)) {
      switch (op) {
        case 'equals':
          parts.push(operand === null ? eb(ref, 'is', null) : eb(ref, '=', convert(operand) as never));
          break;
        case 'not':
          parts.push(
            isFilter(operand)
              ? eb.not(this.fieldCondition(eb, name, operand, table))
              : operand === null
                ? eb(ref, 'is not', null)
                : eb.or([eb(ref, '!=', convert(operand) as never), eb(ref, 'is', null)]),
          );
          break;
        case 'in':
        case 'notIn': {
          const list = (operand as unknown[]).map(convert).filter((v) => v !== undefined);
          if (op === 'in') parts.push(list.length ? eb(ref, 'in', list as never) : sql<SqlBool>`1 = 0`);
          else if (list.length) parts.push(eb(ref, 'not in', list as never));
          break;
        }
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte':
          parts.push(eb(ref, ({ gt: '>', gte: '>=', lt: '<', lte: '<=' } as const)[op], convert(operand) as never));
          break;
        case 'contains':
        case 'startsWith': {
          const pattern = `${op === 'contains' ? '%' : ''}${escapeLike(String(operand))}%`;
          parts.push(
            this.dialect === 'postgres'
              ? sql<SqlBool>`${ref}::text ilike ${pattern} escape '\\'`
              : sql<SqlBool>`${ref} like ${pattern} escape '\\'`,
          );
          break;
        }
        case 'has':
          parts.push(this.jsonHasSome(ref, [operand]));
          break;
        case 'hasSome':
          parts.push(this.jsonHasSome(ref, operand as unknown[]));
          break;
        default:
          if (!OPERATORS.includes(op)) throw new Error(`unknown filter operator ${op}`);
      }
    }
    return eb.and(parts);
  }

  /**
   * A list field holds one of the values. True or false, never unknown: a null list holds
   * nothing, as an object with no related objects does, so that `NOT` includes it on both.
   */
  jsonHasSome(ref: Expression<unknown>, values: readonly unknown[]): Expression<SqlBool> {
    if (values.length === 0) return sql<SqlBool>`1 = 0`;
    if (this.dialect === 'postgres') {
      const any = sql.join(
        values.map((v) => sql`${ref} @> ${JSON.stringify([v])}::jsonb`),
        sql` or `,
      );
      return sql<SqlBool>`coalesce(${any}, false)`;
    }
    // json_each gives JSON true/false as 1/0, and better-sqlite3 binds no booleans.
    const bound = values.map((v) => (typeof v === 'boolean' ? Number(v) : v) as never);
    return sql<SqlBool>`exists (select 1 from json_each(${ref}) where json_each.value in (${sql.join(bound)}))`;
  }

  /**
   * A relationship kept in the target's table: which related objects there are. `has`, `hasSome`,
   * `equals` and the other comparisons ask whether some related object's key matches; `not`
   * negates a whole condition (`not: { hasSome: [1, 2] }`: related to neither), `equals: null`
   * means no related object at all. True or false, never unknown (EXISTS).
   */
  relatedCondition(eb: Eb, relation: RelationSpec, filter: FieldFilter<unknown>): Expression<SqlBool> {
    const target = this.repositoryOf(relation.target, this.ctx.executor);
    const parts: Expression<SqlBool>[] = [];
    for (const [op, operand] of Object.entries(filter)) {
      if (operand === undefined) continue;
      if (op === 'not') {
        parts.push(eb.not(this.relatedCondition(eb, relation, isFilter(operand) ? operand : { equals: operand })));
      } else if (op === 'equals' && operand === null) {
        parts.push(eb.not(eb.exists(this.relatedRows(eb, relation, target))));
      } else {
        const keyFilter = relatedKeyFilter(op, operand);
        const sub = this.relatedRows(eb, relation, target).where((tb) =>
          target.fieldCondition(tb as unknown as Eb, target.model.primaryKey, keyFilter, RELATED),
        );
        parts.push(eb.exists(sub));
      }
    }
    return eb.and(parts);
  }

  /** The related rows, under an alias: the target may be this model's own table (a self-reference). */
  relatedRows(eb: Eb, relation: RelationSpec, target: SqlRepository<Rec>) {
    return eb
      .selectFrom(`${target.model.table} as ${RELATED}`)
      .select(sql`1`.as('one'))
      .whereRef(`${RELATED}.${relation.foreignKey}`, '=', `${this.model.table}.${this.model.primaryKey}`);
  }

  dbValue(value: unknown, field: FieldSpec): unknown {
    if (field.storage === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
    return toDb(value, field, this.dialect);
  }
}

const writeCaches = new WeakMap<object, Map<string, Map<string, string>>>();

/** Compiled insert/update SQL of a model and dialect, by column list (a bounded number: the column sets clients send). */
function writeCache(model: object, dialect: string): Map<string, string> {
  let byDialect = writeCaches.get(model);
  if (!byDialect) writeCaches.set(model, (byDialect = new Map()));
  let cache = byDialect.get(dialect);
  if (!cache || cache.size > 1000) byDialect.set(dialect, (cache = new Map()));
  return cache;
}

/** The alias of related rows in subqueries. */
const RELATED = 'svc_related';

const byKeyCache = new WeakMap<Model, Map<string, string>>();

function byKeySql(model: Model, ctx: SqlContext): string {
  let byDialect = byKeyCache.get(model);
  if (!byDialect) byKeyCache.set(model, (byDialect = new Map()));
  let text = byDialect.get(ctx.executor.dialect);
  if (text === undefined) {
    const columns = model.columns.map((f) => f.column!);
    text = ctx.compiler.selectFrom(model.table).select(columns).where(model.primaryKey, '=', 0).compile().sql;
    byDialect.set(ctx.executor.dialect, text);
  }
  return text;
}

/** How many rows a page reads from the start: its offset and its length (all, without a limit). */
function pageEnd(args: { skip?: number; take?: number }): number | undefined {
  return args.take === undefined ? undefined : (args.skip ?? 0) + args.take;
}

function isFilter(value: unknown): value is FieldFilter<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).every((k) => OPERATORS.includes(k))
  );
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function unique<V>(values: readonly V[]): V[] {
  return [...new Set(values)];
}

/** Long key lists go to the database in slices (SQLite allows 32,766 parameters). */
function chunks<V>(values: readonly V[], size = 500): V[][] {
  const out: V[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

export type { Compiled };
