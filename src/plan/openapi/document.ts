/**
 * The OpenAPI 3.1 document of a generated service (served at `{base}/openapi.json`),
 * made from the IR alone, like the code it describes. The generated project ships it as
 * `openapi.json`; `svcgen inspect --openapi` prints it. Output is deterministic: paths and
 * components are sorted, everything else follows the IR's order; no timestamps.
 */
import { FIELD_AUDIENCES, FIELD_AUDIENCES_MARK } from './limits.js';
import type { ServiceIR } from '../../ir/types.js';
import { groupOf } from '../shared/names.js';
import { OpenApiContext, sorted, type Json } from './context.js';
import { OperationIds, routeOperationIds } from './operation-ids.js';
import { componentParameters } from './parameters.js';
import { routePaths } from './paths.js';
import { withoutUnusedComponents } from '../../../runtime/src/lib/openapi-components.js';
import { componentHeaders, componentResponses } from './responses.js';
import { componentSchemas } from './schemas.js';
import { GROUPS_EXTENSION, securitySchemes } from './security.js';
import { namedGroups } from '../../acl/matrix.js';
import { AUTH_TAG, SERVICE_TAG, servicePaths } from './service-paths.js';
import { EventSchemaNames, eventPaths, eventSchemas, eventWebhooks, EVENTS_TAG } from './event-paths.js';
import { eventTypes } from '../shared/event-types.js';

/** One document per service model: the README's route table reads it too (the IR is readonly). */
const documents = new WeakMap<ServiceIR, Json>();

export function openApiDocument(ir: ServiceIR): Json {
  let document = documents.get(ir);
  if (!document) documents.set(ir, (document = buildDocument(ir)));
  return document;
}

function buildDocument(ir: ServiceIR): Json {
  const ctx = new OpenApiContext(ir);
  const ids = new OperationIds();
  const routeIds = routeOperationIds(ir, ids);
  const events = new EventSchemaNames(ctx);
  const paths = [...routePaths(ctx, routeIds), ...servicePaths(ctx, ids, routeIds), ...eventPaths(ctx, ids, events)];
  const schemes = securitySchemes(ctx);
  return withoutUnusedComponents({
    openapi: '3.1.0',
    info: { title: ir.title, version: ir.version ?? '1.0.0', ...description(ir) },
    servers: [{ url: ir.basePath || '/', description: SERVER }],
    // Without authentication no operation takes credentials: said once, for every operation.
    ...(ir.auth ? {} : { security: [] }),
    // With it, an answer's field not every caller sees says who does (schemas.ts): the callers named.
    ...(ir.auth ? { [FIELD_AUDIENCES_MARK]: [...FIELD_AUDIENCES] } : {}),
    ...(ir.auth ? { [GROUPS_EXTENSION]: namedGroups(ir) } : {}),
    tags: tags(ir),
    paths: sorted(paths),
    ...eventWebhooks(ctx, events),
    components: {
      schemas: sorted([...componentSchemas(ctx), ...eventSchemas(ctx, events)]),
      parameters: sorted(componentParameters(ctx)),
      responses: sorted(componentResponses(ctx)),
      headers: sorted(componentHeaders()),
      ...(schemes.length ? { securitySchemes: sorted(schemes) } : {}),
    },
  });
}

/** The URL is relative to the document's own: a client outside a browser needs the host first. */
const SERVER =
  'The base path, relative to the host that serves this document: a client that did not load it from there (an SDK in Node, say) needs the full URL, such as http://localhost:3000 followed by this path.';

/** The document as the project's `openapi.json` holds it. */
export function openApiJson(document: Json): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The RAML's `documentation` sections, as Markdown. */
function description(ir: ServiceIR): Json {
  const sections = ir.documentation.map((d) => `## ${d.title}\n\n${d.content.trim()}`);
  if (ir.auth) sections.push('Authentication and the x-ACLs apply when service.ini says `auth = true`.');
  return sections.length ? { description: sections.join('\n\n') } : {};
}

/** One tag per top-level resource (described by its RAML displayName), then the service's own. */
function tags(ir: ServiceIR): Json[] {
  const groups = new Map<string, Json>();
  for (const route of ir.routes) {
    const group = groupOf(route);
    if (groups.has(group)) continue;
    const top = ir.routes.find((r) => groupOf(r) === group && r.parent === null && r.kind === 'collection');
    groups.set(group, { name: group, description: top?.displayName ?? `/${group} and the routes below it.` });
  }
  return [
    ...groups.values(),
    ...(ir.auth && !groups.has(AUTH_TAG.name) ? [AUTH_TAG] : []),
    ...(eventTypes(ir).size && !groups.has(EVENTS_TAG.name) ? [EVENTS_TAG] : []),
    ...(!groups.has(SERVICE_TAG.name) ? [SERVICE_TAG] : []),
  ];
}
