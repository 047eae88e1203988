/**
 * Reading an OpenAPI 3.1 document as the classifier needs it: its operations by `METHOD /path`,
 * `$ref`s resolved inside the document, and which component schemas clients send (request
 * bodies) or receive (answers). The documents are untrusted JSON: every read checks its shape.
 */

export type Json = Record<string, unknown>;

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationEntry {
  /** `GET /posts/{slug}`. */
  readonly key: string;
  readonly path: string;
  readonly method: string;
  readonly operation: Json;
  /** The path item's own parameters (path parameters, mostly). */
  readonly pathParameters: readonly unknown[];
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectAt(value: unknown, key: string): Json {
  const found = isObject(value) ? value[key] : undefined;
  return isObject(found) ? found : {};
}

export function arrayAt(value: unknown, key: string): readonly unknown[] {
  const found = isObject(value) ? value[key] : undefined;
  return Array.isArray(found) ? found : [];
}

/** Every operation of the document, by `METHOD /path`. */
export function operationsOf(doc: Json): Map<string, OperationEntry> {
  const operations = new Map<string, OperationEntry>();
  for (const [path, item] of Object.entries(objectAt(doc, 'paths'))) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      operations.set(key, { key, path, method, operation, pathParameters: arrayAt(item, 'parameters') });
    }
  }
  return operations;
}

/** The component a local `$ref` names (`#/components/schemas/Post` → `Post`), for the kind given. */
export function refName(node: unknown, kind = 'schemas'): string | undefined {
  if (!isObject(node) || typeof node['$ref'] !== 'string') return undefined;
  const prefix = `#/components/${kind}/`;
  return node['$ref'].startsWith(prefix) ? decodeURIComponent(node['$ref'].slice(prefix.length)) : undefined;
}

/** A parameter, response or header with its `$ref` followed (once: components do not chain here). */
export function resolved(doc: Json, node: unknown, kind: 'parameters' | 'responses' | 'headers'): Json {
  const name = refName(node, kind);
  if (name === undefined) return isObject(node) ? node : {};
  return objectAt(objectAt(objectAt(doc, 'components'), kind), name);
}

export function componentSchemas(doc: Json): Json {
  return objectAt(objectAt(doc, 'components'), 'schemas');
}

/** The JSON body schema of a request body or response, if it has one. */
export function jsonSchemaOf(node: Json): unknown {
  return objectAt(objectAt(node, 'content'), 'application/json')['schema'];
}

/** The success answers of an operation: status → the response (resolved). */
export function successResponses(doc: Json, operation: Json): Map<string, Json> {
  const answers = new Map<string, Json>();
  for (const [status, response] of Object.entries(objectAt(operation, 'responses')))
    if (/^2\d\d$/.test(status)) answers.set(status, resolved(doc, response, 'responses'));
  return answers;
}

export type Direction = 'request' | 'response';

/** Nesting deeper than any API needs is not followed: the documents are untrusted input. */
const MAX_NESTING = 128;

/**
 * Which component schemas clients send and which they receive, each with the operations that
 * use it: a schema reached from a request body is sent, from a success answer received
 * (both, for some). References between schemas carry the use on.
 */
export function schemaUses(doc: Json): Map<string, { directions: Set<Direction>; operations: Set<string> }> {
  const uses = new Map<string, { directions: Set<Direction>; operations: Set<string> }>();
  const schemas = componentSchemas(doc);
  const visit = (node: unknown, direction: Direction, operation: string, seen: Set<string>, depth = 0): void => {
    if (depth > MAX_NESTING) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item, direction, operation, seen, depth + 1);
      return;
    }
    if (!isObject(node)) return;
    const name = refName(node);
    if (name !== undefined) {
      const use = uses.get(name) ?? { directions: new Set(), operations: new Set() };
      uses.set(name, use);
      use.directions.add(direction);
      use.operations.add(operation);
      if (seen.has(name)) return;
      seen.add(name);
      visit(schemas[name], direction, operation, seen, depth + 1);
      return;
    }
    for (const value of Object.values(node)) visit(value, direction, operation, seen, depth + 1);
  };
  for (const entry of operationsOf(doc).values()) {
    const body = resolvedBody(entry.operation);
    if (body) visit(jsonSchemaOf(body), 'request', entry.key, new Set());
    for (const response of successResponses(doc, entry.operation).values())
      visit(jsonSchemaOf(response), 'response', entry.key, new Set());
  }
  return uses;
}

export function resolvedBody(operation: Json): Json | undefined {
  return isObject(operation['requestBody']) ? operation['requestBody'] : undefined;
}
