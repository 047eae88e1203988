/**
 * Query parameters: the collection query language. A filter's operators are parameters of their
 * own (`status`, `status__in`, `status__ne`…): their removal is said once per operation and field
 * (the field's filter, or some of its operators), not once per parameter. Parameters defined once
 * as components are compared once, with the operations that use them; `_limit` says the page size.
 */
import { change, type ApiChange } from './change.js';
import { arrayAt, isObject, objectAt, refName, resolved, type Json, type OperationEntry } from './document.js';
import { compareSchemas } from './schema-diff.js';

interface QueryParameter {
  readonly name: string;
  readonly parameter: Json;
  /** The component it is, when it is one (compared apart). */
  readonly component: string | undefined;
}

function queryParameters(doc: Json, entry: OperationEntry): Map<string, QueryParameter> {
  const found = new Map<string, QueryParameter>();
  for (const node of [...entry.pathParameters, ...arrayAt(entry.operation, 'parameters')]) {
    const parameter = resolved(doc, node, 'parameters');
    if (parameter['in'] !== 'query' || typeof parameter['name'] !== 'string') continue;
    found.set(parameter['name'], { name: parameter['name'], parameter, component: refName(node, 'parameters') });
  }
  return found;
}

/** `status__in` → `status`: the field a filter parameter is on. */
function fieldOf(name: string): string {
  const at = name.indexOf('__');
  return at > 0 ? name.slice(0, at) : name;
}

export function compareQuery(
  before: Json,
  after: Json,
  was: OperationEntry,
  is: OperationEntry,
  out: ApiChange[],
  renamed: ReadonlyMap<string, string> = new Map(),
): void {
  const a = queryParameters(before, was);
  const b = queryParameters(after, is);
  const place = (path: string) => ({ operations: [was.key], path });
  groupedByField(
    [...a.keys()].filter((n) => !b.has(n)),
    b,
    (field, names, filterStays) =>
      out.push(
        filterStays
          ? change(
              'query-operator-removed',
              place(`query ${field}`),
              `no longer takes ${names.join(', ')}`,
              'clients that send them are refused (400)',
            )
          : change(
              'query-parameter-removed',
              place(`query ${field}`),
              renamed.has(field)
                ? `was renamed to ${renamed.get(field)} with renamed_from (${names.join(', ')})`
                : `was removed (${names.join(', ')})`,
              renamed.has(field)
                ? `clients must filter by ${renamed.get(field)}; those that send ${field} are refused (400)`
                : 'clients that send it are refused (400)',
            ),
      ),
  );
  const added = [...b.keys()].filter((n) => !a.has(n));
  for (const name of added.filter((n) => b.get(n)?.parameter['required'] === true))
    out.push(
      change(
        'parameter-required',
        place(`query ${name}`),
        'is new and required',
        'clients that leave it out are refused',
      ),
    );
  groupedByField(
    added.filter((n) => b.get(n)?.parameter['required'] !== true),
    a,
    (field, names, filterWas) =>
      out.push(
        filterWas
          ? change('query-operator-added', place(`query ${field}`), `takes ${names.join(', ')} too`)
          : change('query-parameter-added', place(`query ${field}`), `is new (${names.join(', ')})`),
      ),
  );
  const narrowed: ApiChange[] = [];
  for (const [name, param] of a) {
    const now = b.get(name);
    if (!now) continue;
    if (param.parameter['required'] !== true && now.parameter['required'] === true)
      out.push(
        change(
          'parameter-required',
          place(`query ${name}`),
          'is now required',
          'clients that leave it out are refused',
        ),
      );
    if (param.component !== undefined && param.component === now.component) continue;
    compareParameterSchema(param.parameter, now.parameter, [was.key], narrowed);
  }
  out.push(...sameForTheField(narrowed));
}

/**
 * A field's filter operators change together: a type change narrows `capacity`, `capacity__gt`,
 * `capacity__lte`… alike. The same change of several parameters of one field is said once, for
 * the field, naming them (a probe's `integer` → `small_integer` gave 14 changes, one per operator
 * and bound).
 */
function sameForTheField(changes: readonly ApiChange[]): ApiChange[] {
  const groups = new Map<string, { first: ApiChange; field: string; names: string[] }>();
  const out: ApiChange[] = [];
  for (const c of changes) {
    const name = /^query ([^\s[.]+)/.exec(c.path)?.[1];
    if (name === undefined) {
      out.push(c);
      continue;
    }
    const field = fieldOf(name);
    const key = [c.kind, field, c.message, c.hint ?? '', c.operations.join(',')].join('\0');
    const group = groups.get(key);
    if (group) group.names.push(name);
    else groups.set(key, { first: c, field, names: [name] });
  }
  for (const { first, field, names } of groups.values())
    out.push(
      names.length === 1
        ? first
        : { ...first, path: `query ${field}`, message: `${first.message} (${names.join(', ')})` },
    );
  return out;
}

/**
 * Calls `each` once per field whose parameters are in `names`, saying whether the other
 * document still (or already) has a parameter on that field.
 */
function groupedByField(
  names: readonly string[],
  other: ReadonlyMap<string, QueryParameter>,
  each: (field: string, names: string[], otherHasField: boolean) => void,
): void {
  const byField = new Map<string, string[]>();
  for (const name of names) byField.set(fieldOf(name), [...(byField.get(fieldOf(name)) ?? []), name]);
  const otherFields = new Set([...other.keys()].map(fieldOf));
  for (const [field, group] of byField) each(field, group, otherFields.has(field));
}

/** Component parameters in both documents, each compared once for every operation that uses it. */
export function compareComponentParameters(
  before: Json,
  after: Json,
  users: ReadonlyMap<string, readonly string[]>,
  out: ApiChange[],
): void {
  const was = objectAt(objectAt(before, 'components'), 'parameters');
  const is = objectAt(objectAt(after, 'components'), 'parameters');
  const narrowed: ApiChange[] = [];
  for (const [name, parameter] of Object.entries(was)) {
    const now = is[name];
    const operations = users.get(name);
    if (!isObject(parameter) || !isObject(now) || !operations?.length) continue;
    compareParameterSchema(parameter, now, operations, narrowed);
  }
  out.push(...sameForTheField(narrowed));
}

function compareParameterSchema(was: Json, is: Json, operations: readonly string[], out: ApiChange[]): void {
  const name = String(was['name']);
  if (name === '_limit') {
    comparePageSize(objectAt(was, 'schema'), objectAt(is, 'schema'), operations, out);
    return;
  }
  compareSchemas(
    was['schema'],
    is['schema'],
    { operations, path: `query ${name}` },
    { directions: new Set(['request']), out },
  );
}

/** `_limit`: its `maximum` (the largest page) and `default` (the page size when it is not sent). */
function comparePageSize(was: Json, is: Json, operations: readonly string[], out: ApiChange[]): void {
  for (const key of ['default', 'maximum'] as const) {
    const a = typeof was[key] === 'number' ? was[key] : undefined;
    const b = typeof is[key] === 'number' ? is[key] : undefined;
    if (a === b) continue;
    const lower = b !== undefined && (a === undefined || b < a);
    const what = key === 'default' ? 'default page size' : 'largest page size';
    out.push(
      lower
        ? change(
            'page-size-lowered',
            { operations, path: 'query _limit' },
            `${what} ${a ?? '(none)'} → ${b}`,
            'clients that expect all items on one page miss some',
          )
        : change(
            'page-size-raised',
            { operations, path: 'query _limit' },
            `${what} ${a ?? '(none)'} → ${b ?? '(none)'}`,
          ),
    );
  }
}

/** Which operations use each component parameter (by `$ref`). */
export function parameterUsers(operations: Iterable<OperationEntry>): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const entry of operations)
    for (const node of [...entry.pathParameters, ...arrayAt(entry.operation, 'parameters')]) {
      const name = refName(node, 'parameters');
      if (name !== undefined) users.set(name, [...(users.get(name) ?? []), entry.key]);
    }
  return users;
}
