/**
 * The classifier: every client-visible difference between the OpenAPI document clients were
 * written against (`before`) and the new one (`after`), each breaking or compatible. Pure: two
 * documents in, a sorted list out. Operations are matched by method and path (a path whose only
 * difference is a parameter's name is the same route, renamed); component schemas are compared
 * once each, in the directions their operations use them.
 */
import { FIELD_AUDIENCES_MARK } from '../plan/openapi/limits.js';
import { change, sortChanges, type ApiChange } from './change.js';
import {
  arrayAt,
  componentSchemas,
  isObject,
  jsonSchemaOf,
  objectAt,
  operationsOf,
  refName,
  resolved,
  resolvedBody,
  schemaUses,
  successResponses,
  type Json,
  type OperationEntry,
} from './document.js';
import { compareSchemas } from './schema-diff.js';
import { compareAccess } from './access.js';
import { compareComponentParameters, compareQuery, parameterUsers } from './parameters.js';

export interface ClassifyOptions {
  /**
   * Fields renamed with `renamed_from`, by component schema (old name → new name): said as
   * renames, which keep stored data but still change the JSON clients see.
   */
  readonly renames?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** Models renamed with `_renamed_from` (old name → new): their component schemas are compared under their new names. */
  readonly models?: ReadonlyMap<string, string>;
}

export function classifyChanges(before: Json, after: Json, options: ClassifyOptions = {}): ApiChange[] {
  if (options.models?.size) before = withComponentsRenamed(before, after, options.models);
  const out: ApiChange[] = [];
  compareBasePaths(before, after, out);
  compareRoutes(before, after, out, new Map([...(options.renames?.values() ?? [])].flatMap((m) => [...m])));
  compareComponents(before, after, out, options);
  compareComponentParameters(before, after, parameterUsers(operationsOf(before).values()), out);
  return sortChanges(withoutBoundsOfNarrowedTypes(dedupe(out)));
}

/**
 * `before` with the component schemas of renamed models under their new names (`Note`,
 * `NoteCreate` → `TreatmentNote`, `TreatmentNoteCreate`), and every reference to them so: a model
 * renamed keeps its JSON, and a reference to it was "type Note → TreatmentNote" (a new user's). What
 * did change for clients (its `_type`) is compared with the rest of the component. A name is taken
 * only where the new one is in `after` and the old one is not.
 */
function withComponentsRenamed(before: Json, after: Json, models: ReadonlyMap<string, string>): Json {
  const was = componentSchemas(before);
  const is = componentSchemas(after);
  const names = new Map<string, string>();
  for (const name of Object.keys(was)) {
    if (name in is) continue;
    for (const [old, now] of models) {
      const renamed = name.startsWith(old) ? `${now}${name.slice(old.length)}` : undefined;
      if (renamed !== undefined && renamed in is && !(renamed in was)) names.set(name, renamed);
    }
  }
  if (names.size === 0) return before;
  let renamed: Json;
  try {
    const text = JSON.stringify(before, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.startsWith(COMPONENT_REF) ? names.get(value.slice(COMPONENT_REF.length)) : undefined;
        return name === undefined ? value : `${COMPONENT_REF}${name}`;
      }
      return value;
    });
    renamed = JSON.parse(text) as Json;
  } catch {
    // An untrusted document nested past what the stack takes: compared as it is (MAX_DEPTH's reason).
    return before;
  }
  const schemas = componentSchemas(renamed);
  for (const [old, now] of names) {
    schemas[now] = schemas[old];
    delete schemas[old];
  }
  return renamed;
}

const COMPONENT_REF = '#/components/schemas/';

/**
 * The path every route is below (`servers[0].url`: `/api/v1`, from the RAML's `baseUri` and
 * `version`): a new one moves every route, which the paths (relative to it) do not show.
 */
function compareBasePaths(before: Json, after: Json, out: ApiChange[]): void {
  const [was, is] = [basePathOf(before), basePathOf(after)];
  if (was === undefined || is === undefined || was === is) return;
  out.push(
    change(
      'base-path-changed',
      // Every operation: no one is named.
      { operations: [], path: '' },
      `${was || '/'} → ${is || '/'}: every route moved`,
      "clients must call the new paths; keep the old base path (the RAML's baseUri and version) while they cannot",
    ),
  );
}

function basePathOf(document: Json): string | undefined {
  const servers = document['servers'];
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  const url = typeof first === 'object' && first !== null ? (first as Json)['url'] : undefined;
  return typeof url === 'string' ? url : undefined;
}

/** `/posts/{slug}` → `/posts/{}`: the route, whatever its parameters are called. */
function shape(path: string): string {
  return path.replace(/\{[^}]*\}/g, '{}');
}

/** `renamed`: every field renamed with renamed_from, old name → new (the filters on it are renamed too). */
function compareRoutes(before: Json, after: Json, out: ApiChange[], renamed: ReadonlyMap<string, string>): void {
  const was = operationsOf(before);
  const is = operationsOf(after);
  const paths = (ops: Map<string, OperationEntry>) => new Set([...ops.values()].map((o) => o.path));
  const pathsBefore = paths(was);
  const pathsAfter = paths(is);
  const afterByShape = new Map([...pathsAfter].map((p) => [shape(p), p]));
  const matched = new Map<string, string>();
  for (const path of pathsBefore) {
    const same = pathsAfter.has(path) ? path : afterByShape.get(shape(path));
    if (same === undefined) continue;
    matched.set(path, same);
    if (same !== path)
      out.push(
        change(
          'path-parameter-renamed',
          { operations: [...was.values()].filter((o) => o.path === path).map((o) => o.key), path: '' },
          `is ${same} now`,
          'clients that build the URL from the parameter, or generated SDKs that name it, must change',
        ),
      );
  }
  const matchedAfter = new Set(matched.values());
  for (const entry of was.values()) {
    const now = matched.get(entry.path);
    const counterpart = now === undefined ? undefined : is.get(`${entry.method.toUpperCase()} ${now}`);
    if (counterpart) compareOperation(before, after, entry, counterpart, out, renamed);
    else if (now === undefined)
      out.push(
        change('route-removed', { operations: [entry.key], path: '' }, 'was removed', 'clients that call it get 404'),
      );
    else
      out.push(
        change('method-removed', { operations: [entry.key], path: '' }, 'was removed', 'clients that call it get 405'),
      );
  }
  const counterparts = new Set(
    [...matched].flatMap(([from, to]) =>
      [...was.values()].filter((o) => o.path === from).map((o) => `${o.method.toUpperCase()} ${to}`),
    ),
  );
  for (const entry of is.values()) {
    if (counterparts.has(entry.key)) continue;
    const kind = matchedAfter.has(entry.path) ? 'method-added' : 'route-added';
    out.push(change(kind, { operations: [entry.key], path: '' }, 'is new'));
  }
}

function compareOperation(
  before: Json,
  after: Json,
  was: OperationEntry,
  is: OperationEntry,
  out: ApiChange[],
  renamed: ReadonlyMap<string, string>,
): void {
  const at = (path: string) => ({ operations: [was.key], path });
  comparePathParameters(before, after, was, is, out);
  compareQuery(before, after, was, is, out, renamed);
  compareRequestBody(before, after, was, is, at('request body'), out, renamed);
  compareAnswers(before, after, was, is, out);
  compareAccess(before, after, was, is, out);
}

function comparePathParameters(
  before: Json,
  after: Json,
  was: OperationEntry,
  is: OperationEntry,
  out: ApiChange[],
): void {
  const list = (doc: Json, entry: OperationEntry) =>
    [...entry.pathParameters, ...arrayAt(entry.operation, 'parameters')]
      .map((p) => resolved(doc, p, 'parameters'))
      .filter((p) => p['in'] === 'path');
  const a = list(before, was);
  const b = list(after, is);
  a.forEach((param, i) => {
    const now = b[i];
    if (!now) return;
    compareSchemas(
      param['schema'],
      now['schema'],
      { operations: [was.key], path: `path parameter ${String(param['name'])}` },
      {
        directions: new Set(['request']),
        out,
      },
    );
  });
}

function compareRequestBody(
  before: Json,
  after: Json,
  was: OperationEntry,
  is: OperationEntry,
  place: { operations: string[]; path: string },
  out: ApiChange[],
  renamed: ReadonlyMap<string, string>,
): void {
  const a = resolvedBody(was.operation);
  const b = resolvedBody(is.operation);
  if (!b) return; // A body no longer read: what clients send is ignored.
  const requiredNow = b['required'] === true;
  if (requiredNow && (!a || a['required'] !== true))
    out.push(change('request-body-required', place, 'is now required', 'clients that send no body are refused'));
  if (!a) return;
  const [schemaA, schemaB] = bodySchemas(before, after, jsonSchemaOf(a), jsonSchemaOf(b));
  // A body written out (a nested create's) is no component the renames are kept by: the API's renames say.
  compareSchemas(schemaA, schemaB, place, { directions: new Set(['request']), out, renames: renamed });
}

/**
 * The two bodies' schemas to compare: as they are where they name the same component (compared
 * once, apart); else each component itself (a nested create's body written out, where it named
 * `<Model>Create`), so that their fields are compared, not their names.
 */
function bodySchemas(before: Json, after: Json, a: unknown, b: unknown): [unknown, unknown] {
  const [named, namedNow] = [refName(a), refName(b)];
  if (named === namedNow) return [a, b];
  return [
    named === undefined ? a : componentSchemas(before)[named],
    namedNow === undefined ? b : componentSchemas(after)[namedNow],
  ];
}

function compareAnswers(before: Json, after: Json, was: OperationEntry, is: OperationEntry, out: ApiChange[]): void {
  const a = successResponses(before, was.operation);
  const b = successResponses(after, is.operation);
  for (const [status, response] of a) {
    const now = b.get(status);
    if (!now) {
      const instead = [...b.keys()].join(', ') || 'no success status';
      out.push(
        change(
          'response-changed',
          { operations: [was.key], path: `${status} answer` },
          `is gone (now ${instead})`,
          'clients that check the status break',
        ),
      );
      continue;
    }
    compareSchemas(
      jsonSchemaOf(response),
      jsonSchemaOf(now),
      { operations: [was.key], path: `${status} answer` },
      {
        directions: new Set(['response']),
        out,
      },
    );
    for (const header of Object.keys(objectAt(response, 'headers')))
      if (!(header in objectAt(now, 'headers')))
        out.push(
          change(
            'response-changed',
            { operations: [was.key], path: `${status} answer` },
            `no longer sends the ${header} header`,
          ),
        );
  }
}

function compareComponents(before: Json, after: Json, out: ApiChange[], options: ClassifyOptions): void {
  const was = componentSchemas(before);
  const is = componentSchemas(after);
  const usesBefore = schemaUses(before);
  const usesAfter = schemaUses(after);
  for (const [name, schema] of Object.entries(was)) {
    if (!isObject(is[name])) continue;
    const use = usesBefore.get(name);
    if (!use) continue; // Used by no operation: no client sees it.
    const directions = new Set([...use.directions, ...(usesAfter.get(name)?.directions ?? [])]);
    compareSchemas(
      schema,
      is[name],
      { operations: [...use.operations].sort(), schema: name, path: '' },
      {
        directions,
        out,
        renames: options.renames?.get(name),
        visibility: FIELD_AUDIENCES_MARK in before && FIELD_AUDIENCES_MARK in after,
      },
    );
  }
}

/** A bound: `maximum (none) → 2147483647`, `exclusiveMaximum 1e+36 → maximum 2147483647`. */
const BOUND = /^(exclusiveMaximum|exclusiveMinimum|maximum|minimum)\b/;

/**
 * The bounds a narrower type brings (a decimal made an integer: ±2³¹) are the type's, said once as
 * its narrowing, not again as constraints tightened at the same place: a probe's one change of a
 * field's type was six breaking changes.
 */
function withoutBoundsOfNarrowedTypes(changes: readonly ApiChange[]): ApiChange[] {
  const placeOf = (c: ApiChange) => `${c.schema ?? ''}|${c.path}|${c.operations.join(',')}`;
  const narrowed = new Set(changes.filter((c) => c.kind === 'type-narrowed' || c.kind === 'type-changed').map(placeOf));
  return changes.filter(
    (c) => !(c.kind === 'constraint-tightened' && BOUND.test(c.message) && narrowed.has(placeOf(c))),
  );
}

/** The same change said twice (a path item's parameter seen from each of its methods) is said once. */
function dedupe(changes: readonly ApiChange[]): ApiChange[] {
  const seen = new Set<string>();
  return changes.filter((c) => {
    const key = JSON.stringify(c);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
