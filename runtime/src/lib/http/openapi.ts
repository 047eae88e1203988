/**
 * `GET {base}/openapi.json`: the service's OpenAPI 3.1 document, to anyone (no auth), and, with
 * `docs.enable`, the browsable reference at `{base}/docs` (docs.ts). The document is the project's
 * openapi.json, which svcgen generates; it is read once, at start-up.
 */
import { readFile } from 'node:fs/promises';
import fp from 'fastify-plugin';
import { docsRoutes } from './docs.js';
import { withoutUnusedComponents } from '../openapi-components.js';
import { completeRoute } from './routing.js';

type Json = Record<string, unknown>;

export interface OpenApiOptions {
  /** The project's openapi.json. */
  readonly file: URL;
  /** `auth` of service.ini: off, the document goes without its authentication (`withoutAuth`). */
  readonly auth: boolean;
  /** `docs.enable` of service.ini. */
  readonly docs: boolean;
}

export const openApi = fp<OpenApiOptions>(
  async (app, options) => {
    const generated = JSON.parse(await readFile(options.file, 'utf8')) as Json;
    // Only a document that describes authentication has any to leave out.
    const document = options.auth || !describesAuth(generated) ? generated : withoutAuth(generated);
    // Serialized once: the document never changes while the service runs.
    const text = JSON.stringify(document);
    app.get('/openapi.json', async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return reply.type('application/json; charset=utf-8').send(text);
    });
    completeRoute(app, '/openapi.json', ['GET']);
    if (options.docs) docsRoutes(app, titleOf(document));
  },
  { name: 'openapi', fastify: '5.x' },
);

function describesAuth(document: Json): boolean {
  return (document['components'] as Json | undefined)?.['securitySchemes'] !== undefined;
}

/** The API's title, as the docs page shows it. */
function titleOf(document: Json): string {
  const title = (document['info'] as Json | undefined)?.['title'];
  return typeof title === 'string' ? title : 'API';
}

/** The statuses only authentication answers with (429 stays: rate limits apply with auth off too). */
const AUTH_STATUSES = ['401', '403'];

/**
 * Marks an operation that answers 403 with auth off too (a body that writes a read-only field, a
 * handler's refusal): svcgen's src/plan/openapi/responses.ts says which.
 */
const FORBIDDEN_WITHOUT_AUTH_MARK = 'x-svcgen-forbidden-without-auth';

/**
 * The document of a service running with auth = false: the generated one describes the API with
 * its authentication, so the auth routes, security requirements and 401/403 answers go (but the 403
 * of an operation that refuses without auth too, as a body writing a read-only field), and so do
 * the components only they used (`Login`, `Token`…): no operation takes credentials (`security: []`,
 * said once for all), and no component is left that no client could use.
 */
export function withoutAuth(document: Readonly<Json>): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries((document['paths'] as Json | undefined) ?? {})) {
    const kept = Object.entries(item as Json).flatMap(([key, value]) => {
      const operation = value as Json;
      if (!isOperation(key, operation)) return [[key, value]];
      if ((operation['tags'] as string[] | undefined)?.includes('auth')) return [];
      const { security: _security, ...rest } = operation;
      const statuses = operation[FORBIDDEN_WITHOUT_AUTH_MARK] === true ? ['401'] : AUTH_STATUSES;
      return [[key, { ...rest, responses: omit(operation['responses'] as Json, statuses) }]];
    });
    if (kept.some(([key, value]) => isOperation(String(key), value as Json))) paths[path] = Object.fromEntries(kept);
  }
  const components = (document['components'] as Json | undefined) ?? {};
  const { securitySchemes: _schemes, ...otherComponents } = components;
  if (otherComponents['schemas'])
    otherComponents['schemas'] = withoutRegisterEvents(otherComponents['schemas'] as Json);
  return withoutUnusedComponents({
    ...document,
    security: [],
    tags: ((document['tags'] as Json[] | undefined) ?? []).filter((tag) => tag['name'] !== 'auth'),
    paths,
    components: {
      ...otherComponents,
      // Forbidden stays where an operation still answers it: withoutUnusedComponents drops it otherwise.
      responses: omit((components['responses'] as Json | undefined) ?? {}, ['Unauthorized']),
    },
  });
}

/**
 * Without auth nobody registers: `<User>.register` leaves the event schemas (marked
 * `x-svcgen-events` by svcgen), a schema left with no type goes, and so does its place in the
 * `oneOf` of all events.
 */
function withoutRegisterEvents(schemas: Json): Json {
  const out: Json = {};
  const dropped = new Set<string>();
  for (const [name, value] of Object.entries(schemas)) {
    const schema = value as Json;
    const type = ((schema['properties'] as Json | undefined)?.['type'] as Json | undefined) ?? {};
    if (schema['x-svcgen-events'] !== true || !Array.isArray(type['enum'])) {
      out[name] = schema;
      continue;
    }
    const kept = (type['enum'] as string[]).filter((t) => !t.endsWith('.register'));
    if (kept.length === 0) dropped.add(`#/components/schemas/${name}`);
    else out[name] = { ...schema, properties: { ...(schema['properties'] as Json), type: { ...type, enum: kept } } };
  }
  for (const [name, value] of Object.entries(out)) {
    const oneOf = (value as Json)['oneOf'];
    if (Array.isArray(oneOf) && oneOf.some((r) => dropped.has((r as Json)['$ref'] as string)))
      out[name] = { ...(value as Json), oneOf: oneOf.filter((r) => !dropped.has((r as Json)['$ref'] as string)) };
  }
  return out;
}

function isOperation(key: string, value: Json): boolean {
  return key !== 'parameters' && typeof value === 'object' && value !== null && 'responses' in value;
}

function omit(object: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !keys.includes(key)));
}
