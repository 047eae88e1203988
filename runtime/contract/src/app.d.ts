// src/app.ts (templates/project/app.ts.hbs): the service as a Fastify instance.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { AuthSpec } from './lib/auth/context.js';
import type { Config } from './lib/config.js';
import type { ServiceEvents } from './lib/events.js';
import type { Database } from './db/index.js';

/** Where every route lives (from the RAML's baseUri). */
export declare const BASE_PATH: string;

export interface BuildOptions {
  readonly logger?: FastifyServerOptions['logger'];
  readonly events?: ServiceEvents;
  readonly auth?: AuthSpec;
}

export declare function buildApp(config: Config, db: Database, options?: BuildOptions): Promise<FastifyInstance>;

/** Throws what is wrong with the settings, before the database is opened. */
export declare function checkSettings(config: Config): void;
