/**
 * The filter operators of the query language, in one table for every part that knows them: the
 * query string's `field__<op>` (lib/http/query.ts), the repositories' `FieldFilter` conditions
 * (lib/repository.ts) that SQL (lib/sql/conditions.ts) and MongoDB (lib/mongo/filter.ts) carry
 * out, and, in svcgen, the OpenAPI document's parameters and the generated README. It imports
 * nothing: svcgen reads it too.
 */

/** The conditions of a `FieldFilter`, which both engines implement. */
export const FILTER_OPERATORS = [
  'equals',
  'not',
  'in',
  'notIn',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'startsWith',
  'has',
  'hasSome',
] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const FILTER_OPERATOR_SET: ReadonlySet<string> = new Set(FILTER_OPERATORS);

/** Whether `key` is a condition of a `FieldFilter` (an object of only such keys is a filter, not a value). */
export function isFilterOperator(key: string): key is FilterOperator {
  return FILTER_OPERATOR_SET.has(key);
}

/** A field as the query string filters it. */
export interface FilteredField {
  /** `opaque`: a dict, file or pickle (no value to compare); `text`: compared as text. */
  readonly kind: 'opaque' | 'text' | 'comparable';
  /** A list field or a to-many relationship: a filter asks which values it holds. */
  readonly many: boolean;
}

export interface QueryOperatorSpec {
  /** `field__<suffix>=`; the empty suffix is `field=`. */
  readonly suffix: string;
  /** The `FieldFilter` condition it becomes; `isnull`: `equals: null` (true) or `not: null` (false). */
  readonly filter: FilterOperator | 'isnull';
  /** A value, a list (comma-separated, or the parameter repeated), a text (commas are its own), or true/false. */
  readonly takes: 'one' | 'list' | 'text' | 'boolean';
  /** The fields it applies to: any, those with a value to compare, or text ones. */
  readonly on: 'any' | 'comparable' | 'text';
  /** It applies to lists and to-many relationships too (asking which values they hold). */
  readonly onMany: boolean;
  /** What it selects: `<Model> objects whose <field> <meaning>`. */
  readonly meaning: string;
}

/** The query string's operators, in the order the documentation lists them. */
export const QUERY_OPERATORS = [
  { suffix: '', filter: 'equals', takes: 'list', on: 'comparable', onMany: true, meaning: 'equals one of the values' },
  { suffix: 'gt', filter: 'gt', takes: 'one', on: 'comparable', onMany: false, meaning: 'is greater than the value' },
  {
    suffix: 'gte',
    filter: 'gte',
    takes: 'one',
    on: 'comparable',
    onMany: false,
    meaning: 'is greater than or equal to the value',
  },
  { suffix: 'lt', filter: 'lt', takes: 'one', on: 'comparable', onMany: false, meaning: 'is less than the value' },
  {
    suffix: 'lte',
    filter: 'lte',
    takes: 'one',
    on: 'comparable',
    onMany: false,
    meaning: 'is less than or equal to the value',
  },
  {
    suffix: 'ne',
    filter: 'not',
    takes: 'list',
    on: 'comparable',
    onMany: true,
    meaning: 'equals none of the values (or is null)',
  },
  { suffix: 'in', filter: 'in', takes: 'list', on: 'comparable', onMany: true, meaning: 'equals one of the values' },
  {
    suffix: 'contains',
    filter: 'contains',
    takes: 'text',
    on: 'text',
    onMany: false,
    meaning: 'contains the text (case-insensitive)',
  },
  {
    suffix: 'startswith',
    filter: 'startsWith',
    takes: 'text',
    on: 'text',
    onMany: false,
    meaning: 'starts with the text (case-insensitive)',
  },
  {
    suffix: 'isnull',
    filter: 'isnull',
    takes: 'boolean',
    on: 'any',
    onMany: true,
    meaning: 'is null (true) or not (false)',
  },
] as const satisfies readonly QueryOperatorSpec[];

export type QueryOperator = (typeof QUERY_OPERATORS)[number]['suffix'];

/** The operator of `field__<suffix>`, or undefined when there is none. */
export function queryOperator(suffix: string): QueryOperatorSpec | undefined {
  return QUERY_OPERATORS.find((op) => op.suffix === suffix);
}

/** Why an operator does not apply to a field (for its 400), or undefined when it does. */
export function misapplied(operator: QueryOperatorSpec, field: FilteredField): 'opaque' | 'many' | 'text' | undefined {
  if (operator.on === 'any') return undefined;
  if (field.kind === 'opaque' && !field.many) return 'opaque';
  if (operator.on === 'text' && field.kind !== 'text') return 'text';
  if (field.many && !operator.onMany) return 'many';
  return undefined;
}

/** The operators that apply to a field, in the table's order. */
export function operatorsFor(field: FilteredField): QueryOperatorSpec[] {
  return QUERY_OPERATORS.filter((op) => misapplied(op, field) === undefined);
}
