/**
 * `Where` (src/lib/repository.ts) → a MongoDB filter, with the SQL engine's meaning. SQL has
 * three truth values: a comparison with a null is unknown, and neither it nor its `NOT` matches.
 * So a condition gives two filters here: where it is true, and where it is false. `not` (a value)
 * and `equals: null` are null-safe, `notIn` never matches a null, `contains`/`startsWith` ignore
 * case, and a condition on a relationship kept on the other side asks the other collection first.
 * Commands run one after another: inside a transaction MongoDB takes one at a time.
 */
import type { Model } from '../model.js';
import { isFieldFilter, relatedAmong, relatedKeyFilter, type FieldFilter, type Where } from '../repository.js';
import { isFilterOperator } from '../query-operators.js';
import type { SearchFilter } from '../search.js';
import { searchMatch } from './search.js';

type Rec = Record<string, unknown>;
export type MongoFilter = Record<string, unknown>;

/** Matches no document. */
const NOTHING: MongoFilter = { _id: { $in: [] } };

/** What a filter needs of the repository of the model it filters (MongoRepository is one). */
export interface FilterSource {
  readonly model: Model;
  /** Where a document keeps a field (`_id` for the key). */
  pathOf(name: string): string;
  /** Where a document keeps a column (a foreign key: the relationship's name). */
  pathOfColumn(column: string): string;
  /** A value as the documents store it. */
  valueFor(name: string, value: unknown): unknown;
  /** The distinct values at `path` of the documents that match. */
  distinct(path: string, filter: MongoFilter): Promise<unknown[]>;
  /** The source of another model, in the same session. */
  repositoryOf(model: string): FilterSource;
}

/** Where the condition is true, and where it is false (never where it is unknown). */
interface Truth {
  readonly yes: MongoFilter;
  readonly no: MongoFilter;
}

export async function mongoFilter(repository: FilterSource, where: Where<Rec> | undefined): Promise<MongoFilter> {
  return where ? (await truth(repository, where)).yes : {};
}

async function truth(repository: FilterSource, where: Where<Rec>): Promise<Truth> {
  const parts: Truth[] = [];
  for (const [name, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (name === 'AND' || name === 'OR') {
      const list: Truth[] = [];
      for (const w of value as Where<Rec>[]) list.push(await truth(repository, w));
      parts.push(name === 'AND' ? and(list) : or(list));
    } else if (name === 'NOT') {
      const list: Truth[] = [];
      for (const w of Array.isArray(value) ? value : [value]) list.push(await truth(repository, w as Where<Rec>));
      parts.push(not(and(list)));
    } else if (name === 'EXCEPT') {
      // Where the condition is not true: false, or unknown (a comparison with a null).
      parts.push(certain({ $nor: [(await truth(repository, value as Where<Rec>)).yes] }));
    } else if (name === 'SEARCH') parts.push(certain(searchMatch(value as SearchFilter)));
    else parts.push(await fieldTruth(repository, name, value));
  }
  return and(parts);
}

async function fieldTruth(repository: FilterSource, name: string, value: unknown): Promise<Truth> {
  const filter: FieldFilter<unknown> = isFieldFilter(value) ? value : { equals: value };
  const relation = repository.model.relation(name);
  // EXISTS in SQL: true or false, never unknown.
  if (relation && !relation.local) return certain(await relatedFilter(repository, name, filter));
  const path = repository.pathOf(name);
  const convert = (v: unknown) => repository.valueFor(name, v);
  const parts: Truth[] = [];
  for (const [op, operand] of Object.entries(filter)) {
    if (!isFilterOperator(op)) throw new Error(`unknown filter operator ${op}`);
    // Every condition of the operators' table (lib/query-operators.ts), or this does not compile.
    switch (op) {
      case 'equals':
        parts.push(operand === null ? certain({ [path]: null }) : nullable(path, matchValue(path, convert(operand))));
        break;
      case 'not':
        if (isFieldFilter(operand)) parts.push(not(await fieldTruth(repository, name, operand)));
        // `not` a value matches nulls (the SQL engine says `<> v or is null`): never unknown.
        else parts.push(certain({ [path]: { $ne: operand === null ? null : (convert(operand) ?? null) } }));
        break;
      case 'in':
      case 'notIn': {
        // A null in the list matches nothing (SQL: `= null` is unknown).
        const list = (operand as unknown[])
          .map((v) => (v === null ? undefined : convert(v)))
          .filter((v) => v !== undefined);
        // An empty `in` is false everywhere, nulls too (the SQL engine says `1 = 0`).
        if (op === 'in') parts.push(list.length ? nullable(path, { [path]: { $in: list } }) : certain(NOTHING));
        // An empty `notIn` is no condition at all (the SQL engine adds none).
        else if (list.length) parts.push(nullable(path, { [path]: { $nin: list, $ne: null } }));
        break;
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const v = operand === null ? undefined : convert(operand);
        parts.push(v === undefined ? { yes: NOTHING, no: NOTHING } : nullable(path, { [path]: { [`$${op}`]: v } }));
        break;
      }
      case 'contains':
      case 'startsWith': {
        const text = String(operand).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        parts.push(nullable(path, { [path]: { $regex: op === 'contains' ? text : `^${text}`, $options: 'i' } }));
        break;
      }
      case 'has':
      case 'hasSome': {
        // A missing list holds nothing: true or false, never unknown (as the SQL engine says).
        const list = (op === 'has' ? [operand] : (operand as unknown[]))
          .map((v) => (v === null ? undefined : convert(v)))
          .filter((v) => v !== undefined);
        parts.push(certain(list.length ? { [path]: { $in: list } } : NOTHING));
        break;
      }
      default:
        op satisfies never;
    }
  }
  return and(parts);
}

/** Equality with a value the field can hold; one it cannot (`abc` for an integer key) matches nothing. */
function matchValue(path: string, value: unknown): MongoFilter {
  return value === undefined ? NOTHING : { [path]: value };
}

/** A comparison of a field that may be null: true where it holds, false where the field has a value and it does not. */
function nullable(path: string, yes: MongoFilter): Truth {
  return { yes, no: { $and: [{ [path]: { $ne: null } }, { $nor: [yes] }] } };
}

/** A condition that is never unknown. */
function certain(yes: MongoFilter): Truth {
  return { yes, no: { $nor: [yes] } };
}

function not(t: Truth): Truth {
  return { yes: t.no, no: t.yes };
}

function and(list: Truth[]): Truth {
  if (list.length === 1) return list[0]!;
  return { yes: all(list.map((t) => t.yes)), no: list.length ? { $or: list.map((t) => t.no) } : NOTHING };
}

function or(list: Truth[]): Truth {
  if (list.length === 0) return { yes: NOTHING, no: {} };
  return { yes: { $or: list.map((t) => t.yes) }, no: all(list.map((t) => t.no)) };
}

/**
 * A relationship kept on the other side: the keys of the objects the matching related objects
 * point at. As in the SQL engine, `not` negates a whole condition and `equals: null` means no
 * related object at all.
 */
async function relatedFilter(
  repository: FilterSource,
  name: string,
  filter: FieldFilter<unknown>,
  among: Where<Rec> | undefined = relatedAmong(filter),
): Promise<MongoFilter> {
  const relation = repository.model.relation(name)!;
  const target = repository.repositoryOf(relation.target);
  const fk = target.pathOfColumn(relation.foreignKey);
  // Of the related objects `among` selects (RELATED_AMONG), when given.
  const linked = async (where: Where<Rec>) =>
    all([await mongoFilter(target, among ? { AND: [where, among] } : where), { [fk]: { $ne: null } }]);
  const parts: MongoFilter[] = [];
  for (const [op, operand] of Object.entries(filter)) {
    if (operand === undefined) continue;
    if (op === 'not') {
      const negated = isFieldFilter(operand) ? operand : { equals: operand };
      parts.push({ $nor: [await relatedFilter(repository, name, negated, among)] });
    } else if (op === 'equals' && operand === null) {
      parts.push({ _id: { $nin: await target.distinct(fk, await linked({})) } });
    } else {
      const where = { [target.model.primaryKey]: relatedKeyFilter(op, operand) } as Where<Rec>;
      parts.push({ _id: { $in: await target.distinct(fk, await linked(where)) } });
    }
  }
  return all(parts);
}

function all(parts: MongoFilter[]): MongoFilter {
  const real = parts.filter((p) => Object.keys(p).length > 0);
  return real.length === 0 ? {} : real.length === 1 ? real[0]! : { $and: real };
}
