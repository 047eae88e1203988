/**
 * The service's database belongs to the app: `app.close()` (at SIGTERM in server.ts, at the end of
 * a test) closes it once the requests in flight are answered.
 */
import fp from 'fastify-plugin';
import type { ServiceDatabase } from '../database.js';

export const database = fp<{ readonly db: ServiceDatabase }>(
  async (app, { db }) => {
    app.addHook('onClose', () => db.close());
  },
  { name: 'database', fastify: '5.x' },
);
