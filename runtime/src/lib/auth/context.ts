/** What the parts of authentication share: settings, keys, the database and the user model. */
import type { Config } from '../config.js';
import type { ModelEvents, ServiceEvents } from '../events.js';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { generic, type AnyModel, type Model } from '../model.js';
import type { Acl } from './acl.js';
import type { DeviceKeys } from './device.js';
import type { PasswordHasher } from './passwords.js';
import type { LoginThrottle } from './throttle.js';
import type { HashAlgorithm, TicketKeys } from './ticket.js';
import type { UnchangedReads } from './unchanged-reads.js';

/** The generated description of the API's authentication (src/auth.ts). */
export interface AuthSpec {
  /** The model that holds the users: `username`, `email`, `password`, `groups` and the API's own fields. */
  readonly userModel: AnyModel;
  /** Session epochs and token digests, one per user (never routed). */
  readonly credentialModel: AnyModel;
  /** Failed logins per login and client address, for the brute-force brake (never routed). */
  readonly loginFailureModel: AnyModel;
  /** The plain form of each username, claimed by one (lib/auth/login-names.ts; never routed). */
  readonly loginNameModel: AnyModel;
  /** JSON Schema of a new user (the user model's create body): `POST /auth/register`. */
  readonly registerBody: object;
  /** JSON Schema of a user as answers show them (the user model's response schema). */
  readonly userResponse: object;
  /** Whether the user model is served as `/users/{key}` (then `GET /users/self` is that route). */
  readonly userRouteIsSelf: boolean;
  readonly ticket: {
    /** The service.ini key that holds the secret(s). */
    readonly secretSetting: string;
    readonly hashalg: HashAlgorithm;
    readonly cookieName: string;
    readonly httpOnly: boolean;
  } | null;
  readonly apiKey: boolean;
  /** Every x-ACL of the API, by name. */
  readonly acls: Readonly<Record<string, Acl>>;
}

/** Makes data about to be written ready to store (secrets hashed; `client` queues fairly for that). */
export type PrepareWrite = (
  model: Model,
  data: Record<string, unknown>,
  client?: string,
) => Promise<Record<string, unknown>>;

export type { LoginNames } from '../http/services.js';

export interface AuthContext {
  readonly spec: AuthSpec;
  readonly config: Config;
  readonly db: ServiceDatabase;
  readonly basePath: string;
  readonly hasher: PasswordHasher;
  /** The user model's handlers and processors (register, login, logout). */
  readonly events: ModelEvents | undefined;
  /** Every model's: those of the objects a registration's links move (http/moved-links.ts). */
  readonly serviceEvents: ServiceEvents | undefined;
  readonly throttle: LoginThrottle;
  /** Null when the API has no x-Ticket scheme. */
  readonly keys: TicketKeys | null;
  /** The device cookies' keys (device.ts), from the x-Ticket secret: null without one. */
  readonly deviceKeys: DeviceKeys | null;
  /** Milliseconds since 1970 (tests move it). */
  readonly now: () => number;
  /** Whom credentials name, kept while the user and credential tables are unchanged (SQLite; unchanged-reads.ts). */
  readonly identities: UnchangedReads;
}

export function userModel(ctx: AuthContext): Model {
  return generic(ctx.spec.userModel);
}

export function users(ctx: AuthContext, db: ServiceDatabase = ctx.db): EngineRepository {
  return db.repository(ctx.spec.userModel.name);
}

export function credentials(ctx: AuthContext, db: ServiceDatabase = ctx.db): EngineRepository {
  return db.repository(ctx.spec.credentialModel.name);
}

/** The user's primary key as text: what tickets, credentials and ACL user principals hold. */
export function userKeyOf(ctx: AuthContext, user: Record<string, unknown>): string {
  return String(user[userModel(ctx).primaryKey]);
}
