/**
 * `where` → SQL: the conditions of the query language (lib/repository.ts `Where`) as Kysely
 * expressions, values bound as parameters. Filters on a relationship kept in the other table
 * become `exists` subqueries; a search becomes the engine's full-text match (search.ts).
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { FieldSpec, Model, RelationSpec } from '../model.js';
import { isFieldFilter, relatedAmong, relatedKeyFilter, type FieldFilter, type Where } from '../repository.js';
import { isFilterOperator } from '../query-operators.js';
import type { SearchFilter } from '../search.js';
import { toDb, type Dialect } from '../values.js';
import { searchCondition, type SearchTarget } from './search.js';
import { likeFolds, NOT_ASCII, SQLITE_HOLDS } from './text-fold.js';

type AnyDB = Record<string, Record<string, unknown>>;
type Eb = ExpressionBuilder<AnyDB, string>;
type Rec = Record<string, unknown>;

/** What conditions need of the repository of the model they filter (SqlRepository is one). */
export interface ConditionSource {
  readonly model: Model;
  readonly dialect: Dialect;
  readonly searchTarget: SearchTarget;
  /** The column of a field or relationship. */
  columnOf(name: string): string;
  /** A key as the database stores it, or undefined when it cannot be one. */
  keyValue(key: unknown): unknown;
  /** The source of another model, on the same executor. */
  related(model: string): ConditionSource;
}

/** Subqueries name the related table so: it may be the model's own (a self-reference). */
const RELATED = 'svc_related';

export function condition(source: ConditionSource, eb: Eb, where: Where<Rec>): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  for (const [name, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (name === 'AND') parts.push(eb.and((value as Where<Rec>[]).map((w) => condition(source, eb, w))));
    else if (name === 'OR') parts.push(eb.or((value as Where<Rec>[]).map((w) => condition(source, eb, w))));
    else if (name === 'NOT')
      parts.push(
        eb.not(eb.and((Array.isArray(value) ? value : [value]).map((w: Where<Rec>) => condition(source, eb, w)))),
      );
    else if (name === 'EXCEPT') {
      // Where the condition is not true: false, or unknown (a comparison with a null).
      const selected = condition(source, eb, value as Where<Rec>);
      parts.push(sql<SqlBool>`not coalesce(${selected}, false)`);
    } else if (name === 'SEARCH') parts.push(searchCondition(source.searchTarget, value as SearchFilter));
    else parts.push(fieldCondition(source, eb, name, value));
  }
  return eb.and(parts);
}

/** `table`: how the query names the model's table (an alias in subqueries). */
function fieldCondition(
  source: ConditionSource,
  eb: Eb,
  name: string,
  value: unknown,
  table: string = source.model.table,
): Expression<SqlBool> {
  const { model } = source;
  const filter: FieldFilter<unknown> = isFieldFilter(value) ? value : { equals: value };
  const relation = model.relation(name);
  if (relation && !relation.local) return relatedCondition(source, eb, relation, filter);
  const column = `${table}.${source.columnOf(name)}`;
  const field = model.field(name) ?? model.columns.find((c) => c.column === source.columnOf(name))!;
  const convert = (v: unknown) =>
    relation ? source.related(relation.target).keyValue(v) : dbValue(v, field, source.dialect);
  const parts: Expression<SqlBool>[] = [];
  const ref = eb.ref(column);
  for (const [op, operand] of Object.entries(filter)) {
    if (!isFilterOperator(op)) throw new Error(`unknown filter operator ${op}`);
    // Every condition of the operators' table (lib/query-operators.ts), or this does not compile.
    switch (op) {
      case 'equals':
        parts.push(operand === null ? eb(ref, 'is', null) : eb(ref, '=', convert(operand) as never));
        break;
      case 'not':
        parts.push(
          isFieldFilter(operand)
            ? eb.not(fieldCondition(source, eb, name, operand, table))
            : operand === null
              ? eb(ref, 'is not', null)
              : eb.or([eb(ref, '!=', convert(operand) as never), eb(ref, 'is', null)]),
        );
        break;
      case 'in':
      case 'notIn': {
        const list = relation
          ? (operand as unknown[]).map(convert).filter((v) => v !== undefined)
          : storedValues(source, field, operand as unknown[]);
        if (op === 'in') parts.push(list.length ? inList(eb, source.dialect, ref, list, 'in') : sql<SqlBool>`1 = 0`);
        else if (list.length) parts.push(inList(eb, source.dialect, ref, list, 'not in'));
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
        // On SQLite, as MongoDB ignores case (text-fold.ts): LIKE for the rows of ASCII alone.
        const holds = sql<SqlBool>`${sql.raw(SQLITE_HOLDS)}(${ref}, ${String(operand)}, ${op === 'contains' ? 0 : 1})`;
        parts.push(
          source.dialect === 'postgres'
            ? sql<SqlBool>`${ref}::text ilike ${pattern} escape '\\'`
            : likeFolds(pattern)
              ? sql<SqlBool>`(${ref} like ${pattern} escape '\\' or (${ref} glob ${NOT_ASCII} and ${holds}))`
              : holds,
        );
        break;
      }
      case 'has':
        parts.push(jsonHasSome(source.dialect, ref, [operand]));
        break;
      case 'hasSome':
        parts.push(jsonHasSome(source.dialect, ref, operand as unknown[]));
        break;
      default:
        op satisfies never;
    }
  }
  return eb.and(parts);
}

/**
 * A list field holds one of the values. True or false, never unknown: a null list holds
 * nothing, as an object with no related objects does, so that `NOT` includes it on both.
 */
function jsonHasSome(dialect: Dialect, ref: Expression<unknown>, values: readonly unknown[]): Expression<SqlBool> {
  if (values.length === 0) return sql<SqlBool>`1 = 0`;
  // A long list is one parameter, a JSON array, as `inList`'s (a condition each overran the parameters).
  const json = values.length > LONG_LIST ? jsonArray(values, dialect) : undefined;
  if (json !== undefined && dialect === 'postgres')
    return sql<SqlBool>`coalesce(exists (select 1 from jsonb_array_elements(${ref}) as held where held.value in (select value from jsonb_array_elements(${json}::jsonb))), false)`;
  if (json !== undefined)
    return sql<SqlBool>`exists (select 1 from json_each(${ref}) where json_each.value in (select value from json_each(${json})))`;
  if (dialect === 'postgres') {
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
function relatedCondition(
  source: ConditionSource,
  eb: Eb,
  relation: RelationSpec,
  filter: FieldFilter<unknown>,
  among: Where<Rec> | undefined = relatedAmong(filter),
): Expression<SqlBool> {
  const target = source.related(relation.target);
  const parts: Expression<SqlBool>[] = [];
  for (const [op, operand] of Object.entries(filter)) {
    if (operand === undefined) continue;
    if (op === 'not') {
      const negated = isFieldFilter(operand) ? operand : { equals: operand };
      parts.push(eb.not(relatedCondition(source, eb, relation, negated, among)));
    } else if (op === 'equals' && operand === null) {
      parts.push(eb.not(eb.exists(relatedRows(source, eb, relation, target, among))));
    } else {
      const keyFilter = relatedKeyFilter(op, operand);
      const sub = relatedRows(source, eb, relation, target, among).where((tb) =>
        fieldCondition(target, tb, target.model.primaryKey, keyFilter, RELATED),
      );
      parts.push(eb.exists(sub));
    }
  }
  return eb.and(parts);
}

/**
 * The related rows, under an alias: the target may be this model's own table (a self-reference).
 * Of those `among` selects, when given: in a subquery of their own, where the table's own name
 * is the nearest.
 */
function relatedRows(
  source: ConditionSource,
  eb: Eb,
  relation: RelationSpec,
  target: ConditionSource,
  among: Where<Rec> | undefined,
) {
  const rows = eb
    .selectFrom(`${target.model.table} as ${RELATED}`)
    .select(sql`1`.as('one'))
    .whereRef(`${RELATED}.${relation.foreignKey}`, '=', `${source.model.table}.${source.model.primaryKey}`);
  if (!among) return rows;
  const { table, primaryKey } = target.model;
  const selected = eb
    .selectFrom(table)
    .select(`${table}.${primaryKey}`)
    .where((tb) => condition(target, tb, among));
  return rows.where(`${RELATED}.${primaryKey}`, 'in', selected);
}

/**
 * Lists longer than this are bound as one value. Bound one parameter a value, a principal's `where`
 * that listed a member's 40,000 objects overran SQLite's 32,766 parameters (a 500) and
 * PostgreSQL's 65,535 (a protocol error, answered as an outage): every list of theirs failed.
 */
export const LONG_LIST = 100;

/**
 * `column in (…)` (or `not in`): a short list as it is, a long one as one parameter, a PostgreSQL
 * array (`= any(?)`, `<> all(?)`) or a JSON array that SQLite reads with `json_each`.
 */
function inList(eb: Eb, dialect: Dialect, ref: Expression<unknown>, list: readonly unknown[], op: 'in' | 'not in') {
  if (list.length <= LONG_LIST) return eb(ref, op, list as never);
  if (dialect === 'postgres')
    return op === 'in' ? sql<SqlBool>`${ref} = any(${list})` : sql<SqlBool>`${ref} <> all(${list})`;
  const json = jsonArray(list);
  // A value JSON cannot carry (bytes): one parameter each, as short lists.
  if (json === undefined) return eb(ref, op, list as never);
  const values = sql`(select value from json_each(${json}))`;
  return op === 'in' ? sql<SqlBool>`${ref} in ${values}` : sql<SqlBool>`${ref} not in ${values}`;
}

/**
 * `values` as a JSON array that SQLite's `json_each` reads back as they are: text, numbers (big
 * integers exactly), null (a principal's keys may hold one); booleans as the numbers SQLite stores
 * (PostgreSQL's JSON keeps them). Undefined when one is none of these.
 */
function jsonArray(values: readonly unknown[], dialect: Dialect = 'sqlite'): string | undefined {
  const items: string[] = [];
  for (const v of values) {
    if (typeof v === 'bigint') items.push(v.toString());
    else if (typeof v === 'boolean' && dialect === 'sqlite') items.push(v ? '1' : '0');
    else if (typeof v === 'boolean') items.push(String(v));
    else if (v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
      items.push(JSON.stringify(v));
    else return undefined;
  }
  return `[${items.join(',')}]`;
}

/**
 * `values` as a condition on `field`'s column compares them; of the key, only those that can be
 * keys (`abc` is no integer key: PostgreSQL would refuse it, SQLite match nothing).
 */
export function storedValues(source: ConditionSource, field: FieldSpec, values: readonly unknown[]): unknown[] {
  return values
    .map((v) => (field.primaryKey ? source.keyValue(v) : v))
    .map((v) => (v === undefined ? undefined : dbValue(v, field, source.dialect)))
    .filter((v) => v !== undefined);
}

/**
 * A value as a condition on `field` compares it (a key given as text, `"7"`, is the number 7). A
 * decimal is compared as given, not rounded as it would be stored: `price__lt=1.004` holds for 1.00.
 */
export function dbValue(value: unknown, field: FieldSpec, dialect: Dialect): unknown {
  if (field.storage === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value)) return Number(value);
  if (field.storage === 'real') return value;
  return toDb(value, field, dialect);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
