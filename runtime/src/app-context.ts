/**
 * What src/custom/extend.ts gets: the app and what it runs on. Its own module, so that extend.ts
 * and app.ts (which calls it) do not import each other.
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from './db/index.js';
import type { Config } from './lib/config.js';

export interface AppContext {
  /** The root instance: routes added here live outside the base path unless given `{ prefix: basePath }`. */
  readonly app: FastifyInstance;
  /** The repositories of every model. */
  readonly db: Database;
  /** service.ini's settings, with their environment overrides. */
  readonly config: Config;
  /** Where the API's routes live, e.g. `/v1`. */
  readonly basePath: string;
}
