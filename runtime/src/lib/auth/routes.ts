/**
 * The auth routes below the base path: `POST /auth/register`, `POST /auth/login`,
 * `GET`/`POST /auth/logout`, with x-ApiKey `POST /auth/token` and `POST /auth/reset_token`, and
 * `GET /users/self` when the user model has no item route of its own to answer it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, badRequest, fieldsRefused, formatTimestamp, statusBody } from '../errors.js';
import { inTransaction, withEvents, type Action, type EventRun } from '../events.js';
import { newEvent } from '../outbox/event.js';
import { missingKey, unnamableKey, withDefaults, type Model, type ModelRegistry } from '../model.js';
import type { ServiceDatabase } from '../database.js';
import { clientOf } from '../http/client-address.js';
import { hideRefusedLinks, refuseUnknownLinks } from '../http/hidden-links.js';
import { refusedActs, refusedRelinks, relinkRefusal } from '../http/relinks.js';
import { withMovedLinks } from '../http/moved-links.js';
import { foreignKeysNamed, inexactDecimals, oversizedIndexedText } from '../http/writes.js';
import { isReadOnly, type Policy } from '../http/policy.js';
import { completeRoute, NO_BODY } from '../http/routing.js';
import { parseItemFields } from '../http/query.js';
import { itemQuery, noQuery, statusAnswer, tokenAnswer } from '../http/schemas.js';
import { includeFor, requestOrigin, requestUrl, serialize } from '../http/serialize.js';
import { credentials, userKeyOf, userModel, users, type AuthContext, type PrepareWrite } from './context.js';
import { asLoggedIn, clearTicket, callerOf, crossSite, groupsOf, guesserOf, logIn, trustDevice } from './identity.js';
import { fieldRefusal, fieldsFor } from './policy.js';
import { apiKeyHeader, newToken, tokenDigest } from './tokens.js';
import { fingerprint } from './ticket.js';
import { claimLoginName, refuseReserved, reservedNames } from './login-names.js';
import { loginForm } from './logins.js';
import { hashingClient } from './throttle.js';

type Rec = Record<string, unknown>;

const LOGIN_BODY = {
  type: 'object',
  required: ['login', 'password'],
  additionalProperties: false,
  properties: { login: { type: 'string', minLength: 1, maxLength: 320 }, password: { type: 'string', minLength: 1 } },
} as const;

/**
 * Ramses' login and logout redirects, `?next=` and `?unauthorized=`: taken and ignored (the answer
 * is the user, or the status body), as the README says. Any other query parameter of the auth
 * routes is a 400, as on every write: a client's parameter is never silently dropped.
 */
const REDIRECTS = {
  type: 'object',
  properties: { next: { type: 'string' }, unauthorized: { type: 'string' } },
  additionalProperties: false,
} as const;

export function authRoutes(api: FastifyInstance, ctx: AuthContext, policy: Policy, prepareWrite: PrepareWrite): void {
  const model = userModel(ctx);
  const reserved = reservedNames(ctx.spec.acls);
  const hideRefused = (request: FastifyRequest, user: Rec, db: ServiceDatabase = ctx.db) =>
    hideRefusedLinks(policy, request, db, model, [user]);
  /** The user's own record, and what it embeds as they see it (their groups' `_group_fields` too). */
  /** `fields`: `_fields` of `/users/self`, of the fields the user reads of their own record. */
  const own = (request: FastifyRequest, user: Rec, fields?: readonly string[]) => {
    const groups = groupsOf(user).sort();
    // An admin sees every field, their own `_hidden_fields` too, as their GET of their own URL shows them.
    const admin = groups.includes('admin');
    return serialize({
      baseUrl: `${requestOrigin(request)}${ctx.basePath}`,
      requestUrl: requestUrl(request),
      visible: (m) => fieldsFor(m, admin ? 'admin' : m.name === model.name ? 'self' : 'member', ctx.db.models, groups),
      models: ctx.db.models,
      fields,
    }).object(model, user);
  };

  api.post(
    '/auth/register',
    { schema: { querystring: noQuery, body: ctx.spec.registerBody, response: { 201: ctx.spec.userResponse } } },
    async (request, reply) => {
      refuseCrossSite(ctx, request);
      // An invite-only service (auth.registration = false): users are made by admins, or by scripts.
      if (!ctx.config.registration)
        throw new HttpError(403, 'registration is closed: an admin makes the accounts of this service');
      const body = checkRegistration(model, { ...(request.body as Rec) }, reserved, ctx.db.models);
      const fields = Object.keys(body);
      const token = ctx.spec.apiKey ? newToken() : null;
      let user: Rec = {};
      const response = await inTransaction(
        ctx.db,
        eventRun(ctx, request, 'register'),
        body,
        (data) => prepareWrite(model, withDefaults(model, data), clientOf(request)),
        async (db, data) => {
          // Linking objects moves their links: a new user may link only what anyone may change, and
          // learns nothing of which hidden objects exist.
          await refuseUnknownLinks(policy, request, db, model, data, fields);
          const refused = await refusedRelinks(policy, request, db, { model, object: undefined, data, fields });
          if (refused.length) throw relinkRefusal(403, `a new user cannot ${refusedActs(refused)}`, refused);
          const unkeyed = missingKey(model, data);
          if (unkeyed.length) throw badRequest(fieldsRefused(unkeyed), unkeyed);
          if (typeof data['username'] === 'string') await claimLoginName(ctx, db, data['username'], undefined);
          user = await withMovedLinks(
            db,
            model,
            undefined,
            data,
            async () => {
              // Registering logs the user in: their last login is now, as a login's would be.
              const stamped = model.field('last_login')?.writable
                ? { ...data, last_login: formatTimestamp(new Date(ctx.now())) }
                : data;
              const created = await users(ctx, db).create({ data: stamped, include: includeFor(model, db.models) });
              await db.appendEvents([newEvent(db.models, model, 'register', created)]);
              return created;
            },
            { request, events: ctx.serviceEvents },
          );
          if (token) await saveToken(ctx, db, user, token);
          await hideRefused(request, user, db);
          return user;
        },
        (created) => own(request, created),
      );
      await logIn(ctx, request, reply, user);
      trustDevice(ctx, request, reply, user);
      if (token) reply.header('www-authenticate', apiKeyHeader(String(user['username']), token));
      // Like every create: Location names the new user's URL (its _self), when the API serves
      // users at one.
      const self = model.selfPath(user);
      if (self !== null) reply.header('location', `${requestOrigin(request)}${ctx.basePath}${self}`);
      return reply.code(201).send(response);
    },
  );
  completeRoute(api, '/auth/register', ['POST']);

  if (ctx.spec.ticket) {
    api.post(
      '/auth/login',
      { schema: { querystring: REDIRECTS, body: LOGIN_BODY, response: { 200: ctx.spec.userResponse } } },
      async (request, reply) => {
        refuseCrossSite(ctx, request);
        const user = await checkPassword(ctx, request, prepareWrite);
        // Before-login handlers may still refuse (throw): `last_login` and the ticket come after them.
        const response = await withEvents(ctx.db, eventRun(ctx, request, 'login', user), async (db) => {
          const shown = await loggedIn(ctx, db, user);
          await hideRefused(asLoggedIn(ctx, request, user), shown, db);
          return own(request, shown);
        });
        await logIn(ctx, request, reply, user);
        trustDevice(ctx, request, reply, user);
        return response;
      },
    );
    completeRoute(api, '/auth/login', ['POST']);
    const logout = async (request: FastifyRequest, reply: FastifyReply) => {
      refuseCrossSite(ctx, request);
      const id = callerOf(request).id;
      const response = await withEvents(
        ctx.db,
        eventRun(ctx, request, 'logout', request.user ?? undefined),
        async (db) => {
          // Every ticket of the user, on every device, stops working.
          if (id !== null) await bumpEpoch(ctx, db, id);
          return statusBody(200, 'Logged out', requestUrl(request));
        },
      );
      clearTicket(ctx, request, reply);
      return response;
    };
    const loggedOut = { schema: { querystring: REDIRECTS, response: { 200: statusAnswer } }, config: NO_BODY };
    api.get('/auth/logout', loggedOut, logout);
    api.post('/auth/logout', loggedOut, logout);
    completeRoute(api, '/auth/logout', ['GET', 'POST']);
  }

  if (ctx.spec.apiKey) {
    // Tokens are stored as digests, so a token cannot be shown twice: both routes issue a new one.
    const claim = (message: string) => async (request: FastifyRequest, reply: FastifyReply) => {
      const user = await checkPassword(ctx, request, prepareWrite);
      const token = newToken();
      await ctx.db.transaction((db) => saveToken(ctx, db, user, token));
      trustDevice(ctx, request, reply, user);
      reply.header('www-authenticate', apiKeyHeader(String(user['username']), token));
      return { ...statusBody(200, message, requestUrl(request)), token };
    };
    const claimed = { schema: { querystring: noQuery, body: LOGIN_BODY, response: { 200: tokenAnswer } } };
    api.post('/auth/token', claimed, claim('Token claimed'));
    api.post('/auth/reset_token', claimed, claim('Token reset'));
    completeRoute(api, '/auth/token', ['POST']);
    completeRoute(api, '/auth/reset_token', ['POST']);
  }

  if (!ctx.spec.userRouteIsSelf) {
    api.get(
      '/users/self',
      { schema: { querystring: itemQuery, response: { 200: ctx.spec.userResponse } } },
      async (request) => {
        if (!request.user) throw new HttpError(401, 'log in to see yourself');
        // As the user's own URL takes it, of the fields they read of their own record.
        const self = fieldsFor(model, 'self', ctx.db.models, groupsOf(request.user).sort());
        const fields = parseItemFields(model, request.query as Record<string, string>, self);
        // Read with its links, as the user's own URL reads it (`request.user` has none).
        const key = request.user[model.primaryKey];
        const user =
          (await users(ctx).findUnique({
            where: { [model.primaryKey]: key },
            include: includeFor(model, ctx.db.models),
          })) ?? request.user;
        await hideRefused(request, user);
        return own(request, user, fields);
      },
    );
    completeRoute(api, '/users/self', ['GET']);
  }
}

/**
 * What a new user may say about themselves: no groups, no hidden, generated or read-only fields,
 * and no key that an x-ACL grants to by name (`reserved`: acl.ts `namedUsers`).
 */
function checkRegistration(model: Model, body: Rec, reserved: ReadonlySet<string>, models: ModelRegistry): Rec {
  const own = fieldsFor(model, 'self', models);
  const refused = Object.keys(body).filter((name) => {
    const field = model.field(name);
    return (
      name === 'groups' ||
      !field ||
      field.generated ||
      isReadOnly(model, name) ||
      (!field.secret && own !== null && !own.has(name))
    );
  });
  if (refused.length) {
    throw new HttpError(
      403,
      `a new user cannot set ${refused.join(', ')}`,
      refused.map((field) => ({
        field,
        message: fieldRefusal(model, field, true, true, 'cannot be set here'),
      })),
    );
  }
  // Its links too are written by their relationships, which refuseUnknownLinks and refusedRelinks check.
  const unwritable = [
    ...inexactDecimals(model, body),
    ...oversizedIndexedText(model, body),
    ...foreignKeysNamed(model, body),
    ...unnamableKey(model, body),
  ];
  if (unwritable.length) throw badRequest(fieldsRefused(unwritable), unwritable);
  refuseReserved(body[model.primaryKey], reserved, model.primaryKey);
  return body;
}

/**
 * The user whose login and password the body gives, or 401 with one message for an unknown user
 * and a wrong password alike (and the same work: an unknown user's password is hashed too).
 */
async function checkPassword(ctx: AuthContext, request: FastifyRequest, prepareWrite: PrepareWrite): Promise<Rec> {
  const { login, password } = request.body as { login: string; password: string };
  const name = loginForm(login);
  const user = await findByLogin(ctx, name, login);
  // Counted per login as written, and per account, whichever of its logins the guess names
  // (auth/throttle.ts): past the account's checks, the password is not checked, with the same work.
  const written = `login:${name}`;
  const account = user ? `user:${userKeyOf(ctx, user)}` : written;
  const guesser = guesserOf(ctx, request, user);
  const checks = await ctx.throttle.attempt(account, written, guesser);
  const stored = checks ? (user?.['password'] as string | undefined) : undefined;
  const { ok, rehash } = await ctx.hasher.verify(stored, password, hashingClient(guesser));
  if (!user || !ok) throw new HttpError(401, 'wrong login or password');
  await ctx.throttle.succeeded(account, written, guesser);
  if (!rehash) return user;
  // The hashing parameters were raised since this hash was made: store a stronger one.
  const model = userModel(ctx);
  const data = await prepareWrite(model, { password }, guesser.address);
  return users(ctx).update({ where: { [model.primaryKey]: user[model.primaryKey] }, data });
}

/**
 * The user as the login answers it: with its relationships, as register and `/users/self` show
 * it, and with `last_login` set to now when the user model has that field (Ramses' did).
 */
async function loggedIn(ctx: AuthContext, db: AuthContext['db'], user: Rec): Promise<Rec> {
  const model = userModel(ctx);
  const where = { [model.primaryKey]: user[model.primaryKey] };
  const include = includeFor(model, ctx.db.models);
  if (model.field('last_login')?.writable) {
    const now = formatTimestamp(new Date(ctx.now()));
    return users(ctx, db).update({ where, data: { last_login: now }, include });
  }
  return (await users(ctx, db).findUnique({ where, include })) ?? user;
}

/**
 * The user a login names: by its one form, or as written (a user stored before names had one
 * form). One read either way, whoever it finds: a second read only when the first found no one
 * timed which logins name accounts.
 */
async function findByLogin(ctx: AuthContext, normalized: string, written: string): Promise<Rec | null> {
  const field = normalized.includes('@') ? 'email' : 'username';
  if (written === normalized) return users(ctx).findFirst({ where: { [field]: normalized } });
  const found = await users(ctx).findMany({ where: { [field]: { in: [normalized, written] } }, take: 2 });
  return found.find((user) => user[field] === normalized) ?? found[0] ?? null;
}

function refuseCrossSite(ctx: AuthContext, request: FastifyRequest): void {
  if (crossSite(ctx, request)) throw new HttpError(403, 'log in and out from this site only (cross-site request)');
}

/** Raises the user's session epoch: every ticket issued before is worthless. */
async function bumpEpoch(ctx: AuthContext, db: AuthContext['db'], userKey: string): Promise<void> {
  const change = async (tx: AuthContext['db']) => {
    await credentials(ctx, tx).lockForUpdate(userKey);
    await changeCredential(ctx, tx, userKey, (current) => ({
      session_epoch: Number(current?.['session_epoch'] ?? 0) + 1,
    }));
  };
  // Inside the logout handlers' transaction when there is one.
  await (db === ctx.db ? ctx.db.transaction(change) : change(db));
}

function eventRun(ctx: AuthContext, request: FastifyRequest, action: Action, instance?: Rec): EventRun {
  return { model: userModel(ctx), events: ctx.events, action, request, ...(instance ? { instance } : {}) };
}

async function saveToken(ctx: AuthContext, db: AuthContext['db'], user: Rec, token: string): Promise<void> {
  const digest = tokenDigest(token, fingerprint(user['password']));
  await changeCredential(ctx, db, userKeyOf(ctx, user), () => ({ token_digest: digest }));
}

/** Writes `change(current)` into the user's credential row, creating the row when there is none. */
async function changeCredential(
  ctx: AuthContext,
  db: AuthContext['db'],
  userKey: string,
  change: (current: Rec | null) => Rec,
): Promise<void> {
  const repository = credentials(ctx, db);
  const current = await repository.findUnique({ where: { user_key: userKey } });
  const data = change(current);
  if (current) await repository.update({ where: { user_key: userKey }, data });
  else await repository.create({ data: { user_key: userKey, session_epoch: 0, token_digest: null, ...data } });
}
