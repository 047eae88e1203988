/**
 * The repository of one model on SQL (SQLite or PostgreSQL). Queries are built with Kysely and
 * run by the executor. Relationships whose foreign key is in another table are read with one
 * query per relationship for a whole page of objects (never one query per object).
 */
import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';
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
  RecordNotFound,
  type FindManyArgs,
  type Include,
  type Repository,
  type Where,
} from '../repository.js';
import type { RecordedWrites, WindowCounter, WindowFields } from '../database.js';
import { countInWindows, forgetWindows } from './window-counts.js';
import { newEvent } from '../outbox/event.js';
import { appendSql, appendStatement } from '../outbox/sql-log.js';
import type { EventAction } from '../outbox/types.js';
import { rankingSearch, searchOf, searchOnly, withoutSearch, type SearchFilter } from '../search.js';
import { fromDb, toDb } from '../values.js';
import { rowRecord } from './row-record.js';
import type { Compiled, SqlExecutor } from './executor.js';
import type { WriteParts } from './types.js';
import { countMatches, matchingRowids, rankedMatches, relevance, type SearchTarget } from './search.js';
import type { SearchIndexer } from './search-index.js';
import { keptCount, type RowCounts } from './row-counts.js';
import { condition, LONG_LIST, storedValues, type ConditionSource } from './conditions.js';
import { constraintViolation } from './constraints.js';
import { checkReferences, chunks, includeRelated, linkRelations, type RelationSource } from './relations.js';
import { groupedWrite } from './merged-writes.js';
import { emptyLinks, withEvent } from './recorded-writes.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely is used with table names known at run time. */
type AnyDB = Record<string, Record<string, unknown>>;
type Row = Record<string, unknown>;
type Rec = Record<string, unknown>;

export interface SqlContext {
  readonly executor: SqlExecutor;
  readonly compiler: Kysely<any>;
  readonly models: ModelRegistry;
  /** PostgreSQL's text search configuration for `q` (service.ini `search.language`). */
  readonly searchLanguage: string;
  /** SQLite: catches the search index up (search-index.ts). */
  readonly searchIndex?: SearchIndexer | undefined;
  /** The tables' numbers of rows, kept by the database (row-counts.ts); absent: counted. */
  readonly rowCounts?: RowCounts | undefined;
}

/** Keys per statement of a lock (SQLite's parameter limit does not apply; PostgreSQL's statements stay short). */
const LOCK_SLICE = 500;
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

  /** PostgreSQL puts nulls last in ascending order, SQLite first: pages follow each engine's order. */
  get nullsLast(): boolean {
    return this.dialect === 'postgres';
  }

  get searchTarget(): SearchTarget {
    return { model: this.model as Model, dialect: this.dialect, language: this.ctx.searchLanguage };
  }

  table() {
    return this.ctx.compiler.selectFrom(this.model.table);
  }

  // --- reads ---------------------------------------------------------------------------------------

  async findMany(args: FindManyArgs<T> = {}): Promise<T[]> {
    const byKey = this.#onlyKey(args);
    if (byKey) return byKey.key === undefined ? [] : this.#byKeyRecords(byKey.key, args.include);
    await this.searchable(args.where);
    const query = noConditions(args.where)
      ? this.pageStatement(args)
      : (this.plainStatement(args) ?? this.findQuery(args).compile());
    const rows = await this.ctx.executor.all<Row>(query);
    return this.records(rows, args.include);
  }

  /**
   * A page and the number of all the rows it is a page of, in one statement: as a column of the
   * page's rows, the table's kept count (row-counts.ts) for a page without conditions, or the
   * `count(*)` of the same plain conditions (`plainConditions`). Two statements were two round
   * trips and two pooled connections on PostgreSQL, and the total could be of another moment than
   * the page. Undefined, having read nothing, for any other read (the caller reads and counts);
   * `total` is undefined when it cannot be known from the rows: none, past the first page.
   *
   * PostgreSQL takes a filtered page so only when every condition is on an indexed field: the two
   * at once on two connections take as long as the longer, in one statement as both together, and
   * without an index both may read the whole table (a search's too: its p99 went 16 → 24 ms).
   */
  async findManyWithTotal(args: FindManyArgs<T>): Promise<{ records: T[]; total: number | undefined } | undefined> {
    const statement = this.#withTotal(args);
    if (!statement) return undefined;
    const rows = await this.ctx.executor.all<Row>(statement);
    const total = rows[0]?.[PAGE_TOTAL];
    // No row at the start of a page that may have some: nothing matches.
    const none = rows.length === 0 && !args.skip && args.take !== 0;
    return {
      records: await this.records(rows, args.include),
      total: none ? 0 : total === null || total === undefined ? undefined : Number(total),
    };
  }

  /** The statement of `findManyWithTotal`, or undefined where it takes none. */
  #withTotal(args: FindManyArgs<T>): Compiled | undefined {
    if (noConditions(args.where)) {
      const key = this.ctx.rowCounts?.keyOf(this.model.table);
      return key === undefined ? undefined : this.pageStatement(args, key);
    }
    const plain = this.plainConditions(args.where);
    if (!plain || (this.dialect === 'postgres' && !this.#onIndexedFields(plain))) return undefined;
    return this.plainStatement(args, true, plain);
  }

  /** Whether `plain` is one field equal to one value, and the field is the key or unique: one row at most, by its index. */
  #onUniqueKey(plain: PlainConditions): boolean {
    if (plain.shape.length !== 1) return false;
    const [name, op, count] = plain.shape[0]!;
    const field = this.model.field(name)!;
    return op === '=' && count === 1 && (field.primaryKey || field.unique === true);
  }

  /** Whether each of `plain`'s conditions is on a field with an index: the key, a unique field, a link, `"index": true`. */
  #onIndexedFields(plain: PlainConditions): boolean {
    return plain.shape.every(([name]) => this.#indexed(name));
  }

  /**
   * A read of whole objects by `{ <primary key>: value }` alone (a user by name, where the name is
   * the key) finds at most one row: the prepared by-key statement reads it, without building the
   * general query. `key` is undefined for a value that cannot be a key, which matches nothing (as
   * in findUnique; PostgreSQL would refuse it as a parameter). Undefined for any other read.
   */
  #onlyKey(args: FindManyArgs<T>): { key: unknown } | undefined {
    const where = args.where as Rec | undefined;
    if (!where || args.select || args.skip || (args.take !== undefined && !(args.take >= 1))) return undefined;
    const names = Object.keys(where);
    if (names.length !== 1 || names[0] !== this.model.primaryKey) return undefined;
    const value = where[names[0]];
    return typeof value === 'string' || typeof value === 'number' ? { key: this.keyValue(value) } : undefined;
  }

  /** The object of `key` (none or one), its relationships as `include` asks: in one statement where it can be. */
  async #byKeyRecords(key: unknown, include: Include<T> | undefined): Promise<T[]> {
    const { keysOnly, names } = this.#keysInStatement({ include });
    // With the keys of its relationships, the read is as long as their lists: not one for the pipeline.
    const read: Compiled = keysOnly.length
      ? {
          sql: compiledOnce(this.model, this.dialect, `byKey:${names.join(',')}`, () =>
            this.findQuery({ include }).where(`${this.model.table}.${this.pkField().column!}`, '=', 0).compile(),
          ).sql,
          parameters: [key],
        }
      : { sql: this.#byKey, parameters: [key], oneByKey: true };
    return this.records(await this.ctx.executor.all<Row>(read), include);
  }

  findQuery(args: FindManyArgs<T>) {
    let query = this.table().select(this.selectedColumns(args.select));
    const related = this.#keysInStatement(args).keysOnly;
    if (related.length) query = query.select(related.map((r) => this.relatedKeys(r).as(`${RELATED}${r.name}`)));
    const search = rankingSearch(args);
    // SQLite joins the ranked matches: when the search is the only condition, that join is the whole
    // of it, and the page is the best matches (ties in key order: the key must be the rowid).
    const matchesOnly =
      search !== undefined &&
      this.dialect === 'sqlite' &&
      searchOnly(args.where) !== undefined &&
      this.pkField().storage === 'integer';
    const inKeyOrder = search ? undefined : this.searchInKeyOrder(args);
    const where = inKeyOrder ? withoutSearch(args.where) : args.where;
    if (where && !matchesOnly) query = query.where((eb) => this.conditionOf(eb, where));
    if (search) query = this.bestFirst(query, search, matchesOnly ? pageEnd(args) : undefined);
    if (inKeyOrder) {
      query = query
        .innerJoin(matchingRowids(this.model as Model, inKeyOrder.search).as('svc_search'), (join) =>
          join.onRef('svc_search.svc_rowid' as never, '=', `${this.model.table}.rowid` as never),
        )
        .orderBy(sql.ref('svc_search.svc_rowid'), inKeyOrder.direction);
    } else for (const [field, direction] of this.ordering(args.orderBy)) query = query.orderBy(field, direction);
    if (args.take !== undefined) query = query.limit(this.literalTake(args.take) ? sql.lit(args.take) : args.take);
    // SQLite takes an offset only after a limit (-1: none); PostgreSQL refuses a negative limit.
    if (args.skip)
      query =
        args.take === undefined && this.dialect === 'sqlite'
          ? query.limit(-1).offset(args.skip)
          : query.offset(args.skip);
    return query;
  }

  /**
   * Whether a page's length goes into the SQL as a literal, not a parameter: always. The length is
   * a whole number the service checked; the compiled shapes below are then one per length.
   * - SQLite's plan of a bound LIMIT costs more to run (better-sqlite3, measured: a user by a
   *   unique name with `limit ?` 11 µs, with `limit 1` 5.5 µs; a page of 20, 23 vs 19 µs).
   * - PostgreSQL's plan kept for a named statement (a generic plan) cannot know a bound LIMIT, and
   *   guesses a tenth of the table: on a million rows that plan looks far dearer than planning for
   *   the values, so PostgreSQL plans the statement again at every run. A page with its kept total
   *   (pgbench, 4 clients): 0.124 ms on a million rows, 0.072 on a thousand; with `limit 21`, 0.079.
   */
  literalTake(take: number | undefined): take is number {
    return take !== undefined && Number.isSafeInteger(take) && take >= 0;
  }

  /** How a compiled shape stands for its length: itself when a literal, else the stand-in (none: undefined). */
  takeOfShape(take: number | undefined): number | undefined {
    return this.literalTake(take) ? take : take === undefined ? undefined : TAKE;
  }

  /**
   * A page with no conditions, the commonest list: its SQL depends only on the fields, the order
   * and whether there is a limit and an offset, so it is compiled once per such shape (by Kysely,
   * with stand-ins for the two numbers), not on every request. `countKey`: with the table's kept
   * number of rows as column `PAGE_TOTAL`, read by this key (`RowCounts.keyOf`).
   */
  pageStatement(args: FindManyArgs<T>, countKey?: string | number): Compiled {
    const key = JSON.stringify([
      this.#keysInStatement(args).names,
      args.select ?? null,
      args.orderBy ?? null,
      this.takeOfShape(args.take) ?? null,
      Boolean(args.skip),
      countKey !== undefined,
    ]);
    const shape = compiledOnce(this.model, this.dialect, `page:${key}`, () => {
      const stand = {
        ...args,
        where: undefined,
        take: this.takeOfShape(args.take),
        skip: args.skip ? SKIP : 0,
      };
      const query = this.findQuery(stand);
      // The key by a stand-in: compiled shapes are shared by every service of the process, each on its own database.
      return (
        countKey === undefined ? query : query.select(keptCount(this.dialect, COUNT_KEY).as(PAGE_TOTAL))
      ).compile();
    });
    const statement = bound(shape, args, undefined, countKey);
    // PostgreSQL's alone: it has the pipelined connection for pages, and on SQLite the page's other
    // shape of statement cost a page of 20 ~15 µs more (bench/RESULTS.md, "Pages on a pipelined connection").
    return this.dialect === 'postgres' && this.#readsInIndexOrder(args) ? { ...statement, quickPage: true } : statement;
  }

  /**
   * Whether a page without conditions reads at most QUICK_PAGE_ROWS rows in the order of indexes:
   * every field it is sorted by has one (the key always ends the order), and it starts near the
   * beginning. Such a page cannot take long (`Compiled.quickPage`); a page sorted by a field
   * without an index sorts the whole table, and a deep one passes by every row before it.
   */
  #readsInIndexOrder(args: FindManyArgs<T>): boolean {
    if (args.take === undefined || (args.skip ?? 0) + args.take > QUICK_PAGE_ROWS) return false;
    const list = args.orderBy === undefined ? [] : Array.isArray(args.orderBy) ? args.orderBy : [args.orderBy];
    return (list as Record<string, unknown>[]).every((entry) =>
      Object.keys(entry).every((name) => this.#indexed(name)),
    );
  }

  /** Whether a field's column has an index: the key, a unique field, a link's key, `"index": true`. */
  #indexed(name: string): boolean {
    const field = this.model.field(name);
    return (
      field !== undefined &&
      (field.primaryKey || field.unique === true || field.index === true || field.type === 'foreign_key')
    );
  }

  /**
   * `{ field: value }`, `{ field: { in: [...] } }`, `{ field: { gte: value } }`…, several of those
   * at once or in an AND, on columns of plain values: a user by name, the objects related to a page
   * (findIn), a filtered page, what handlers look up most. Its SQL depends only on the fields, the
   * numbers of values and the page's shape, so it is compiled once per such shape (with stand-ins
   * for the values, as pageStatement does), not by Kysely on every call: Kysely building and
   * compiling was a quarter of the CPU of a member's GET of one object, and of a filtered page
   * (bench/RESULTS.md). Undefined for any other condition, which takes the general way
   * (conditions.ts) — and means the same: `column = value`, `column > value`…, or
   * `column in (values)` of the values that can be keys (`storedValues`).
   */
  plainStatement(
    args: FindManyArgs<T>,
    counted = false,
    plain = this.plainConditions(args.where),
  ): Compiled | undefined {
    if (!plain) return undefined;
    const key = JSON.stringify([
      plain.shape,
      this.#keysInStatement(args).names,
      args.select ?? null,
      args.orderBy ?? null,
      this.takeOfShape(args.take) ?? null,
      Boolean(args.skip),
      counted,
    ]);
    const shape = compiledOnce(this.model, this.dialect, `column:${key}`, () => {
      const query = this.findQuery({
        ...args,
        where: undefined,
        take: this.takeOfShape(args.take),
        skip: args.skip ? SKIP : 0,
      });
      // The count of the same conditions, on the same stand-ins for their values.
      const withCount = counted ? query.select(() => wherePlain(this.#counted(), plain).as(PAGE_TOTAL)) : query;
      return wherePlain(withCount, plain).compile();
    });
    return bound(shape, args, plain);
  }

  /**
   * Conditions that must all hold, each `column = value`, `column in (values)` or a comparison
   * (`>`, `>=`, `<`, `<=`) on a plain column (of the values that can be stored there): several at
   * once, or in an AND, as a filtered page asks. Statements take them as a shape compiled once;
   * undefined for any other.
   */
  plainConditions(where: Where<T> | undefined): PlainConditions | undefined {
    const parts = conjuncts(where);
    if (!parts || parts.length === 0 || parts.length > MOST_PLAIN_CONDITIONS) return undefined;
    const shape: [string, PlainOperator, number][] = [];
    const values: unknown[] = [];
    const columns: string[] = [];
    for (const [name, condition] of parts) {
      const field = this.model.field(name);
      if (!field?.column || this.model.relation(name) || field.type === 'list' || !PLAIN.has(field.storage))
        return undefined;
      const given = valuesOf(condition);
      if (!given || given.values.some((v) => v === null || typeof v === 'object')) return undefined;
      const stored = storedValues(this.asConditionSource, field, given.values);
      // An empty list matches nothing, and a long one is one parameter: the general way says so.
      if (stored.length === 0 || stored.length > LONG_LIST) return undefined;
      shape.push([name, given.op, stored.length]);
      columns.push(`${this.model.table}.${field.column}`);
      values.push(...stored);
    }
    return { shape, columns, values };
  }

  /**
   * SQLite, a search sorted by the key first (`_sort=id`, `_sort=-id`: newest first) when the key
   * is the rowid: the page is read from the index in its own order (`matchingRowids`). Nothing
   * after the key changes the order of distinct keys, so the rest of the sort is moot.
   */
  searchInKeyOrder(args: FindManyArgs<T>): { search: SearchFilter; direction: 'asc' | 'desc' } | undefined {
    if (this.dialect !== 'sqlite' || this.pkField().storage !== 'integer') return undefined;
    const search = searchOf(args.where);
    if (!search?.words.length || !search.fields.length) return undefined;
    const [first] = this.ordering(args.orderBy);
    return first && first[0] === this.model.primaryKey ? { search, direction: first[1] } : undefined;
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
      return (await this.#byKeyRecords(key, args.include))[0] ?? null;
    }
    return this.findFirst({
      where: args.where as Where<T>,
      ...(args.include ? { include: args.include } : {}),
      ...(args.select ? { select: args.select } : {}),
    });
  }

  /**
   * Of the relationships `include` asks for, those a read can take in its own statement, as a
   * JSON list of keys per object from a subquery: kept in the other table, asked for as keys (not
   * objects), keyed by a value JSON carries exactly (an integer or a text), and whole objects read
   * (no `select`). A statement each, as before, was a round trip each on PostgreSQL (a blog
   * author: four). `rest`: the others, read as before (includeRelated).
   */
  #keysInStatement(args: Pick<FindManyArgs<T>, 'include' | 'select'>): {
    keysOnly: RelationSpec[];
    names: string[];
    rest: Included;
  } {
    const keysOnly: RelationSpec[] = [];
    const rest: Included = {};
    for (const [name, how] of Object.entries((args.include ?? {}) as Included)) {
      const relation = this.model.relation(name);
      const target = relation && this.ctx.models.get(relation.target);
      const key = target?.field(target.primaryKey);
      if (relation && !relation.local && how === true && key && JSON_EXACT_KEYS.has(key.type) && !args.select)
        keysOnly.push(relation);
      else rest[name] = how;
    }
    return { keysOnly, names: keysOnly.map((r) => r.name), rest };
  }

  /** The keys of the objects of `relation` (kept in the other table) that link to this table's row, as a JSON list. */
  relatedKeys(relation: RelationSpec) {
    const target = this.ctx.models.get(relation.target)!;
    // Under an alias: a relationship of a model to itself (a parent and its children) is one table twice.
    const key = sql.ref(`svc_related.${target.field(target.primaryKey)!.column!}`);
    const list =
      this.dialect === 'postgres'
        ? sql`coalesce(json_agg(${key} order by ${key}), '[]'::json)`
        : sql`json_group_array(${key} order by ${key})`;
    return this.ctx.compiler
      .selectFrom(`${target.table} as svc_related`)
      .select(list.as('keys'))
      .whereRef(`svc_related.${relation.foreignKey}`, '=', `${this.model.table}.${this.pkField().column!}`);
  }

  /**
   * The first object `where` selects (plain conditions: a user by name or by key), with the row of
   * `other` whose field `link` (unique there) holds its key as text (null: none), in one
   * statement: each of its columns a subquery by that field. On PostgreSQL that is a round trip
   * fewer than reading one and then the other (a member's request: the user and their
   * credential). Undefined where it cannot be one statement: any other condition, another engine,
   * a key stored as neither integer nor text (whose text in SQL may differ from the service's).
   */
  async findFirstWithLinked(
    where: Where<T>,
    other: unknown,
    link: string,
  ): Promise<{ found: T; linked: Rec | null } | null | undefined> {
    const plain = this.plainConditions(where);
    const key = this.pkField();
    if (!plain || !(other instanceof SqlRepository) || (key.storage !== 'integer' && key.storage !== 'text'))
      return undefined;
    const linked = other as SqlRepository<Rec>;
    const columns = linked.allColumns();
    const shape = `linked:${linked.model.name}:${link}:${JSON.stringify(plain.shape)}`;
    const statement = compiledOnce(this.model, this.dialect, shape, () => {
      const keyText = sql`cast(${sql.ref(`${this.model.table}.${key.column!}`)} as text)`;
      const query = this.findQuery({ take: this.takeOfShape(1) }).select((eb) =>
        columns.map((column) =>
          eb
            .selectFrom(linked.model.table)
            .select(column)
            .where(linked.columnOf(link), '=', keyText)
            .as(`${LINKED}${column}`),
        ),
      );
      return wherePlain(query, plain).compile();
    });
    const read = bound(statement, { take: 1 }, plain);
    // One row by a unique key, and the other's row by its key or a unique field: quick at any size.
    const linkField = linked.model.field(link);
    const oneByKey = this.#onUniqueKey(plain) && (linkField?.primaryKey === true || linkField?.unique === true);
    const [row] = await this.ctx.executor.all<Row>(oneByKey ? { ...read, oneByKey } : read);
    if (!row) return null;
    const linkedRow = Object.fromEntries(columns.map((column) => [column, row[`${LINKED}${column}`]]));
    // A row that links holds the key in `link`: null there when none does.
    const links = linkedRow[linked.columnOf(link)];
    const none = links === null || links === undefined;
    return { found: this.record(row) as T, linked: none ? null : linked.record(linkedRow) };
  }

  async count(args: { where?: Where<T> } = {}): Promise<number> {
    // A value that cannot be a key matches nothing, as in findMany (PostgreSQL would refuse it).
    const byKey = this.#onlyKey({ where: args.where });
    if (byKey && byKey.key === undefined) return 0;
    await this.searchable(args.where);
    // SQLite counts a search alone in its index, without reading the table.
    const search = this.dialect === 'sqlite' ? searchOnly(args.where) : undefined;
    if (search) {
      const rows = await this.ctx.executor.all<{ n: unknown }>(
        countMatches(this.model as Model, search).compile(this.ctx.compiler),
      );
      return Number(rows[0]?.n ?? 0);
    }
    // The whole table's count is kept by the database (row-counts.ts), or compiled once; a count
    // of plain conditions (a filtered page's total) is compiled once per shape; with other
    // conditions, for each request.
    const whole = noConditions(args.where);
    const kept = whole ? this.ctx.rowCounts?.countOf(this.model.table) : undefined;
    if (kept) {
      const [row] = await this.ctx.executor.all<{ n: unknown }>(kept);
      // No count row (taken away behind the service's back since its start): the table is counted.
      if (row?.n !== null && row?.n !== undefined) return Number(row.n);
    }
    const plain = this.plainConditions(args.where);
    const query = whole
      ? compiledOnce(this.model, this.dialect, 'count', () => this.#counted().compile())
      : plain
        ? this.#countOfPlain(plain)
        : this.#counted()
            .where((eb) => this.conditionOf(eb, args.where))
            .compile();
    const rows = await this.ctx.executor.all<{ n: unknown }>(query);
    return Number(rows[0]?.n ?? 0);
  }

  /** `select count(*) as n from <table>`, to take conditions. */
  #counted() {
    return this.table().select((eb) => eb.fn.countAll().as('n'));
  }

  #countOfPlain(plain: PlainConditions): Compiled {
    const shape = compiledOnce(this.model, this.dialect, `count:${JSON.stringify(plain.shape)}`, () =>
      wherePlain(this.#counted(), plain).compile(),
    );
    return { sql: shape.sql, parameters: shape.parameters.map((p) => valueFor(p, plain)) };
  }

  /** The primary keys of the objects that match, in key order. */
  async keys(where?: Where<T>): Promise<unknown[]> {
    await this.searchable(where);
    const pk = this.model.primaryKey;
    let query = this.table().select(pk).orderBy(pk);
    if (where) query = query.where((eb) => this.conditionOf(eb, where));
    const rows = await this.ctx.executor.all<Row>(query.compile());
    return rows.map((r) => fromDb(r[pk], this.pkField()));
  }

  /** SQLite: before a search reads the index, the index takes every write so far (search-index.ts). */
  async searchable(where: unknown): Promise<void> {
    if (this.ctx.searchIndex && searches(where))
      await this.ctx.searchIndex.catchUp(this.ctx.executor, this.model as Model);
  }

  /** After a write: SQLite's search index catches up soon; PostgreSQL folds the row counts' changes. */
  written(): void {
    this.ctx.searchIndex?.written(this.model as Model);
    this.ctx.rowCounts?.written();
  }

  /**
   * PostgreSQL: `select … for no key update`, the lock an UPDATE that keeps the key takes. Two
   * such locks of the row wait for each other, but not for the key-share lock that the insert of
   * a row linking to it takes: a handler that counts an object's children after inserting one
   * (lock the parent, read, write) would otherwise deadlock with another doing the same, each
   * holding the key-share lock that the other's `for update` waits for. SQLite needs nothing: one
   * transaction writes at a time.
   */
  async lockForUpdate(key: unknown): Promise<void> {
    const value = this.keyValue(key);
    if (this.dialect !== 'postgres' || value === undefined) return;
    const query = this.table()
      .select(this.model.primaryKey)
      .where(this.model.primaryKey, '=', value as never)
      .forNoKeyUpdate();
    await this.ctx.executor.all(query.compile());
  }

  async lockForDelete(keys: readonly unknown[]): Promise<boolean> {
    return this.#lockKeys(keys, 'delete');
  }

  async lockForUpdates(keys: readonly unknown[]): Promise<boolean> {
    return this.#lockKeys(keys, 'update');
  }

  /** PostgreSQL: the rows `keys` locked in key order (two writers of the same rows then wait, never deadlock); false where nothing is locked. */
  async #lockKeys(keys: readonly unknown[], purpose: 'update' | 'delete'): Promise<boolean> {
    if (this.dialect !== 'postgres') return false;
    const values = keys.map((key) => this.keyValue(key)).filter((value) => value !== undefined);
    for (let i = 0; i < values.length; i += LOCK_SLICE) {
      const query = this.table()
        .select(this.model.primaryKey)
        .where(this.model.primaryKey, 'in', values.slice(i, i + LOCK_SLICE) as never)
        .orderBy(this.model.primaryKey);
      await this.ctx.executor.all((purpose === 'delete' ? query.forUpdate() : query.forNoKeyUpdate()).compile());
    }
    return true;
  }

  countInWindows(fields: WindowFields, counters: readonly WindowCounter[], now: Date) {
    return countInWindows(this, fields, counters, now);
  }

  forgetWindows(fields: WindowFields, before: Date, limit: number) {
    return forgetWindows(this, fields, before, limit);
  }

  // --- writes --------------------------------------------------------------------------------------

  async create(args: { data: Create; include?: Include<T> }): Promise<T> {
    // The schema's defaults, for what the create type leaves optional (the routes applied them already).
    const data = withDefaults(this.model as Model, args.data as Rec);
    return this.atomically(this.linksIn(data), async (tx) => {
      await checkReferences(this.asRelationSource, tx, data);
      const insert = this.insertOf(this.columnValues(data));
      const rows = await this.run(() => tx.all<Row>(insert));
      await linkRelations(this.asRelationSource, tx, this.record(rows[0]!), data);
      this.written();
      // The row as inserted (RETURNING); relationships are read after linking them.
      return (await this.records(rows, args.include, tx))[0]!;
    });
  }

  async update(args: { where: Partial<T>; data: Update; include?: Include<T> }): Promise<T> {
    const data = args.data as Rec;
    return this.atomically(this.linksIn(data), async (tx) => {
      const key = this.keyOf(args.where);
      await checkReferences(this.asRelationSource, tx, data);
      const values = this.columnValues(data);
      const value = this.keyValue(key);
      const rows = value === undefined ? [] : await this.updateByKey(tx, value, values);
      if (rows.length === 0) throw new RecordNotFound(this.model.name, key);
      await linkRelations(this.asRelationSource, tx, this.record(rows[0]!), data);
      this.written();
      return (await this.records(rows, args.include, tx))[0]!;
    });
  }

  async updateMany(args: { where?: Where<T>; data: Update }): Promise<{ count: number }> {
    return this.ctx.executor.transaction(async (tx) => {
      const keys = await this.withExecutor(tx).keys(args.where);
      if (keys.length === 0) return { count: 0 };
      const data = args.data as Rec;
      await checkReferences(this.asRelationSource, tx, data);
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
      for (const key of keys) await linkRelations(this.asRelationSource, tx, { [this.model.primaryKey]: key }, data);
      this.written();
      return { count: keys.length };
    });
  }

  /** One statement: `delete … returning` the row as it was. */
  async delete(args: { where: Partial<T> }): Promise<T> {
    const key = this.keyOf(args.where);
    const value = this.keyValue(key);
    if (value === undefined) throw new RecordNotFound(this.model.name, key);
    const rows = await this.run(() => this.ctx.executor.all<Row>(this.deleteOf(value)));
    if (rows.length === 0) throw new RecordNotFound(this.model.name, key);
    this.written();
    return this.record(rows[0]!) as T;
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
      this.written();
      return { count: keys.length };
    });
  }

  // --- writes that append their event with them, as one step ------------------------------------------

  /**
   * PostgreSQL: in the write's own statement (recorded-writes.ts). SQLite: in one synchronous
   * transaction, the event made of the written row. An event names the keys of the relationships
   * kept in other tables: a create has none yet, but for an update or a delete they would be read
   * in the statement's snapshot, which can be older than the row it waits to lock (a transaction
   * that moved them may commit meanwhile). Those writes take a transaction, which reads them after.
   */
  recordedWrites(action: EventAction, inTime: () => void): RecordedWrites | undefined {
    if (action !== 'create' && !this.model.relations.every((r) => r.local)) return undefined;
    return {
      create: (args) => this.createRecorded(args, inTime),
      update: (args, kind) => this.updateRecorded(args, kind, inTime),
      delete: (args) => this.deleteRecorded(args, inTime),
    };
  }

  async createRecorded(args: { data: Rec; include?: Include<Rec> }, inTime: () => void): Promise<Rec> {
    const data = args.data;
    if (this.linksIn(data)) return this.inTransactionRecorded('create', (r) => r.create(args as never));
    const values = this.columnValues(data);
    const insert = this.insertOf(values);
    const columns = Object.keys(values);
    // With no column to write, `default values`: a statement of its own.
    const parts: WriteParts | undefined =
      this.dialect === 'postgres' && columns.length
        ? { kind: 'insert', columns, values: Object.values(values) }
        : undefined;
    const rows = await this.run(() => this.writeRecorded('create', insert, inTime, parts));
    this.written();
    return (await this.records(rows, args.include))[0]! as Rec;
  }

  async updateRecorded(
    args: { where: Rec; data: Rec; include?: Include<Rec> },
    action: 'update' | 'replace',
    inTime: () => void,
  ): Promise<Rec> {
    const values = this.columnValues(args.data);
    const pk = this.model.primaryKey;
    // Links, a change of the key, or nothing to set: the write is more than one statement.
    if (this.linksIn(args.data) || pk in values || Object.keys(values).length === 0)
      return this.inTransactionRecorded(action, (r) => r.update(args as never));
    const key = this.keyOf(args.where);
    const value = this.keyValue(key);
    const update = value === undefined ? undefined : this.updateOf(values, value);
    const parts: WriteParts | undefined =
      this.dialect === 'postgres'
        ? { kind: 'update', columns: Object.keys(values), values: Object.values(values), key: value }
        : undefined;
    const rows = update ? await this.run(() => this.writeRecorded(action, update, inTime, parts)) : [];
    if (rows.length === 0) throw new RecordNotFound(this.model.name, key);
    this.written();
    return (await this.records(rows, args.include))[0]! as Rec;
  }

  async deleteRecorded(args: { where: Rec }, inTime: () => void): Promise<void> {
    const key = this.keyOf(args.where);
    const value = this.keyValue(key);
    if (value === undefined) throw new RecordNotFound(this.model.name, key);
    const parts: WriteParts | undefined = this.dialect === 'postgres' ? { kind: 'delete', key: value } : undefined;
    const rows = await this.run(() => this.writeRecorded('delete', this.deleteOf(value), inTime, parts));
    if (rows.length === 0) throw new RecordNotFound(this.model.name, key);
    this.written();
  }

  /**
   * `write` (returning the model's columns) and its event, all or nothing. A create's event names
   * no related objects kept elsewhere (`emptyLinks`). `inTime` is asked last: on SQLite, after
   * waiting for the writer, before COMMIT (a late write rolls back); on PostgreSQL, before sending.
   * `parts` (PostgreSQL only): what `write` is made of, to make it one statement with other writes
   * of its shape (merged-writes.ts).
   */
  writeRecorded(action: EventAction, write: Compiled, inTime: () => void, parts?: WriteParts): Promise<Row[]> {
    const { models, executor } = this.ctx;
    const model = this.model as Model;
    if (this.dialect === 'postgres') {
      inTime();
      const statement = withEvent(models, model, action, write);
      const grouped = parts && groupedWrite(models, model, action, parts, inTime);
      return executor.all<Row>(grouped ? { ...statement, grouped } : statement);
    }
    return executor.allThen<Row>(write, ([row]) => {
      inTime();
      if (!row) return undefined;
      const record = { ...this.record(row), ...(action === 'create' ? emptyLinks(models, model) : {}) };
      return appendStatement(this.dialect, [newEvent(models, model, action, record)]);
    });
  }

  /** A write of several statements and its event, in one transaction. */
  inTransactionRecorded(action: EventAction, write: (repository: SqlRepository<T, Create, Update>) => Promise<T>) {
    return this.ctx.executor.transaction(async (tx) => {
      const record = (await write(this.withExecutor(tx))) as Rec;
      await appendSql(tx, [newEvent(this.ctx.models, this.model as Model, action, record)]);
      return record;
    });
  }

  /** `update … set values where key = ? returning *` (or the row as it is, with nothing to set). */
  async updateByKey(tx: SqlExecutor, key: unknown, values: Row): Promise<Row[]> {
    if (Object.keys(values).length === 0) return tx.all<Row>({ sql: this.#byKey, parameters: [key] });
    const query = this.updateOf(values, key);
    return this.run(() => tx.all<Row>(query));
  }

  /**
   * `delete … where key = ? returning` the model's columns (the row as it was); compiled once per model.
   * merged-writes.ts writes the same statement for deletes merged on PostgreSQL: change both.
   */
  deleteOf(key: unknown): Compiled {
    const { sql: text } = compiledOnce(this.model, this.dialect, 'delete:key', () =>
      this.ctx.compiler
        .deleteFrom(this.model.table)
        .where(this.model.primaryKey, '=', 0 as never)
        .returning(this.allColumns())
        .compile(),
    );
    return { sql: text, parameters: [key] };
  }

  /** `insert … returning` the model's columns. merged-writes.ts writes the same for creates merged on PostgreSQL: change both. */
  insertOf(values: Row): Compiled {
    return this.cachedWrite('insert', values, () =>
      Object.keys(values).length
        ? this.ctx.compiler.insertInto(this.model.table).values(values).returning(this.allColumns()).compile()
        : this.ctx.compiler.insertInto(this.model.table).defaultValues().returning(this.allColumns()).compile(),
    );
  }

  /**
   * `update … set values where key = ? returning` the model's columns (`values` not empty).
   * merged-writes.ts writes the same statement for changes merged on PostgreSQL: change both.
   */
  updateOf(values: Row, key: unknown): Compiled {
    const pk = this.model.primaryKey;
    const compile = () =>
      this.ctx.compiler
        .updateTable(this.model.table)
        .set(values)
        .where(pk, '=', key as never)
        .returning(this.allColumns())
        .compile();
    // The key is the last parameter; a change of the key itself is rare enough to compile each time.
    if (pk in values) return compile();
    const write = this.cachedWrite('update', values, compile);
    write.parameters.push(key);
    return write;
  }

  /**
   * Inserts and updates by key are compiled once per set of columns: their SQL depends only on
   * the column names, and their parameters are the values in order (an update adds the key).
   */
  cachedWrite(kind: 'insert' | 'update', values: Row, compile: () => Compiled): { sql: string; parameters: unknown[] } {
    const { sql: text } = compiledOnce(this.model, this.dialect, `${kind}:${Object.keys(values).join(',')}`, compile);
    return { sql: text, parameters: Object.values(values) };
  }

  /**
   * Whether a write of `data` sets relationships: their keys are checked and their links set by
   * statements of their own, so the write needs a transaction. Without, it is one statement.
   */
  linksIn(data: Rec): boolean {
    return this.model.relations.some((r) => data[r.name] !== undefined);
  }

  /** `work` in a transaction when `needed`, else on the repository's executor as it is. */
  atomically<R>(needed: boolean, work: (executor: SqlExecutor) => Promise<R>): Promise<R> {
    return needed ? this.ctx.executor.transaction(work) : work(this.ctx.executor);
  }

  /** The SQL of a `where` (conditions.ts): this repository is its source, for any `T`. */
  conditionOf(eb: ExpressionBuilder<AnyDB, string>, where: Where<T> | undefined): Expression<SqlBool> {
    return condition(this.asConditionSource, eb, where ?? {});
  }

  /** The repository of another model, on this one's executor (conditions.ts follows relationships so). */
  related(model: string): SqlRepository<Rec> {
    return this.repositoryOf(model, this.ctx.executor);
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
    if (!include || records.length === 0) return records as T[];
    const { keysOnly, rest } = this.#keysInStatement({ include });
    // The statement carried the keys of these relationships when it read them (findQuery): the rest as before.
    const carried = keysOnly.length > 0 && `${RELATED}${keysOnly[0]!.name}` in rows[0]!;
    if (carried) rows.forEach((row, i) => this.#attachRelatedKeys(records[i]!, row, keysOnly));
    await includeRelated(this.asRelationSource, executor, records, carried ? rest : (include as Included));
    return records as T[];
  }

  /** The lists of keys a statement read for `relations` (JSON from its subqueries), into `record`. */
  #attachRelatedKeys(record: Rec, row: Row, relations: readonly RelationSpec[]): void {
    for (const relation of relations) {
      const target = this.ctx.models.get(relation.target)!;
      const keyField = target.field(target.primaryKey)!;
      const value = row[`${RELATED}${relation.name}`];
      const list = (typeof value === 'string' ? JSON.parse(value) : value) as unknown[];
      const keys = list.map((k) => fromDb(k, keyField));
      record[relation.name] = relation.cardinality === 'many' ? keys : (keys[0] ?? null);
    }
  }

  record(row: Row): Rec {
    return rowRecord(this.model as Model, row);
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
        checkRange(field, value);
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

  /** This repository as conditions.ts sees it. */
  get asConditionSource(): ConditionSource {
    return this as unknown as ConditionSource;
  }

  /** This repository as relations.ts sees it. */
  get asRelationSource(): RelationSource {
    return this as unknown as RelationSource;
  }

  /** Runs a write, turning constraint errors of either database into `ConstraintViolation`. */
  async run<R>(write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (error) {
      throw constraintViolation(error, this.model as Model) ?? error;
    }
  }
}

/**
 * Statements compiled once per model, dialect and shape: inserts and updates by column list, pages
 * without conditions, the count of a table, the read by key. The shapes are the column sets and
 * page forms clients send; a model's cache starts over past 1,000 of them.
 */
const compiledStatements = new WeakMap<object, Map<string, Compiled>>();

function compiledOnce(model: object, dialect: string, shape: string, compile: () => Compiled): Compiled {
  let cache = compiledStatements.get(model);
  if (!cache || cache.size > 1000) compiledStatements.set(model, (cache = new Map()));
  const key = `${dialect}:${shape}`;
  let compiled = cache.get(key);
  if (!compiled) cache.set(key, (compiled = compile()));
  return compiled;
}

function byKeySql(model: Model, ctx: SqlContext): string {
  const columns = model.columns.map((f) => f.column!);
  return compiledOnce(model, ctx.executor.dialect, 'byKey', () =>
    ctx.compiler.selectFrom(model.table).select(columns).where(model.primaryKey, '=', 0).compile(),
  ).sql;
}

/** Whether a `where` searches, anywhere in it (routes put the search at the top; handlers may not). */
function searches(where: unknown): boolean {
  if (typeof where !== 'object' || where === null) return false;
  if (Array.isArray(where)) return where.some(searches);
  return Object.entries(where).some(
    ([key, value]) =>
      key === 'SEARCH' || ((key === 'AND' || key === 'OR' || key === 'NOT' || key === 'EXCEPT') && searches(value)),
  );
}

/** Conditions that must all hold, each on one plain column (`SqlRepository.plainConditions`). */
interface PlainConditions {
  /** Each condition's field, operator and number of values. */
  readonly shape: readonly [string, PlainOperator, number][];
  /** Each condition's `table.column`. */
  readonly columns: readonly string[];
  /** Every condition's values, as stored, in order. */
  readonly values: readonly unknown[];
}

/** Plain conditions at most in one compiled shape: the shapes a model keeps stay few. */
const MOST_PLAIN_CONDITIONS = 8;

/** The `[field, condition]` pairs all of which `where` asks for (its keys, and those of its ANDs); undefined for anything else. */
function conjuncts(where: unknown): [string, unknown][] | undefined {
  if (typeof where !== 'object' || where === null || Array.isArray(where)) return undefined;
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(where)) {
    if (value === undefined) continue;
    // The other logical keys are the general way's, whatever fields a model has.
    if (key === 'OR' || key === 'NOT' || key === 'SEARCH') return undefined;
    if (key !== 'AND') {
      out.push([key, value]);
      continue;
    }
    if (!Array.isArray(value)) return undefined;
    for (const part of value) {
      const inner = conjuncts(part);
      if (!inner) return undefined;
      out.push(...inner);
    }
  }
  return out;
}

/** A compiled shape with its stand-ins replaced: the page's length and offset, and `plain`'s values. */
function bound(
  shape: Compiled,
  args: { take?: number; skip?: number },
  plain?: PlainConditions,
  countKey?: string | number,
): Compiled {
  return {
    sql: shape.sql,
    parameters: shape.parameters.map((p) =>
      p === TAKE ? args.take : p === SKIP ? args.skip : p === COUNT_KEY ? countKey : plain ? valueFor(p, plain) : p,
    ),
  };
}

/** `query` with `plain`'s conditions on stand-ins for their values (`valueFor` puts them back). */
function wherePlain<Q extends SelectQueryBuilder<AnyDB, string, Row>>(query: Q, plain: PlainConditions): Q {
  let next = 0;
  let out = query;
  plain.shape.forEach(([, op, count], i) => {
    const stands = Array.from({ length: count }, () => VALUE - next++);
    out = out.where(plain.columns[i]!, op, op === 'in' ? stands : stands[0]!) as Q;
  });
  return out;
}

function valueFor(parameter: unknown, plain: PlainConditions): unknown {
  return typeof parameter === 'number' && parameter <= VALUE && parameter > VALUE - plain.values.length
    ? plain.values[VALUE - parameter]
    : parameter;
}

/**
 * The names findFirstWithLinked gives the other row's columns in its result: with a `:`, which no
 * column has (field names are letters, digits and `_`), so that no column of the object's own
 * can stand for one of them (a user's field for their credential's token digest).
 */
const LINKED = 'svc_linked:';
/** …and the lists of keys of objects' relationships, read with them (`#keysInStatement`). */
const RELATED = 'svc_related:';
/** The most rows a quick page passes by, those before it included (`Compiled.quickPage`): the largest page anyone may get. */
const QUICK_PAGE_ROWS = 1000;
/** …and the number of all the rows, read with a page (`findManyWithTotal`). */
const PAGE_TOTAL = 'svc_page:total';
/** Key types whose values JSON carries exactly, as numbers (up to 2^53) or text. */
const JSON_EXACT_KEYS: ReadonlySet<string> = new Set([
  'id_field',
  'integer',
  'small_integer',
  'string',
  'text',
  'unicode',
  'unicode_text',
]);
type Included = Record<string, true | { include?: Record<string, unknown> }>;

/** Stand-ins for a page's limit and offset, a table's count key, and values (VALUE, VALUE - 1, …), while its SQL is compiled. */
const TAKE = -7_770_001;
const SKIP = -7_770_002;
const COUNT_KEY = -7_770_003;
const VALUE = -7_780_000;

/** The values and operator of `value`, `{ equals: value }`, `{ in: [values] }`, `{ gt: value }`…; undefined for any other condition. */
function valuesOf(condition: unknown): { values: unknown[]; op: PlainOperator } | undefined {
  if (typeof condition !== 'object' || condition === null) return { values: [condition], op: '=' };
  const entries = Object.entries(condition);
  if (Array.isArray(condition) || entries.length !== 1) return undefined;
  const [name, operand] = entries[0]!;
  if (name === 'in') return Array.isArray(operand) ? { values: operand as unknown[], op: 'in' } : undefined;
  const op = COMPARISONS[name];
  return op ? { values: [operand], op } : undefined;
}

type PlainOperator = '=' | 'in' | '>' | '>=' | '<' | '<=';

/** The operators of conditions.ts that compare a column with one value as it is. */
const COMPARISONS: Readonly<Record<string, PlainOperator>> = { equals: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Storage whose values a condition compares as they are (not json lists and objects, not blobs). */
const PLAIN = new Set<string>(['text', 'integer', 'real', 'boolean', 'datetime', 'date', 'time']);

/** No condition at all: `{}` (a list without filters) or nothing. */
function noConditions(where: unknown): boolean {
  return where === undefined || Object.values(where as object).every((v) => v === undefined);
}

/** How many rows a page reads from the start: its offset and its length (all, without a limit). */
function pageEnd(args: { skip?: number; take?: number }): number | undefined {
  return args.take === undefined ? undefined : (args.skip ?? 0) + args.take;
}

export type { Compiled };
