/** `GET {base}/health`: 200 when the database answers, 503 when it does not. */
import fp from 'fastify-plugin';
import { databaseUnavailable, type ServiceDatabase } from '../database.js';
import { completeRoute } from './routing.js';

export const health = fp<{ readonly db: ServiceDatabase }>(
  async (app, { db }) => {
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
  },
  { name: 'health', fastify: '5.x' },
);
