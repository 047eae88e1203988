/**
 * A known path answers the methods the RAML lists; any other method gets 405 with
 * an `Allow` header (and a JSON body), TRACE and methods the router does not know (PROPFIND…)
 * too; OPTIONS, when listed, answers 200 with `Allow`. CORS preflight requests never get here:
 * lib/http/cors.ts answers them first.
 */
import type { FastifyInstance, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { HttpError } from '../errors.js';
import { requestTarget } from './serialize.js';

/** The methods Fastify routes: the ones the RAML may list, and TRACE and QUERY, which it never does. */
const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'];

interface KnownPath {
  readonly pattern: RegExp;
  readonly allow: string;
  /** As the RAML writes it: `/stories/{id}`. */
  readonly path: string;
}

/** The paths completed on each server (shared by its encapsulated plugins), for methods the router does not know. */
const knownPaths = new WeakMap<object, KnownPath[]>();

/** The known path `url` names (its `Allow` header, its RAML form), or undefined when it names none. */
export function knownPath(app: FastifyInstance, url: string): KnownPath | undefined {
  const path = url.split('?')[0]!;
  return knownPaths.get(app.server)?.find((known) => known.pattern.test(path));
}

/** The methods that write: what the rate limit `writes` counts, and what wakes the outbox's loops. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Fastify's shorthand routes have one method; `route()` may list several (onRoute hooks). */
export function methodsOf(route: RouteOptions): readonly string[] {
  return Array.isArray(route.method) ? route.method : [route.method];
}

/** A route's hooks of one kind as a list, to add one to (onRoute hooks). */
export function hooksOf<H>(hooks: H | H[] | undefined): H[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** `/stories/:id` as the RAML writes it, for messages: `/stories/{id}`. */
export function ramlPath(path: string): string {
  return path.replace(/:([^/]+)/g, '{$1}');
}

/** `/v1/stories/:id` → a pattern of the paths it routes. */
function pathPattern(path: string): RegExp {
  const segments = path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

/** `allowed`: the methods the path serves (GET implies HEAD). Registers OPTIONS and 405s for the rest. */
export function completeRoute(
  app: FastifyInstance,
  path: string,
  allowed: readonly HTTPMethods[],
  /** Refuses OPTIONS to callers without the `options` permission (with auth on). */
  authorizeOptions?: (request: FastifyRequest) => Promise<void>,
): void {
  const served = new Set(allowed);
  if (served.has('GET')) served.add('HEAD');
  const allow = [...served].sort().join(', ');
  const paths = knownPaths.get(app.server) ?? [];
  knownPaths.set(app.server, paths);
  paths.push({ pattern: pathPattern(`${app.prefix}${path}`), allow, path: ramlPath(path) });
  const options = served.has('OPTIONS');
  const refuse = METHODS.filter((m) => !served.has(m) && !(m === 'OPTIONS' && options));
  if (options) {
    app.options(path, async (request, reply) => {
      await authorizeOptions?.(request);
      reply.header('allow', allow);
      return reply.code(200).send();
    });
  }
  if (refuse.length === 0) return;
  const refusal = (request: FastifyRequest): HttpError => {
    // A browser asks before a cross-origin call: say where the origins it may come from are set.
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    const why = preflight
      ? ': a CORS preflight, answered only for the origins in cors.allow_origins, with cors.enable = true (service.ini)'
      : '';
    return new HttpError(405, `${request.method} is not allowed on ${ramlPath(path)}${why}`, undefined, { allow });
  };
  app.route({
    method: refuse,
    url: path,
    exposeHeadRoute: false,
    config: { refusal },
    handler: async (request) => {
      throw refusal(request);
    },
  });
}

/** A path that is no route: 404, or 405 with `Allow` when only its method is unknown to the router (PROPFIND…). */
export function unrouted(request: FastifyRequest): HttpError {
  const target = requestTarget(request);
  const known = knownPath(request.server, target);
  if (known)
    return new HttpError(405, `${request.method} is not allowed on ${known.path}`, undefined, { allow: known.allow });
  return new HttpError(404, notAResource(request.server, target));
}

/**
 * What a URL that names nothing is told; where it ends in a slash and names a resource without it
 * (`/clinics/`), that one (a new user's GET was a bare 404: trailing slashes name nothing, as in Ramses).
 */
export function notAResource(app: FastifyInstance, url: string): string {
  const path = url.split('?')[0]!;
  const unslashed = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : undefined;
  const hint = unslashed && knownPath(app, unslashed) ? `; without the trailing slash it is: ${unslashed}` : '';
  return `${path} is not a resource of this service${hint}`;
}

/**
 * The route config of a POST that reads no body (`POST /auth/logout`): one sent empty with a JSON
 * type, as HTTP wrappers that set it on every request do, is none (a probe's logout was a 400, and
 * the session stayed).
 */
export const NO_BODY = { takesNoBody: true };

export function takesNoBody(request: FastifyRequest): boolean {
  return request.routeOptions.config?.takesNoBody === true;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** NO_BODY: the route reads no body. */
    takesNoBody?: boolean;
    /** The route refuses every request, so: its methods are those its path does not serve (completeRoute). */
    refusal?: (request: FastifyRequest) => HttpError;
  }
}
