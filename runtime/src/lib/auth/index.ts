/**
 * Authentication and access control, switched on by `auth = true`. `startAuth`
 * checks the settings (refusing to start without a strong ticket secret), creates the system
 * admin from service.ini, and gives the ACL policy and the plugin that identifies every request
 * and serves the auth routes.
 */
import cookie from '@fastify/cookie';
import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { ConfigError, envName, type Config } from '../config.js';
import { HttpError, badRequest } from '../errors.js';
import { ConstraintViolation } from '../repository.js';
import { characters, text } from '../text.js';
import type { ServiceDatabase } from '../database.js';
import { generic, withDefaults, type Model } from '../model.js';
import type { ServiceEvents } from '../events.js';
import type { Policy } from '../http/policy.js';
import { userModel, users, type AuthContext, type AuthSpec, type LoginNames, type PrepareWrite } from './context.js';
import { callerOf, identify, provedBy, renewDevice } from './identity.js';
import type { PasswordHasher } from './passwords.js';
import { unwrittenPrincipals } from './acl.js';
import { aclPolicy } from './policy.js';
import { authRoutes } from './routes.js';
import { claimExistingNames, claimLoginName, refuseReserved, reservedNames } from './login-names.js';
import { LOGIN_FIELDS, loginForm, SELF, SELF_REFUSED, withLoginForms, type LengthLimits } from './logins.js';
import { LoginThrottle, type Budget } from './throttle.js';
import { deviceKeys } from './device.js';
import { MIN_SECRET_BYTES, splitSecrets, ticketKeys } from './ticket.js';
import { UnchangedReads } from './unchanged-reads.js';

export type { AuthSpec, LoginNames, PrepareWrite } from './context.js';
export { authOffWarnings } from './off.js';
export type { RequestBy } from '../events.js';
export {
  dynamicPrincipal,
  grant,
  group,
  user,
  type AclEntry,
  type AclResult,
  type AclRule,
  type DynamicPrincipal,
  type PrincipalWhere,
} from './acl.js';

type Rec = Record<string, unknown>;

export interface Auth {
  readonly policy: Policy;
  /** The user model's usernames and emails in their one form (lib/auth/logins.ts), and secrets hashed. */
  readonly prepareWrite: PrepareWrite;
  /** The user model's usernames claim their plain forms as they are written (lib/auth/login-names.ts). */
  readonly loginNames: LoginNames;
  /**
   * Identifies the caller of every request and serves the auth routes: registered inside the base
   * path, a fastify-plugin, so that its hook sees every route there.
   */
  readonly plugin: FastifyPluginAsync;
  /** What the operator should hear at start-up (a principal whose function is still a stub). */
  readonly warnings: readonly string[];
  /** What this start did that the operator should know of (the system user created). */
  readonly notices: readonly string[];
}

export interface AuthOptions {
  readonly basePath: string;
  readonly hasher: PasswordHasher;
  /** The handlers of register, login and logout are the user model's. */
  readonly events?: ServiceEvents;
  /** Milliseconds since 1970 (tests move it). */
  readonly now?: () => number;
}

/**
 * What is wrong with the auth settings, found before the database is touched (server.ts): a start
 * that would fail on them must not migrate the database first, which an older build then refuses.
 * Returns the ticket's signing secrets (null without a ticket).
 */
export function checkAuthSettings(config: Config, spec: AuthSpec): string[] | null {
  const secrets = spec.ticket ? ticketSecrets(config, spec.ticket.secretSetting) : null;
  if (config.authReissueTime >= config.authTimeout && config.authReissueTime !== 0) {
    throw new ConfigError(
      'auth.reissue_time must be shorter than auth.timeout, or tickets expire before they are reissued',
    );
  }
  return secrets;
}

export async function startAuth(
  config: Config,
  db: ServiceDatabase,
  spec: AuthSpec,
  options: AuthOptions,
): Promise<Auth> {
  const secrets = checkAuthSettings(config, spec);
  const ctx: AuthContext = {
    spec,
    config,
    db,
    basePath: options.basePath,
    hasher: options.hasher,
    events: options.events?.get(spec.userModel.name),
    serviceEvents: options.events,
    throttle: new LoginThrottle(
      db,
      spec.loginFailureModel.name,
      options.now,
      budget(config.loginAttempts),
      // Without device cookies (no x-Ticket), whoever uses up the strangers' count locks every client
      // out that holds no token of the account yet: counted only where the API says so.
      budget({ ...config.accountAttempts, limit: config.accountAttempts.limit ?? (spec.ticket ? 100 : 0) }),
    ),
    keys: spec.ticket && secrets ? ticketKeys(secrets, spec.ticket.hashalg) : null,
    deviceKeys: secrets && deviceKeys(secrets),
    now: options.now ?? Date.now,
    identities: new UnchangedReads(db.watch?.([spec.userModel.name, spec.credentialModel.name])),
  };
  const hashSecrets = secretHasher(options.hasher);
  await claimExistingNames(ctx);
  const limits = loginLimits(spec.registerBody);
  const createdSystemUser = await ensureSystemUser(ctx, hashSecrets, limits);
  const namedSelf = await usersNamedSelf(ctx);
  const policy = aclPolicy(ctx);
  const prepareWrite = userWrites(spec, options.hasher);
  const reserved = reservedNames(spec.acls);
  const loginNames: LoginNames = {
    model: spec.userModel.name,
    claim: async (db, data, key, request) => {
      // Only an admin makes a user an x-ACL line names (or one that passes for it): a member's create
      // through the users' route made `editor`, and had what `allow editor all` gives.
      if (key === undefined && !callerOf(request).groups.has('admin'))
        refuseReserved(data[userModel(ctx).primaryKey], reserved, userModel(ctx).primaryKey);
      if (typeof data['username'] === 'string')
        await claimLoginName(ctx, db, data['username'], key, { mayRetake: callerOf(request).groups.has('admin') });
    },
  };
  return {
    policy,
    prepareWrite,
    loginNames,
    warnings: [
      ...unwrittenPrincipals(spec.acls).map(
        (line) =>
          `the ACL principal {{${line.dynamic}}} returns nothing yet (${line.file ?? 'its function'} is still the stub svcgen wrote): the ACL lines that name it match no one`,
      ),
      ...namedSelf,
    ],
    notices: createdSystemUser
      ? [`created the system user "${createdSystemUser}" (system.user), in the admin group`]
      : [],
    plugin: fp(
      async (api) => {
        await api.register(cookie);
        api.addHook('onRequest', (request, reply) => identify(ctx, request, reply));
        // Callback style: no promise for the answers that carry no new device cookie (all but one kind).
        api.addHook('onSend', (request, reply, payload, done) => {
          const userKey = provedBy(request);
          if (userKey === undefined) return done(null, payload);
          renewDevice(ctx, request, reply, userKey).then(() => done(null, payload), done);
        });
        authRoutes(api, ctx, policy, prepareWrite);
      },
      { name: 'authentication', fastify: '5.x' },
    ),
  };
}

function budget(setting: { readonly limit: number; readonly windowSeconds: number }): Budget {
  return { limit: setting.limit, windowMs: setting.windowSeconds * 1000 };
}

function ticketSecrets(config: Config, setting: string): string[] {
  const secrets = splitSecrets(config.settings.get(setting) ?? '');
  const env = envName(setting);
  if (secrets.length === 0) {
    throw new ConfigError(
      `auth = true needs ${setting} (the login cookie's signing secret) in service.ini or ${env}: 32 or more random characters, e.g. from \`openssl rand -hex 32\``,
    );
  }
  const short = secrets.find((s) => Buffer.byteLength(s, 'utf8') < MIN_SECRET_BYTES);
  if (short !== undefined) {
    throw new ConfigError(
      `${setting} is too short: each secret needs ${MIN_SECRET_BYTES} bytes or more (e.g. \`openssl rand -hex 32\`)`,
    );
  }
  return secrets;
}

/** The lengths the user model's create body allows its login fields (lib/auth/logins.ts checks them normalised). */
function loginLimits(registerBody: object): Record<string, LengthLimits> {
  const properties = (registerBody as { properties?: Record<string, LengthLimits> }).properties ?? {};
  return Object.fromEntries(LOGIN_FIELDS.map((name) => [name, properties[name] ?? {}]));
}

/**
 * How a write is made ready to store, whether or not auth is on: secrets hashed, and a user's
 * username and email in their login forms (lower case, NFKC), a key `self` refused. With auth off
 * they were stored as sent: `ALICE` beside `alice`, and with auth on later `ALICE` could never log
 * in (a login names `alice`), nor a user by an email another's is in another case (a probe's).
 */
export function userWrites(spec: AuthSpec, hasher: PasswordHasher): PrepareWrite {
  const hashSecrets = secretHasher(hasher);
  const limits = loginLimits(spec.registerBody);
  return async (model, data, client) => {
    if (model.name !== spec.userModel.name) return hashSecrets(model, data, client);
    const key = data[model.primaryKey];
    if (typeof key === 'string' && loginForm(key) === SELF)
      throw badRequest(`${model.primaryKey} ${SELF_REFUSED}`, [{ field: model.primaryKey, message: SELF_REFUSED }]);
    return hashSecrets(model, withLoginForms(data, limits), client);
  };
}

/** Hashes the secret fields (passwords) of data about to be written; with auth on or off. */
export function secretHasher(hasher: PasswordHasher): PrepareWrite {
  return async (model, data, client) => {
    const secrets = model.fields.filter((f) => f.secret && typeof data[f.name] === 'string');
    if (secrets.length === 0) return data;
    const out = { ...data };
    for (const field of secrets) out[field.name] = await hasher.hash(data[field.name] as string, field.name, client);
    return out;
  };
}

/**
 * A system user that exists must be an admin. One that is not was registered by someone before
 * the setting named it (or demoted since): the service neither promotes a name anyone could have
 * taken nor starts as if the operator had the admin they configured.
 */
function checkSystemUser(user: Rec, name: string): void {
  const groups = user['groups'];
  if (Array.isArray(groups) && groups.includes('admin')) return;
  throw new ConfigError(
    `the system user "${name}" (system.user) exists and is not an admin: someone registered the name, or an admin took the group away. The service does not make it an admin, since anyone may have registered it: choose another system.user, or, if the user is yours, give it the admin group as an admin (PATCH its groups) and start again`,
  );
}

/** The system user's name claims its plain form, unless another user's name passes for it. */
async function claimSystemName(ctx: AuthContext, username: string): Promise<void> {
  try {
    // The operator names it: the system user deleted by an admin is made again at the next start.
    await claimLoginName(ctx, ctx.db, username, undefined, { mayRetake: true });
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    throw new ConfigError(
      `the system user "${username}" (system.user) cannot be created: its name ${error.message.replace(/^username /, '')}`,
    );
  }
}

/**
 * Users stored as `self` before names were checked (or written by code): `/users/self` is the
 * logged-in user, so such a user's `_self` link names whoever follows it (an admin's DELETE of it
 * deletes the admin). Said at every start until they are renamed.
 */
async function usersNamedSelf(ctx: AuthContext): Promise<string[]> {
  const model = userModel(ctx);
  const repository = users(ctx);
  const textKey = model.field(model.primaryKey)?.storage === 'text';
  const byKey = textKey ? await repository.findUnique({ where: { [model.primaryKey]: SELF } }) : null;
  const byName = model.primaryKey === 'username' ? null : await repository.findFirst({ where: { username: SELF } });
  return [byKey, byName]
    .filter((user): user is Rec => user !== null && user !== undefined)
    .map(
      (user) =>
        `a user is ${user === byKey ? `keyed ${model.primaryKey}` : 'named'} "self" (${model.name} ${text(user[model.primaryKey])}), stored before such names were refused: /users/self is the logged-in user, so its _self link names whoever follows it; ${user === byKey ? 'no URL names it: rename it with a script of your own' : `an admin renames it (a PATCH of its username at its ${model.primaryKey})`}`,
    );
}

/**
 * `system.user`/`system.password`/`system.email`: an admin created at start-up when missing. Gives
 * the username it was created with, if this start created it.
 */
async function ensureSystemUser(
  ctx: AuthContext,
  hashSecrets: (model: Model, data: Rec) => Promise<Rec>,
  limits: Readonly<Record<string, LengthLimits>>,
): Promise<string | undefined> {
  const system = ctx.config.system;
  if (!system) return undefined;
  const model = generic(ctx.spec.userModel);
  const repository = users(ctx);
  // As written (a name stored before usernames had one form), else as a login.
  const findSystemUser = async () =>
    (await repository.findFirst({ where: { username: system.user } })) ??
    (await repository.findFirst({ where: { username: loginForm(system.user) } }));
  const existing = await findSystemUser();
  if (existing) {
    checkSystemUser(existing, system.user);
    return undefined;
  }
  const length = characters(system.password);
  // What a registration asks of a password (the schema's minLength), and never less than NIST's 8.
  const least = Math.max(MIN_SYSTEM_PASSWORD, passwordMinLength(ctx.spec.registerBody));
  if (length < least)
    throw new ConfigError(
      `system.password is ${length} characters long: the system user is an admin, whose password must be at least ${least} (a passphrase of several words is best)`,
    );
  // In the one form logins have, and held to what a registration is (a zero-width space in the name,
  // an email without @, a username with one, each made an admin before).
  const given = withDefaults(model, systemLogins(system, limits, ctx.spec.registerBody));
  Object.assign(given, { password: system.password, groups: ['admin'] });
  // Settings give the four fields above; any other field a user must have needs a default.
  const lacking = model.fields.filter(
    (f) => (f.requiredOnCreate || f.primaryKey) && !f.generated && given[f.name] === undefined,
  );
  if (lacking.some((f) => f.name === model.primaryKey))
    throw new ConfigError(
      `the system user "${system.user}" (system.user) cannot be created: the user model's key ${model.primaryKey} is given by whoever creates a user (the service makes up only an id_field key); make it an id_field, or leave system.user unset (SVC_SYSTEM_USER= for one start) and create the admin another way`,
    );
  if (lacking.length)
    throw new ConfigError(
      `the system user "${system.user}" (system.user) cannot be created: the user model's required ${lacking.length > 1 ? 'fields' : 'field'} ${lacking.map((f) => f.name).join(', ')} ${lacking.length > 1 ? 'have' : 'has'} no default; give ${lacking.length > 1 ? 'them' : 'it'} a "default" in the schema, or leave system.user unset (SVC_SYSTEM_USER= for one start) and create the admin another way`,
    );
  const data = await hashSecrets(model, given);
  try {
    await claimSystemName(ctx, String(data['username']));
    await repository.create({ data });
    return String(data['username']);
  } catch (error) {
    // Another instance starting at the same moment created it first, or a member registered the
    // name since the lookup above: the user there must be an admin all the same.
    const there = await findSystemUser();
    if (!there) throw systemUserRefused(system, error);
    checkSystemUser(there, system.user);
    return undefined;
  }
}

/** `system.user` and `system.email` in their login forms, or what a registration of them would be told. */
function systemLogins(
  system: { user: string; email: string },
  limits: Readonly<Record<string, LengthLimits>>,
  registerBody: object,
): Rec {
  const unmatched = unmatchedPatterns(system, registerBody);
  if (unmatched.length) throw new ConfigError(`the system user cannot be created: ${unmatched.join('; ')}`);
  try {
    return withLoginForms({ username: system.user, email: system.email }, limits);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const problems = (error.errors ?? []).map(
      (e) => `${e.field === 'username' ? 'system.user' : 'system.email'} ${e.message}`,
    );
    throw new ConfigError(`the system user cannot be created: ${problems.join('; ') || error.message}`);
  }
}

/** `system.user` and `system.email` against the `pattern`s the user schema gives a registration's username and email. */
function unmatchedPatterns(system: { user: string; email: string }, registerBody: object): string[] {
  const properties = (registerBody as { properties?: Record<string, { pattern?: unknown }> }).properties ?? {};
  const settings = [
    ['username', 'system.user', system.user],
    ['email', 'system.email', system.email],
  ] as const;
  return settings.flatMap(([field, setting, value]) => {
    const pattern = properties[field]?.pattern;
    // As the route's validator reads a pattern (Ajv: Unicode-aware).
    return typeof pattern === 'string' && !new RegExp(pattern, 'u').test(value)
      ? [`${setting} does not match the pattern the user schema gives ${field} (${pattern})`]
      : [];
  });
}

/** The `minLength` the user model's create body gives `password`, or 0. */
function passwordMinLength(registerBody: object): number {
  const password = (registerBody as { properties?: Record<string, { minLength?: unknown }> }).properties?.['password'];
  return typeof password?.minLength === 'number' ? password.minLength : 0;
}

/** At least this many characters in `system.password` (NIST SP 800-63B's minimum). */
const MIN_SYSTEM_PASSWORD = 8;

/** Why the system user could not be created, as the operator can act on it (a member took its email first). */
function systemUserRefused(system: { user: string; email: string }, error: unknown): unknown {
  if (error instanceof HttpError || (error instanceof ConstraintViolation && error.kind !== 'unique'))
    return new ConfigError(`the system user "${system.user}" (system.user) cannot be created: ${error.message}`);
  if (!(error instanceof ConstraintViolation)) return error;
  const taken = error.fields.includes('email')
    ? `its email "${system.email}" (system.email) is another user's`
    : `its ${error.fields.join(', ')} is another user's`;
  return new ConfigError(
    `the system user "${system.user}" (system.user) cannot be created: ${taken}. Choose another system.email, or, if that user is the admin you meant, set system.user to their username`,
  );
}
