/**
 * `Where` (src/lib/repository.ts) → a MongoDB filter, with the SQL engine's meaning: `not`
 * matches nulls, `notIn` does not, `contains`/`startsWith` ignore case, and a condition on a
 * relationship kept on the other side asks the other collection first.
 */
import type { FieldFilter, Where } from '../repository.js';
import type { MongoRepository } from './repository.js';

type Rec = Record<string, unknown>;
export type MongoFilter = Record<string, unknown>;

/** Matches no document. */
const NOTHING: MongoFilter = { _id: { $in: [] } };

const OPERATORS = ['equals', 'not', 'in', 'notIn', 'gt', 'gte', 'lt', 'lte', 'contains', 'startsWith', 'has'];

export async function mongoFilter(
  repository: MongoRepository<Rec>,
  where: Where<Rec> | undefined,
): Promise<MongoFilter> {
  if (!where) return {};
  const parts: MongoFilter[] = [];
  for (const [name, value] of Object.entries(where)) {
    if (value === undefined) continue;
    if (name === 'AND' || name === 'OR') {
      const list = await Promise.all((value as Where<Rec>[]).map((w) => mongoFilter(repository, w)));
      parts.push(name === 'AND' ? all(list) : list.length ? { $or: list } : NOTHING);
    } else if (name === 'NOT') {
      const list = await Promise.all(
        (Array.isArray(value) ? value : [value]).map((w: Where<Rec>) => mongoFilter(repository, w)),
      );
      parts.push({ $nor: [all(list)] });
    } else parts.push(await fieldFilter(repository, name, value));
  }
  return all(parts);
}

async function fieldFilter(repository: MongoRepository<Rec>, name: string, value: unknown): Promise<MongoFilter> {
  const filter: FieldFilter<unknown> = isFilter(value) ? value : { equals: value };
  const relation = repository.model.relation(name);
  if (relation && !relation.local) return relatedFilter(repository, name, filter);
  const path = repository.pathOf(name);
  const convert = (v: unknown) => repository.valueFor(name, v);
  const parts: MongoFilter[] = [];
  for (const [op, operand] of Object.entries(filter)) {
    switch (op) {
      case 'equals': {
        const v = operand === null ? null : convert(operand);
        // A value the field cannot hold (`abc` for an integer key) matches nothing.
        parts.push(v === undefined ? NOTHING : { [path]: v });
        break;
      }
      case 'not':
        parts.push(
          isFilter(operand)
            ? { $nor: [await fieldFilter(repository, name, operand)] }
            : { [path]: { $ne: operand === null ? null : (convert(operand) ?? null) } },
        );
        break;
      case 'in':
      case 'notIn': {
        const list = (operand as unknown[]).map(convert).filter((v) => v !== undefined);
        if (op === 'in') parts.push({ [path]: { $in: list } });
        // As in SQL, `not in` never matches a null.
        else parts.push({ [path]: list.length ? { $nin: list, $ne: null } : { $ne: null } });
        break;
      }
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const v = convert(operand);
        parts.push(v === undefined ? NOTHING : { [path]: { [`$${op}`]: v } });
        break;
      }
      case 'contains':
      case 'startsWith': {
        const text = String(operand).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        parts.push({ [path]: { $regex: op === 'contains' ? text : `^${text}`, $options: 'i' } });
        break;
      }
      case 'has': {
        const v = convert(operand);
        parts.push(v === undefined ? NOTHING : { [path]: v });
        break;
      }
      default:
        throw new Error(`unknown filter operator ${op}`);
    }
  }
  return all(parts);
}

/** A relationship kept on the other side: the keys of the objects the matching related objects point at. */
async function relatedFilter(
  repository: MongoRepository<Rec>,
  name: string,
  filter: FieldFilter<unknown>,
): Promise<MongoFilter> {
  const relation = repository.model.relation(name)!;
  const target = repository.repositoryOf(relation.target);
  const keyFilter: FieldFilter<unknown> = 'has' in filter ? { equals: filter.has } : filter;
  const fk = target.pathOfColumn(relation.foreignKey);
  if ('equals' in keyFilter && keyFilter.equals === null) {
    return { _id: { $nin: await target.distinct(fk, { [fk]: { $ne: null } }) } };
  }
  const matching = await mongoFilter(target, { [target.model.primaryKey]: keyFilter } as Where<Rec>);
  return { _id: { $in: await target.distinct(fk, { $and: [matching, { [fk]: { $ne: null } }] }) } };
}

function all(parts: MongoFilter[]): MongoFilter {
  const real = parts.filter((p) => Object.keys(p).length > 0);
  return real.length === 0 ? {} : real.length === 1 ? real[0]! : { $and: real };
}

function isFilter(value: unknown): value is FieldFilter<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Date) &&
    Object.keys(value).every((k) => OPERATORS.includes(k))
  );
}
