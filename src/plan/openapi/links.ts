/**
 * OpenAPI `links` from a create to what a client does next with the new object: read, change
 * or delete it (by operationId), so that contract-testing tools can walk the API statefully. The
 * new object's key is the answer's `_pk`; its parents' keys are the request's own path
 * parameters. The 201 answer's `Location` header names the same object.
 */
import type { Route, ServiceIR } from '../../ir/types.js';
import type { Json } from './context.js';
import { operationKey } from './operation-ids.js';

const FOLLOW_UPS = ['GET', 'PATCH', 'PUT', 'DELETE'] as const;

/** The route that serves one object of what `create` creates: the item below a collection, a singular route itself. */
export function createdObjectRoute(ir: ServiceIR, create: Route): Route | undefined {
  if (create.kind === 'singular') return create;
  if (create.kind !== 'collection') return undefined;
  return ir.routes.find(
    (r) =>
      r.kind === 'item' &&
      r.model === create.model &&
      /^\/:[^/]+$/.test(r.path.slice(create.path.length)) &&
      r.path.startsWith(create.path),
  );
}

/** The links of a create's 201 answer (empty when nothing serves the new object). */
export function createLinks(
  target: Route | undefined,
  requestPath: string,
  operationIds: ReadonlyMap<string, string>,
): Json {
  if (!target) return {};
  const known = new Set([...requestPath.matchAll(/:([^/]+)/g)].map((m) => m[1]!));
  const parameters = Object.fromEntries(
    [...target.path.matchAll(/:([^/]+)/g)].map((m) => {
      const name = m[1]!;
      return [name, known.has(name) ? `$request.path.${name}` : '$response.body#/_pk'];
    }),
  );
  const links: [string, Json][] = [];
  for (const method of FOLLOW_UPS) {
    if (!target.operations.some((o) => o.method === method)) continue;
    const operationId = operationIds.get(operationKey(method, target.path));
    if (operationId === undefined) continue;
    links.push([operationId, { operationId, parameters, description: `${method} the new object.` }]);
  }
  return links.length ? { links: Object.fromEntries(links) } : {};
}
