/**
 * What the route plugins share, decorated once on the Fastify instance as `app.services`: each
 * route plugin reads it when it registers its routes and binds its actions to it, so a request
 * looks nothing up. Wrapped with fastify-plugin, the decoration lands on the instance that
 * registers it (the root), not in a context of its own: every route plugin sees it, and so does
 * src/custom/extend.ts.
 */
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceDatabase } from '../database.js';
import type { ServiceEvents } from '../events.js';
import type { Model } from '../model.js';
import type { Policy } from './policy.js';

type Rec = Record<string, unknown>;

export interface Services {
  readonly db: ServiceDatabase;
  readonly policy: Policy;
  /**
   * Makes data about to be written ready to store: secrets (passwords) replaced by their hashes
   * (`client` queues fairly for that), with auth on the users' logins in their one form.
   */
  readonly prepareWrite?: (model: Model, data: Rec, client?: string) => Promise<Rec>;
  /** With auth on: the user model's usernames claim their plain forms (lib/auth/login-names.ts). */
  readonly loginNames?: LoginNames;
  /** The handlers and processors of every model (src/events.ts). */
  readonly events?: ServiceEvents;
  readonly basePath: string;
  readonly defaultLimit: number;
  /** `max_offset`: the furthest a page may start. */
  readonly maxOffset: number;
  /** `bulk_max`: the most objects one collection PATCH, PUT or DELETE may change. */
  readonly bulkMax: number;
}

/** The writes of the user model's usernames (lib/auth/login-names.ts; with auth on). */
export interface LoginNames {
  /** The user model's name. */
  readonly model: string;
  /**
   * Inside a write's transaction (`db`), before it stores `data` for the user whose key is `key`
   * (undefined: a new one): the username in `data`, if any, claims its plain form, or the write is a 409.
   */
  claim(db: ServiceDatabase, data: Record<string, unknown>, key: unknown, request: FastifyRequest): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The database, the ACL policy, the event handlers and the settings the routes use. */
    readonly services: Services;
  }
}

export const services = fp<Services>(
  async (app, options) => {
    app.decorate('services', options);
  },
  { name: 'services', fastify: '5.x' },
);
