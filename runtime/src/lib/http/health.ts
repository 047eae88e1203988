/** `GET {base}/health`: 200 when the database answers, 503 when it does not. */
import type { FastifyInstance } from 'fastify';
import { databaseUnavailable, type ServiceDatabase } from '../database.js';
import { completeRoute } from './routing.js';

export function healthRoute(app: FastifyInstance, db: ServiceDatabase): void {
  const answer = { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } } as const;
  app.get('/health', { schema: { response: { 200: answer } } }, async (request) => {
    try {
      await db.ping();
    } catch (error) {
      request.log.error({ err: error }, 'health check: the database does not answer');
      throw databaseUnavailable();
    }
    return { status: 'ok' };
  });
  completeRoute(app, '/health', ['GET']);
}
