/**
 * The query language of collection reads: `_limit`, `_page`, `_start`, `_sort`,
 * `_fields`, `_count`, full-text search `q` / `_search_fields`, and filters `field=value` /
 * `field__op=value`. Every mistake is a 400 that
 * names the parameter; values are parsed by the field's type and passed on as bound parameters.
 */
import { closest } from '../suggest.js';
import { badRequest, type FieldError } from '../errors.js';
import { TEXT_FIELD_TYPES, wholeNumber, type FieldSpec, type Model } from '../model.js';
import type { FieldFilter, Where } from '../repository.js';
import {
  misapplied,
  QUERY_OPERATORS,
  queryOperator,
  type FilteredField,
  type QueryOperatorSpec,
} from '../query-operators.js';
import { MAX_QUERY_LENGTH, MAX_QUERY_WORDS, queryWords, type SearchFilter } from '../search.js';
import { EXACT_DIGITS, parseDate, parseDatetime, parseTime } from '../values.js';
import { decodeCursor, type Cursor } from './cursor.js';

export interface ListQuery {
  readonly where: Where<Record<string, unknown>>;
  readonly orderBy: Record<string, 'asc' | 'desc'>[];
  /** The offset of the page: `_start`, `_page` × `_limit`, or where the `_after` cursor's page starts. */
  readonly skip: number;
  readonly take: number;
  /** `_after`: the page starts after the object this cursor names (lib/http/cursor.ts), not at `skip`. */
  readonly after: Cursor | undefined;
  /** `_fields`: the fields to return, or undefined for all. */
  readonly fields: readonly string[] | undefined;
  /** `_fields` as written, echoed in the response. */
  readonly fieldsText: string;
  readonly count: boolean;
}

export interface QueryLimits {
  /** `_limit` when none is given. */
  readonly defaultLimit: number;
  /** The largest `_limit` this caller may have. */
  readonly maxLimit: number;
  /** The furthest a page may start (`max_offset`); undefined: no limit (bulk changes take no paging). */
  readonly maxOffset?: number;
  /** The fields this caller may see (null: all): the others cannot be filtered, sorted or asked for. */
  readonly visible?: ReadonlySet<string> | null;
  /**
   * The fields `_fields` may name, when more than `visible`: those of the caller's own record, which
   * a list of users shows in its row alone (the serializer shows each object what its caller may see).
   */
  readonly projectable?: ReadonlySet<string> | null;
}

const RESERVED = new Set(['_limit', '_page', '_start', '_after', '_sort', '_fields', '_count', 'q', '_search_fields']);

type RawQuery = Record<string, string | string[] | undefined>;

export function parseListQuery(modelOfRoute: Model, raw: RawQuery, limits: QueryLimits): ListQuery {
  const model = asSeenBy(modelOfRoute, limits.visible, limits.projectable);
  const errors: FieldError[] = [];
  const one = (name: string): string | undefined => {
    const value = raw[name];
    if (Array.isArray(value)) {
      errors.push({ field: name, message: 'is given more than once' });
      return value[0];
    }
    return value;
  };
  // Lists are written comma-separated or with the parameter repeated (as generated clients send arrays).
  const list = (name: string): string | undefined => listText(raw[name]);
  const limit = integer(one('_limit'), '_limit', errors) ?? limits.defaultLimit;
  const page = integer(one('_page'), '_page', errors);
  const start = integer(one('_start'), '_start', errors);
  if (page !== undefined && start !== undefined)
    errors.push({ field: '_page', message: 'cannot be combined with _start' });
  const take = Math.min(limit, limits.maxLimit);
  const orderBy = sorting(model, list('_sort'), errors);
  const search = searchFilter(model, one('q'), list('_search_fields'), errors);
  const after = cursorOf(
    model,
    one('_after'),
    orderBy,
    { paged: page !== undefined || start !== undefined, search },
    errors,
  );
  const skip = after?.start ?? start ?? (page ?? 0) * take;
  if (!after && limits.maxOffset !== undefined && skip > limits.maxOffset) {
    errors.push({
      field: start === undefined ? '_page' : '_start',
      message: `starts past row ${limits.maxOffset} (max_offset); follow the pages' next links (_after), or narrow the query with filters`,
    });
  }
  const fieldsText = list('_fields') ?? '';
  const query: ListQuery = {
    where: conditions(filters(model, raw, errors), search),
    orderBy,
    skip,
    take,
    after,
    fields:
      fieldsText === ''
        ? undefined
        : projection(
            limits.projectable === undefined ? model : asSeenBy(modelOfRoute, limits.projectable),
            fieldsText,
            '_fields',
            errors,
          ),
    fieldsText,
    count: counts(raw['_count'], errors),
  };
  if (errors.length)
    throw badRequest(`invalid query: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  return query;
}

/** `_count` (bare, `true` or `1`, as Ramses clients send it) asks for the count; `false` and `0` do not; nothing else is a yes or a no. */
function counts(value: unknown, errors: FieldError[]): boolean {
  if (value === undefined) return false;
  // As every other parameter of one value: `_count=true&_count=false` is no answer to which.
  if (Array.isArray(value)) {
    errors.push({ field: '_count', message: 'is given more than once' });
    return false;
  }
  const given = (typeof value === 'string' ? value : '?').trim().toLowerCase();
  if (given === '' || given === 'true' || given === '1') return true;
  if (given !== 'false' && given !== '0')
    errors.push({ field: '_count', message: 'must be given bare, or be true, false, 1 or 0' });
  return false;
}

/** `_after`: the cursor of a page's `next` link; not with `_start` or `_page`, nor in best-match order. */
function cursorOf(
  model: Model,
  text: string | undefined,
  orderBy: ListQuery['orderBy'],
  context: { paged: boolean; search: SearchFilter | undefined },
  errors: FieldError[],
): Cursor | undefined {
  if (text === undefined) return undefined;
  if (context.paged) errors.push({ field: '_after', message: 'cannot be combined with _start or _page' });
  else if (context.search && orderBy.length === 0)
    errors.push({ field: '_after', message: 'pages in _sort order: with q, give _sort too (or page with _start)' });
  else {
    const cursor = decodeCursor(model, orderBy, text, parseValue);
    if (typeof cursor !== 'string') return cursor;
    errors.push({ field: '_after', message: cursor });
  }
  return undefined;
}

/** `_fields` on item reads (the route schema, lib/http/schemas.ts, allows no other parameter, and this one once). */
export function parseItemFields(
  modelOfRoute: Model,
  raw: RawQuery,
  visible?: ReadonlySet<string> | null,
): readonly string[] | undefined {
  if (raw['_fields'] === undefined) return undefined;
  const model = asSeenBy(modelOfRoute, visible);
  const errors: FieldError[] = [];
  const text = listText(raw['_fields']);
  const fields = text ? projection(model, text, '_fields', errors) : undefined;
  if (errors.length)
    throw badRequest(`invalid query: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  return fields;
}

/** A list parameter as one comma-separated text: `a=x,y` and `a=x&a=y` are the same list. */
function listText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * What a query is told of a name that is not a field it may use: one message for a typo and for a
 * field the caller may not read, so that the answer does not tell which.
 */
function unreadable(model: Model, names: readonly string[]): string {
  // An empty name (`_sort=-`, `?=1`) is shown as one, not as nothing.
  const hint = names.length === 1 ? renamedOr(model, names[0]!) : '';
  return `names ${names.map((n) => (n === '' ? '""' : n)).join(', ')}: no field of ${model.name} you may read${hint}`;
}

/**
 * "; did you mean status?", of the names the caller may use (`model` as they see it: a hidden
 * field is never suggested); or of a list parameter, when `param` is one without its `_` (`limit`).
 */
function suggested(name: string, candidates: Iterable<string>, param?: string): string {
  const reserved = param !== undefined && RESERVED.has(`_${param}`) ? `_${param}` : undefined;
  const match = reserved ?? closest(name, candidates);
  return match === undefined ? '' : `; did you mean ${match}?`;
}

/**
 * "; it is named description now", where a field the caller may read had `name` before this
 * version of the API; else what `suggested` says.
 */
function renamedOr(model: Model, name: string, param?: string): string {
  const renamed = model.fields.find((f) => f.renamedFrom === name && !f.secret);
  return renamed ? `; it is named ${renamed.name} now` : suggested(name, readable(model), param);
}

/**
 * The model as this caller sees it: fields they may not see, and secrets, are not there, so a
 * query cannot filter or sort on them to learn their values (they are "unknown", like a typo).
 * `projectable`: the fields of the caller's own record, which a list of users shows in their row
 * alone; those are not there either (a filter on them would tell the others' values), but the
 * answer says why (`ownRecordOnly`), where `_fields` shows them.
 */
function asSeenBy(
  model: Model,
  visible: ReadonlySet<string> | null | undefined,
  projectable?: ReadonlySet<string> | null,
): Model {
  const hidden = (f: FieldSpec) =>
    f.secret === true || (visible !== null && visible !== undefined && !visible.has(f.name));
  if (!model.fields.some(hidden)) return model;
  const seen: Model = {
    ...model,
    fields: model.fields.filter((f) => !hidden(f)),
    field: (name) => {
      const f = model.field(name);
      return f && !hidden(f) ? f : undefined;
    },
  };
  const own = model.fields.filter((f) => hidden(f) && !f.secret && projectable?.has(f.name) === true);
  if (own.length) OWN_RECORD_ONLY.set(seen, new Set(own.map((f) => f.name)));
  return seen;
}

/** Of a model as a caller sees it (`asSeenBy`), the fields they see on their own record alone. */
const OWN_RECORD_ONLY = new WeakMap<Model, ReadonlySet<string>>();

function ownRecordOnly(seen: Model, name: string): boolean {
  return OWN_RECORD_ONLY.get(seen)?.has(name) === true;
}

/**
 * `q` and `_search_fields`: the words to find, in the fields this caller may read. A field they
 * may not read is refused as a typo is (`unreadable`), so that the answer does not tell it exists. An empty `q`
 * searches nothing (no condition); one with no words (`q=+++`) matches nothing. A list takes
 * `_search_fields` without `q` (a search box sends it before anything is typed); a bulk change
 * does not (bulk.ts).
 */
function searchFilter(
  model: Model,
  q: string | undefined,
  fieldsText: string | undefined,
  errors: FieldError[],
): SearchFilter | undefined {
  const readable = model.searchFields.filter((name) => model.field(name) !== undefined);
  const fields = fieldsText === undefined ? readable : searchFieldList(model, readable, fieldsText, errors);
  // Only an empty `q` is no search: one of blanks (`q=+++`, a tab, U+3000) is one with no words,
  // which finds nothing (it was no search, and a bulk DELETE with it deleted every object).
  if (q === undefined || q === '') return undefined;
  if (q.length > MAX_QUERY_LENGTH) {
    errors.push({ field: 'q', message: `is longer than ${MAX_QUERY_LENGTH} characters` });
    return undefined;
  }
  const found = queryWords(q);
  if (found.words.length > MAX_QUERY_WORDS) {
    errors.push({ field: 'q', message: `has more than ${MAX_QUERY_WORDS} words` });
    return undefined;
  }
  return { ...found, fields };
}

/** `_search_fields=a,b`: searchable fields this caller may read, kept in the model's order. */
function searchFieldList(model: Model, readable: readonly string[], text: string, errors: FieldError[]): string[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (readable.includes(name)) continue;
    errors.push({ field: '_search_fields', message: notSearchable(model, name) });
  }
  if (names.length === 0) errors.push({ field: '_search_fields', message: 'names no field' });
  return readable.filter((name) => names.includes(name));
}

/** Why `name`, which the caller may not search in, cannot be searched: unreadable ones as if they did not exist. */
function notSearchable(model: Model, name: string): string {
  const field = model.field(name);
  if (!field)
    return ownRecordOnly(model, name)
      ? `cannot search in ${name}: it is shown on your own record only`
      : unreadable(model, [name]);
  return TEXT_FIELD_TYPES.has(field.type)
    ? `cannot search in ${name}: its "search" setting is false`
    : `cannot search in ${name}: it is not a text field`;
}

function integer(text: string | undefined, name: string, errors: FieldError[]): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    errors.push({ field: name, message: 'must be a whole number, 0 or more' });
    return undefined;
  }
  return Number(text);
}

/** Fields a client can read and filter on: stored fields and relationships. */
function readable(model: Model): string[] {
  return model.fields.map((f) => f.name);
}

function projection(model: Model, text: string, param: string, errors: FieldError[]): string[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  // `_fields=,` named nothing, and was answered with every field and `"fields": ","`.
  if (names.length === 0) errors.push({ field: param, message: 'names no field' });
  const excluded = names.every((n) => n.startsWith('-'));
  if (!excluded && names.some((n) => n.startsWith('-'))) {
    errors.push({ field: param, message: 'lists fields to return or fields to leave out (-name), not both' });
    return [];
  }
  const all = readable(model);
  const unknown = names.map((n) => n.replace(/^-/, '')).filter((n) => !all.includes(n));
  if (unknown.length) errors.push({ field: param, message: unreadable(model, unknown) });
  const listed = new Set(names.map((n) => n.replace(/^-/, '')));
  return excluded ? all.filter((n) => !listed.has(n)) : all.filter((n) => listed.has(n));
}

function sorting(model: Model, text: string | undefined, errors: FieldError[]): Record<string, 'asc' | 'desc'>[] {
  if (!text) return [];
  const out: Record<string, 'asc' | 'desc'>[] = [];
  const parts = text.split(',').map((s) => s.trim());
  // `_sort=,` or `_sort=name,`: a name left out is a mistake to say, as `_sort=-` is.
  if (parts.includes('')) errors.push({ field: '_sort', message: 'names an empty field (a comma too many)' });
  for (const part of parts.filter(Boolean)) {
    const descending = part.startsWith('-');
    const name = part.replace(/^[-+]/, '');
    const field = model.field(name);
    const relation = model.relation(name);
    const sortable =
      field && (field.column !== null ? !['json', 'blob'].includes(field.storage) : relation?.local === true);
    if (!sortable) {
      const why = field ? '' : ownRecordOnly(model, name) ? `: it is shown on your own record only` : undefined;
      errors.push({
        field: '_sort',
        message: why === undefined ? unreadable(model, [name]) : `cannot sort by ${name}${why}`,
      });
      continue;
    }
    out.push({ [name]: descending ? 'desc' : 'asc' });
  }
  return out;
}

/**
 * The filters and the search as one condition. One filter alone stands alone (an AND of one cost
 * a filtered page ~7 µs more, served). Beside a search, the filters stay in an AND of their own, so
 * that a field's name never meets `SEARCH`, and a search alone is `{ SEARCH }` (SQLite counts it in
 * its index).
 */
function conditions(
  and: Where<Record<string, unknown>>[],
  search: SearchFilter | undefined,
): Where<Record<string, unknown>> {
  if (search) return and.length ? { AND: and, SEARCH: search } : { SEARCH: search };
  return and.length > 1 ? { AND: and } : (and[0] ?? {});
}

function filters(model: Model, raw: RawQuery, errors: FieldError[]): Where<Record<string, unknown>>[] {
  const and: Where<Record<string, unknown>>[] = [];
  for (const [param, rawValue] of Object.entries(raw)) {
    if (RESERVED.has(param) || rawValue === undefined) continue;
    const [name, op] = param.includes('__')
      ? [param.slice(0, param.indexOf('__')), param.slice(param.indexOf('__') + 2)]
      : [param, ''];
    const field = model.field(name);
    if (!field || name.startsWith('_')) {
      errors.push({
        field: param,
        message: ownRecordOnly(model, name)
          ? `is shown on your own record only: a list is not filtered by it`
          : name.startsWith('_')
            ? `is not a query parameter${suggested(param, RESERVED)}`
            : name === param || name === '' // `__proto__`: no field before the operator's `__`
              ? `is no field of ${model.name} you may read${renamedOr(model, name, param)}`
              : unreadable(model, [name]),
      });
      continue;
    }
    // `username__=eve`: a `__` with no operator after it is none (it was read as equality).
    const operator = param.endsWith('__') ? undefined : queryOperator(op);
    if (!operator) {
      const known = QUERY_OPERATORS.filter((o) => o.suffix !== '').map((o) => o.suffix);
      errors.push({ field: param, message: `has an unknown operator "${op}" (use ${known.join(', ')})` });
      continue;
    }
    // A comma separates the values of a list (`tags=a,b`), sent as it is or percent-encoded (as
    // URLSearchParams and Python's requests send `a,b`). An operator of one value (`__gt`) or of a
    // text takes it whole: there a comma is part of the value (`title__gt=Rome, Italy` was a 400).
    const occurrences = Array.isArray(rawValue) ? rawValue : [rawValue];
    const texts = operator.takes === 'list' ? occurrences.flatMap((v) => v.split(',')) : occurrences;
    const condition = fieldFilter(model, field, operator, texts, param, errors);
    if (condition) and.push(condition);
  }
  return and;
}

function fieldFilter(
  model: Model,
  field: FieldSpec,
  operator: QueryOperatorSpec,
  texts: string[],
  param: string,
  errors: FieldError[],
): Where<Record<string, unknown>> | undefined {
  const on = (filter: FieldFilter<unknown> | undefined) => (filter ? { [field.name]: filter } : undefined);
  const filtered = filteredField(model, field);
  const why = misapplied(operator, filtered);
  if (why !== undefined) {
    errors.push({ field: param, message: misappliedMessage(model, field, why) });
    return undefined;
  }
  if (operator.filter === 'isnull') {
    if (texts.length !== 1 || !['true', 'false'].includes(texts[0]!)) {
      errors.push({ field: param, message: 'must be true or false' });
      return undefined;
    }
    return on(texts[0] === 'true' ? { equals: null } : { not: null });
  }
  const values: unknown[] = [];
  let between = 0;
  for (const text of texts) {
    const value = operator.takes === 'text' ? text : parseValue(field, text);
    if (value === undefined) {
      errors.push({ field: param, message: `"${text}" is not ${describe(model, field)}${storedOutside(field)}` });
      return undefined;
    }
    // A value between two whole seconds, which no stored value is: equal to none, and a bound as the instant it is.
    if (operator.takes !== 'text' && betweenSeconds(field, text)) between++;
    else values.push(value);
  }
  let filter = operator.filter;
  if (between) {
    // Compared as the instant it is: below it, a stored value is at most its second (`lt` is `lte`
    // of the second it is cut to); from it on, past its second (`gte` is `gt`). Equal to it, none:
    // `=` and `__in` match the other values only (nothing, when there is none), `__ne` excludes them only.
    if (filter === 'lt' || filter === 'lte' || filter === 'gt' || filter === 'gte') {
      values.unshift(
        parseValue(
          field,
          texts.find((text) => betweenSeconds(field, text))!,
        ),
      );
      filter = filter === 'lt' ? 'lte' : filter === 'gte' ? 'gt' : filter;
    } else if (!values.length) return filter === 'not' ? undefined : { [model.primaryKey]: { in: [] } };
  }
  if (filtered.many) return on(filter === 'not' ? { not: { hasSome: values } } : { hasSome: values });
  if (filter === 'equals' || filter === 'in')
    return on(values.length === 1 && filter === 'equals' ? { equals: values[0] } : { in: values });
  // `__ne=a,b`: equal to none of them; as with `__ne=a`, an object without a value is not equal.
  // One condition of the list, not one each: a thousand nested a condition too deep for SQLite.
  if (filter === 'not')
    return values.length === 1
      ? on({ not: values[0] })
      : { OR: [{ [field.name]: { notIn: values } }, { [field.name]: { equals: null } }] };
  if (values.length !== 1) {
    errors.push({ field: param, message: 'takes one value' });
    return undefined;
  }
  return on({ [filter]: values[0] });
}

/**
 * Whether `text` is a datetime or time with a fraction of a second. Stored values are whole
 * seconds (values.ts drops the fraction), and a filter's bound was cut down to its second too:
 * `ts__lt=…08:00:00.5Z` left out the rows at 08:00:00, `ts__gte=…08:00:00.999Z` took them, and
 * `ts=…08:00:00.7Z` found them (a probe's time windows, written by `Date#toISOString()`).
 */
function betweenSeconds(field: FieldSpec, text: string): boolean {
  const type = field.type === 'list' ? field.itemType : field.type;
  return (type === 'datetime' || type === 'time') && /:\d{2}\.\d*[1-9]/.test(text);
}

/** A field as the operators' table sees it (lib/query-operators.ts). */
function filteredField(model: Model, field: FieldSpec): FilteredField {
  const many = holdsMany(model, field);
  const storage = comparedStorage(field);
  const opaque = ['json', 'blob'].includes(field.storage) && field.type !== 'list';
  return { kind: opaque ? 'opaque' : storage === 'text' ? 'text' : 'comparable', many };
}

/**
 * Why an operator does not apply to a field, said to the client. On lists and to-many
 * relationships, comparisons and text operators have no single meaning: they are refused, never
 * dropped.
 */
function misappliedMessage(model: Model, field: FieldSpec, why: 'opaque' | 'many' | 'text'): string {
  if (why === 'opaque') return `cannot filter on ${field.type} fields`;
  if (why === 'text') return 'works on text fields only';
  const what = field.type === 'list' ? 'list field' : `to-many relationship of ${model.name}`;
  return `cannot be used on ${field.name}, a ${what} (use ${field.name}=a,b for any of the values, ${field.name}__ne=a,b for none of them, or ${field.name}__isnull)`;
}

/** A list field, or a to-many relationship: a filter asks which values it holds. */
function holdsMany(model: Model, field: FieldSpec): boolean {
  return field.type === 'list' || (field.type === 'relationship' && model.relation(field.name)?.cardinality === 'many');
}

/** How the values a field compares with are stored: a list's items, or the field itself (a relationship has its key's). */
function comparedStorage(field: FieldSpec): FieldSpec['storage'] {
  if (field.type !== 'list') return field.storage;
  const item = field.itemType ?? 'string';
  return ['integer', 'big_integer', 'small_integer', 'interval', 'id_field'].includes(item)
    ? 'integer'
    : ['float', 'decimal'].includes(item)
      ? 'real'
      : item === 'boolean'
        ? 'boolean'
        : 'text';
}

/** A query-string value read by the field's type; undefined when it does not parse. */
export function parseValue(field: FieldSpec, text: string): unknown {
  const type = field.type === 'list' ? (field.itemType ?? 'string') : field.type;
  switch (type) {
    case 'integer':
    case 'big_integer':
    case 'small_integer':
    case 'interval':
    case 'id_field':
      return field.type === 'list' ? wholeNumber({ ...field, range: undefined }, text) : wholeNumber(field, text);
    case 'float':
      return finiteNumber(text);
    case 'decimal':
      return exactDigits(text) ? finiteNumber(text) : undefined;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'datetime':
      return parseDatetime(text);
    case 'date':
      return parseDate(text);
    case 'time':
      return parseTime(text);
    case 'relationship':
    case 'foreign_key':
      return relatedKey(field, text);
    case 'choice':
      // A value that is none of the choices matches nothing: a typo is told, not answered with an empty page.
      return field.choices ? field.choices.find((c) => String(c) === text) : text;
    default:
      return text;
  }
}

/** A number as JSON writes one, and only one a float can hold (`1e400` is none). */
function finiteNumber(text: string): number | undefined {
  if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * Whether a decimal's filter value has at most EXACT_DIGITS significant digits, which the float it
 * is read as keeps: `cost__lte=3.4999999999999999` read as 3.5, and selected the 3.50 it should
 * not (a probe's). A body's decimal is held to the same (writes.ts `inexactDecimals`).
 */
function exactDigits(text: string): boolean {
  const mantissa = text.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length <= EXACT_DIGITS;
}

/** A related object's key: relationship and foreign key fields have the key's storage and range. */
function relatedKey(field: FieldSpec, text: string): unknown {
  return field.storage === 'integer' ? wholeNumber(field, text) : text;
}

function describe(model: Model, field: FieldSpec): string {
  const type = field.type === 'list' ? (field.itemType ?? 'string') : field.type;
  const words: Record<string, string> = {
    integer: 'a whole number',
    big_integer: 'a whole number',
    small_integer: 'a whole number',
    interval: 'a number of seconds',
    id_field: 'a whole number',
    float: 'a number',
    decimal: `a number of at most ${EXACT_DIGITS} significant digits`,
    boolean: 'true or false',
    datetime: 'a date and time (YYYY-MM-DDTHH:MM:SSZ)',
    date: 'a date (YYYY-MM-DD)',
    time: 'a time (HH:MM:SS)',
  };
  const range = field.type !== 'list' && field.range ? ` from ${field.range[0]} to ${field.range[1]}` : '';
  if (type === 'choice' && field.choices) return `one of ${field.choices.map(String).join(', ')}`;
  // A link names the related object by its key (a probe's `?documents=abc` was "not a valid documents of Matter").
  const related = field.relation ? model.relation(field.relation)?.target : undefined;
  if (related) return `a key of ${related}${field.storage === 'integer' ? ` (a whole number${range})` : ''}`;
  return words[type] ? `${words[type]}${range}` : `a valid ${field.name} of ${model.name}`;
}

/**
 * For a choice: how a GET finds the objects stored with a value the choices no longer hold (taken
 * away in a later version, which leaves stored values as they were: svcgen's SVC3113), whose
 * filter by that value is refused. A new-user probe looked for it after the warning said so.
 */
function storedOutside(field: FieldSpec): string {
  const choices = field.type === 'choice' ? field.choices?.map(String) : undefined;
  if (!choices?.length || choices.some((c) => c.includes(','))) return '';
  return ` (objects stored with a value no longer among them: ${field.name}__ne=${choices.join(',')})`;
}

/** The query parameters that say where a page starts: the next page's link says its own. */
const PAGING = new Set(['_start', '_page', '_after']);

/**
 * `url` (path and query, as the request gave it) without its paging parameters, ending in `?` or
 * `&` for one more. By hand, not with `URL`: parsing and re-encoding the URL was a tenth of a page's CPU.
 */
export function withoutPaging(url: string): string {
  const end = url.indexOf('#');
  const whole = end < 0 ? url : url.slice(0, end);
  const mark = whole.indexOf('?');
  if (mark < 0) return `${whole}?`;
  const kept = whole
    .slice(mark + 1)
    .split('&')
    .filter((pair) => pair !== '' && !PAGING.has(parameterName(pair)));
  return `${whole.slice(0, mark)}?${kept.map((pair) => `${pair}&`).join('')}`;
}

/** The name of `name=value` as the query parser reads it (`%5Fstart` is `_start`). */
function parameterName(pair: string): string {
  const equals = pair.indexOf('=');
  const name = equals < 0 ? pair : pair.slice(0, equals);
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}
