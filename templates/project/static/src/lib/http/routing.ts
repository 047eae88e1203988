/**
 * A known path answers the methods the RAML lists; any other method gets 405 with
 * an `Allow` header (and a JSON body); OPTIONS, when listed, answers 200 with `Allow`. CORS
 * preflight requests never get here: lib/http/cors.ts answers them first.
 */
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify';
import { HttpError } from '../errors.js';

const METHODS: readonly HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

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
  app.route({
    method: refuse,
    url: path,
    exposeHeadRoute: false,
    handler: async (request) => {
      throw new HttpError(405, `${request.method} is not allowed on ${path}`, undefined, { allow });
    },
  });
}
