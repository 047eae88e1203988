/**
 * A known path answers the methods the RAML lists; any other method gets 405 with
 * an `Allow` header (and a JSON body); OPTIONS, when listed, answers 200 with `Allow`. With CORS
 * on, preflight requests are answered on every path, listed or not.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { HttpError } from '../errors.js';

const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface CorsSettings {
  readonly enable: boolean;
  readonly allowOrigins: readonly string[];
  readonly allowCredentials: boolean;
}

/** `allowed`: the methods the path serves (GET implies HEAD). Registers OPTIONS and 405s for the rest. */
export function completeRoute(
  app: FastifyInstance,
  path: string,
  allowed: readonly HTTPMethods[],
  cors: CorsSettings,
  /** Refuses OPTIONS to callers without the `options` permission (with auth on). */
  authorizeOptions?: (request: FastifyRequest) => Promise<void>,
): void {
  const served = new Set(allowed);
  if (served.has('GET')) served.add('HEAD');
  const allow = [...served].sort().join(', ');
  const options = served.has('OPTIONS');
  const refuse = METHODS.filter((m) => !served.has(m) && !(m === 'OPTIONS' && options));
  if (options) {
    app.options(path, async (request, reply) => {
      if (isPreflight(request) && cors.enable) return preflight(request, reply, allow, cors);
      await authorizeOptions?.(request);
      reply.header('allow', allow);
      return reply.code(200).send();
    });
  }
  if (refuse.length === 0) return;
  app.route({
    method: refuse,
    url: path,
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      if (request.method === 'OPTIONS' && isPreflight(request) && cors.enable)
        return preflight(request, reply, allow, cors);
      throw new HttpError(405, `${request.method} is not allowed on ${path}`, undefined, { allow });
    },
  });
}

function isPreflight(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;
}

function preflight(request: FastifyRequest, reply: FastifyReply, allow: string, cors: CorsSettings): FastifyReply {
  const origin = request.headers.origin!;
  if (allowedOrigin(origin, cors)) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-methods', allow);
    reply.header(
      'access-control-allow-headers',
      String(request.headers['access-control-request-headers'] ?? 'content-type'),
    );
    reply.header('access-control-max-age', '600');
    if (cors.allowCredentials) reply.header('access-control-allow-credentials', 'true');
    reply.header('vary', 'Origin');
  }
  return reply.code(204).send();
}

export function allowedOrigin(origin: string, cors: CorsSettings): boolean {
  return cors.allowOrigins.includes(origin) || (cors.allowOrigins.includes('*') && !cors.allowCredentials);
}
