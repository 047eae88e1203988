/** `GET {base}/openapi.json` (contract §2): the service's OpenAPI 3.1 document, to anyone (no auth). */
import type { FastifyInstance } from 'fastify';
import { completeRoute, type CorsSettings } from './routing.js';

export function openApiRoute(
  app: FastifyInstance,
  document: Readonly<Record<string, unknown>>,
  cors: CorsSettings,
): void {
  // Serialized once: the document never changes while the service runs.
  const text = JSON.stringify(document);
  app.get('/openapi.json', async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return reply.type('application/json; charset=utf-8').send(text);
  });
  completeRoute(app, '/openapi.json', ['GET'], cors);
}
