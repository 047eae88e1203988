/**
 * The query language of collection reads, typed: `where` names fields with the operators the
 * service allows on each (the generated client lists them per field, from the runtime's table of
 * operators), `sort`, `fields` and paging; and how a query becomes the query string
 * (`field=a&field=b`, `field__gt=1`, `_sort=-created_at`).
 */

/** What an operator takes (the `takes` of the runtime's operator table). */
export type Takes = 'one' | 'list' | 'text' | 'boolean';

/** The operators of one field and what each takes: `{ '': 'list'; gt: 'one'; isnull: 'boolean' }` (`''` is `field=`). */
export type Operators = Readonly<Record<string, Takes>>;

/** A value an operator compares a field of values `V` with. */
export type Operand<V, T> = T extends 'one'
  ? V
  : T extends 'list'
    ? V | readonly V[]
    : T extends 'text'
      ? string
      : T extends 'boolean'
        ? boolean
        : never;

/**
 * A condition on one field: its value (or values: any of them), where the field takes `field=`,
 * or its operators, `{ gt: 3, lte: 9 }`. An operator the field does not take is a type error.
 */
export type Filter<V, O extends Operators> =
  ('' extends keyof O ? Operand<V, O['']> : never) | { readonly [K in Exclude<keyof O, ''>]?: Operand<V, O[K]> };

/** A field to sort by, ascending, or descending with a `-`. */
export type Sort<F extends string> = F | `-${F}`;

/** What a collection read selects: filters only (a count, a change to many objects). */
export interface Selection<W> {
  readonly where?: W;
}

/** A page of a collection read. */
export interface ListQuery<W, F extends string> extends Selection<W> {
  readonly sort?: readonly Sort<F>[];
  /** The fields to answer with, or those to leave out (`-name`): the answers then hold only those. */
  readonly fields?: readonly F[] | readonly `-${F}`[];
  /** Items per page (the service's default is 20, its most `max_limit`). */
  readonly limit?: number;
  /** Zero-based page number; not with `start`. */
  readonly page?: number;
  /** Offset of the first item; not with `page`. */
  readonly start?: number;
  /** The page after this cursor (`cursorOf` a page, from its `next` link); not with `page` or `start`. */
  readonly after?: string;
}

/** A full-text search: the text, in some of the text fields (default: all the caller may read). */
export interface SearchQuery<W, F extends string, S extends string> extends ListQuery<W, F> {
  readonly in?: readonly S[];
}

/** The query string of a read: paging, sorting, fields, then every filter. */
export function listParameters(query: ListQuery<object, string> = {}): URLSearchParams {
  const params = whereParameters(query.where);
  if (query.limit !== undefined) params.set('_limit', String(query.limit));
  if (query.page !== undefined) params.set('_page', String(query.page));
  if (query.start !== undefined) params.set('_start', String(query.start));
  if (query.after !== undefined) params.set('_after', query.after);
  if (query.sort?.length) params.set('_sort', query.sort.join(','));
  if (query.fields?.length) params.set('_fields', query.fields.join(','));
  return params;
}

/**
 * The filters of `where`: a value or a list is `field=` (a list repeats the parameter: the service
 * reads `a=1&a=2` as `a=1,2`), an object of operators is `field__<op>=` for each.
 */
export function whereParameters(where: object | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [field, condition] of Object.entries(where ?? {}) as [string, unknown][]) {
    if (isOperators(condition)) {
      for (const [op, value] of Object.entries(condition))
        append(params, op === '' ? field : `${field}__${op}`, value, LIST_OPERATORS.has(op));
    } else append(params, field, condition, true);
  }
  return params;
}

function isOperators(condition: unknown): condition is Readonly<Record<string, unknown>> {
  return typeof condition === 'object' && condition !== null && !Array.isArray(condition);
}

/** The operators whose values the service reads as a list, split at commas (`in=a,b`). */
const LIST_OPERATORS: ReadonlySet<string> = new Set(['', 'in', 'ne']);

function append(params: URLSearchParams, name: string, value: unknown, list = false): void {
  if (value === undefined) return;
  for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) {
    const written = text(one);
    // The service splits a list's values at every comma, percent-encoded too (as URLSearchParams
    // sends one): such a value would be compared as two, and match what it should not.
    if (list && written.includes(','))
      throw new TypeError(
        `${name}: the value ${JSON.stringify(written)} has a comma, which separates values here; compare with gte and lte of it, or contains`,
      );
    params.append(name, written);
  }
}

function text(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TypeError(`a filter compares with a string, number or boolean, not ${JSON.stringify(value)}`);
}
