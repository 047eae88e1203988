/**
 * The query language's filters written a second time, over plain records, as the
 * expectation the engines are checked against: which objects `GET ?filters` returns, or that it
 * is a 400. Independent of the runtime's code on purpose. Text comparisons assume ASCII values
 * and a byte-order collation (the test cluster is initialised with --no-locale).
 */

/**
 * How a field compares: a scalar kind, a list of scalars, a to-many relationship (keys), or a dict
 * (no filters). A `choice` is text whose filters take only its choices.
 */
export type FieldKind =
  | 'text'
  | 'choice'
  | 'int'
  | 'num'
  | 'bool'
  | 'datetime'
  | 'date'
  | 'time'
  | 'list-text'
  | 'list-int'
  | 'to-many'
  | 'dict';

export const OPERATORS = ['', 'in', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'startswith', 'isnull'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Filter {
  readonly field: string;
  readonly op: Operator;
  /** The texts sent: each as a parameter of its own when `repeated`, else joined with commas. */
  readonly texts: readonly string[];
  readonly repeated: boolean;
}

export type Rec = Record<string, unknown>;

export function queryString(filters: readonly Filter[]): string {
  const params = new URLSearchParams();
  for (const f of filters) {
    const name = f.op ? `${f.field}__${f.op}` : f.field;
    if (f.repeated) for (const t of f.texts) params.append(name, t);
    else params.append(name, f.texts.join(','));
  }
  return params.toString();
}

/** The records `filters` select, or 'error' when the request is a 400. `choices`: those of each `choice` field. */
export function expected(
  kinds: Readonly<Record<string, FieldKind>>,
  records: readonly Rec[],
  filters: readonly Filter[],
  choices: Readonly<Record<string, readonly string[]>> = {},
): Rec[] | 'error' {
  const predicates: ((r: Rec) => boolean)[] = [];
  for (const f of filters) {
    const predicate = filterPredicate(kinds[f.field]!, f, choices[f.field] ?? []);
    if (predicate === 'error') return 'error';
    predicates.push((r) => predicate(r[f.field]));
  }
  return records.filter((r) => predicates.every((p) => p(r)));
}

type Predicate = (value: unknown) => boolean;

function filterPredicate(kind: FieldKind, f: Filter, choices: readonly string[]): Predicate | 'error' {
  const texts = f.repeated ? f.texts : [f.texts.join(',')];
  if (f.op === 'isnull') {
    if (texts.length !== 1 || !['true', 'false'].includes(texts[0]!)) return 'error';
    const wantNull = texts[0] === 'true';
    return (v) => isNull(kind, v) === wantNull;
  }
  if (kind === 'dict') return 'error';
  const many = kind === 'list-text' || kind === 'list-int' || kind === 'to-many';
  if (f.op === 'contains' || f.op === 'startswith') {
    if ((kind !== 'text' && kind !== 'choice') || texts.length !== 1) return 'error';
    const needle = texts[0]!.toLowerCase();
    return (v) =>
      typeof v === 'string' &&
      (f.op === 'contains' ? v.toLowerCase().includes(needle) : v.toLowerCase().startsWith(needle));
  }
  // A comma separates the values of a list; an operator of one value takes its text whole.
  const single = f.op === 'gt' || f.op === 'gte' || f.op === 'lt' || f.op === 'lte';
  const values = texts
    .flatMap((t) => (single ? [t] : t.split(',')))
    .map((t) => (kind === 'choice' ? (choices.includes(t) ? t : undefined) : parse(kind, t)));
  if (values.some((v) => v === undefined)) return 'error';
  if (many) {
    const holdsAny = (v: unknown) => Array.isArray(v) && v.some((x) => values.includes(x));
    if (f.op === '' || f.op === 'in') return holdsAny;
    if (f.op === 'ne') return (v) => !holdsAny(v);
    return 'error';
  }
  if (f.op === '' || f.op === 'in') return (v) => v !== null && v !== undefined && values.includes(normalise(kind, v));
  if (f.op === 'ne') return (v) => v === null || v === undefined || !values.includes(normalise(kind, v));
  if (values.length !== 1) return 'error';
  const [operand] = values;
  return (v) => {
    if (v === null || v === undefined) return false;
    const c = compare(normalise(kind, v), operand);
    return f.op === 'gt' ? c > 0 : f.op === 'gte' ? c >= 0 : f.op === 'lt' ? c < 0 : c <= 0;
  };
}

function isNull(kind: FieldKind, v: unknown): boolean {
  if (kind === 'to-many') return !Array.isArray(v) || v.length === 0;
  return v === null || v === undefined;
}

function parse(kind: FieldKind, text: string): unknown {
  switch (kind) {
    case 'int':
    case 'list-int':
    case 'to-many':
      return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
    case 'num':
      return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text) && Number.isFinite(Number(text))
        ? Number(text)
        : undefined;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'datetime': {
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
      const time = Date.parse(text);
      return Number.isNaN(time) ? undefined : `${new Date(time).toISOString().slice(0, 19)}Z`;
    }
    case 'date':
      return /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d)$/.test(text) ? text : undefined;
    case 'time':
      return /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(text) ? text : undefined;
    default:
      return text;
  }
}

function normalise(kind: FieldKind, v: unknown): unknown {
  return kind === 'datetime' && typeof v === 'string' ? `${new Date(Date.parse(v)).toISOString().slice(0, 19)}Z` : v;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
