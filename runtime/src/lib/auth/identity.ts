/**
 * Who is calling: the user of a valid `Authorization: ApiKey user:token` header, or of a valid
 * login cookie; anyone else is anonymous. Groups are read from the user on every request, so
 * removing a user from `admin` takes effect at once (on SQLite a request may be answered from
 * the last identification while the user and credential tables are unchanged since:
 * unchanged-reads.ts). A cookie-authenticated request that changes something must come from the
 * service's own site (CSRF).
 */
import { hash, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';
import { allowedOrigin } from '../http/cors.js';
import { requestOrigin } from '../http/serialize.js';
import { ANONYMOUS, type Caller } from './acl.js';
import { credentials, userKeyOf, userModel, users, type AuthContext } from './context.js';
import { readApiKeyHeader, sameDigest, tokenDigest } from './tokens.js';
import { loginForm } from './logins.js';
import { fingerprint, issueTicket, verifyTicket } from './ticket.js';
import { DEVICE_SECONDS, deviceTags, issueDevice, trustedDevice, type Vouched } from './device.js';
import type { Guesser } from './throttle.js';
import { clientOf } from '../http/client-address.js';

type Rec = Record<string, unknown>;

interface Identity extends Caller {
  /** How the caller proved who they are. */
  readonly via: 'cookie' | 'apikey' | null;
}

const IDENTITY = Symbol('svcgen.identity');
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function callerOf(request: FastifyRequest): Caller {
  return (request as unknown as { [IDENTITY]?: Identity })[IDENTITY] ?? ANONYMOUS;
}

export function isAdmin(caller: Caller): boolean {
  return caller.id !== null && caller.groups.has('admin');
}

/**
 * Runs before every route: sets `request.user` and the caller's principals. An `Authorization:
 * ApiKey …` header that identifies no one is a 401, whatever else the request carries (a login
 * cookie, a route anyone may read): a client whose key was mistyped or revoked is told so, not
 * served as someone else or as nobody. (A stale cookie is not: browsers keep sending those.)
 */
export async function identify(ctx: AuthContext, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const byKey = await byApiKey(ctx, request);
  if (byKey === NO_ONE)
    throw new HttpError(
      401,
      'the API key identifies no one: a wrong, revoked or malformed Authorization: ApiKey header',
      undefined,
      { 'www-authenticate': 'ApiKey' },
    );
  const found = byKey ?? (await byTicket(ctx, request, reply));
  if (!found) return;
  remember(ctx, request, found.user, found.via);
  if (found.via === 'cookie' && !SAFE_METHODS.has(request.method) && crossSite(ctx, request)) {
    throw new HttpError(403, 'cross-site requests cannot change anything with a login cookie');
  }
}

/**
 * Identifies a long-lived request (the change feed) again before it is sent more: the same
 * credentials, read again. False when they no longer identify whom they did (a logout, a new
 * password, a deleted user, a revoked key, an expired ticket): that request must end. Otherwise
 * the caller is as they are now (their groups, their record).
 */
export async function stillIdentified(
  ctx: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const before = callerOf(request).id;
  delete (request as unknown as { [IDENTITY]?: Identity })[IDENTITY];
  request.user = null;
  try {
    await identify(ctx, request, reply);
  } catch {
    return false;
  }
  return callerOf(request).id === before;
}

/**
 * The request as `user` makes it, before the login that names them is done (its ticket is set
 * after the handlers): what the login answers is what they read of themselves. Judged as the
 * anonymous caller the request still was, a cookie-less login showed none of the user's own links.
 */
export function asLoggedIn(ctx: AuthContext, request: FastifyRequest, user: Record<string, unknown>): FastifyRequest {
  const judged = Object.create(request) as FastifyRequest;
  remember(ctx, judged, user, 'cookie');
  return judged;
}

/**
 * A key no user has: U+FFFF is no character (no name may have one: logins.ts), and the rest is
 * random. Not a NUL, which PostgreSQL refuses in any text: a principal that read by the caller's
 * key stopped the change feed's replay there.
 */
const NO_KEY = `\uffffnewcomer-${randomUUID()}`;

/**
 * The caller as they are judged for what happened before their account existed: with their
 * groups, but with a key no object names. A key reused from a deleted user (register `bob`
 * again) otherwise makes the old user's record, and the objects that were theirs, look like the
 * caller's own.
 */
export function asNewcomer(ctx: AuthContext, request: FastifyRequest): FastifyRequest {
  const caller = (request as unknown as { [IDENTITY]?: Identity })[IDENTITY];
  if (!caller) return request;
  const judged = Object.create(request) as FastifyRequest;
  judged.user = request.user ? { ...request.user, [userModel(ctx).primaryKey]: NO_KEY } : null;
  (judged as unknown as { [IDENTITY]: Identity })[IDENTITY] = { ...caller, id: NO_KEY };
  return judged;
}

export function remember(
  ctx: AuthContext,
  request: FastifyRequest,
  user: Record<string, unknown>,
  via: Identity['via'],
): void {
  // The caller without their password's hash (models/<user>.ts `SignedIn…`): user code that
  // echoes `request.user` shows no hash, and nothing after identification needs it.
  const { password: _hash, ...caller } = user;
  request.user = caller;
  (request as unknown as { [IDENTITY]?: Identity })[IDENTITY] = {
    id: userKeyOf(ctx, user),
    groups: new Set(groupsOf(user)),
    via,
  };
}

/**
 * A request from another origin that is not a CORS origin allowed to send credentials:
 * `Sec-Fetch-Site: cross-site`, or `same-site` (a sibling subdomain: on a shared domain, someone
 * else's pages, and the browser sends this site's cookie from them), or (older browsers) an
 * `Origin` that is not this service's.
 */
export function crossSite(ctx: AuthContext, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  const cors = ctx.config.cors;
  const trusted = origin !== undefined && cors.enable && cors.allowCredentials && allowedOrigin(origin, cors);
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return (site === 'cross-site' || site === 'same-site') && !trusted;
  return origin !== undefined && origin !== requestOrigin(request) && !trusted;
}

/** An `ApiKey` header that names no user with that token. */
const NO_ONE = Symbol('svcgen.noOne');

/** Who an `ApiKey` header names; undefined without one (another scheme's header is none). */
async function byApiKey(ctx: AuthContext, request: FastifyRequest) {
  if (!ctx.spec.apiKey) return undefined;
  const header = request.headers.authorization;
  if (header === undefined || !/^\s*apikey\s/i.test(header)) return undefined;
  const key = readApiKeyHeader(header);
  if (!key) return NO_ONE;
  // Kept by a digest of the header, not the token itself.
  const found = await ctx.identities.read(
    () => `apikey:${hash('sha256', header, 'base64')}`,
    () => userOfApiKey(ctx, key),
  );
  return found ?? NO_ONE;
}

async function userOfApiKey(ctx: AuthContext, key: { user: string; token: string }) {
  // The name as a login reads it (`ALICE` is alice), else as written: a name stored before
  // usernames had one form (`Alice`, beside a newer `alice`), whose token is hers alone.
  const normalized = loginForm(key.user);
  const byName = async (username: string) => {
    const found = await userWithCredential(ctx, { username });
    return found && holdsToken(found.user, found.credential, key.token) ? found.user : undefined;
  };
  const user = (await byName(normalized)) ?? (normalized !== key.user ? await byName(key.user) : undefined);
  return user ? { user, via: 'apikey' as const } : undefined;
}

/** Whether `token` is the one the credential keeps a digest of (bound to the user's password). */
function holdsToken(user: Rec, credential: Rec | null, token: string): boolean {
  const stored = credential?.['token_digest'];
  return typeof stored === 'string' && sameDigest(stored, tokenDigest(token, fingerprint(user['password'])));
}

async function byTicket(ctx: AuthContext, request: FastifyRequest, reply: FastifyReply) {
  const ticket = ctx.spec.ticket;
  const value = ticket && ctx.keys ? request.cookies[cookieName(ctx, ticket)] : undefined;
  if (!value || !ctx.keys) return undefined;
  const verified = verifyTicket(ctx.keys, value);
  const now = Math.floor(ctx.now() / 1000);
  // A ticket from the future (beyond a minute of clock skew) is as bad as an old one.
  if (!verified || verified.issuedAt > now + 60 || now - verified.issuedAt > ctx.config.authTimeout) return undefined;
  const found = await ctx.identities.read(
    () => `user:${verified.userKey}`,
    () => userAndEpoch(ctx, verified.userKey),
  );
  if (!found) return undefined;
  const { user, epoch } = found;
  if (fingerprint(user['password']) !== verified.fingerprint || epoch !== verified.epoch) return undefined;
  if (verified.oldKey || now - verified.issuedAt >= ctx.config.authReissueTime) {
    setTicket(ctx, request, reply, user, verified.epoch);
  }
  return { user, via: 'cookie' as const };
}

/** The user a ticket names, and their session epoch (which a logout everywhere moves on). */
async function userAndEpoch(ctx: AuthContext, userKey: string) {
  const key = users(ctx).keyValue(userKey);
  const found = key === undefined ? undefined : await userWithCredential(ctx, { [userModel(ctx).primaryKey]: key });
  return found && { user: found.user, epoch: epochOf(found.credential) };
}

/**
 * The user `where` selects and their credential (null: none). In one statement where the engine
 * can (SQL: a round trip fewer on PostgreSQL, and both rows as of one moment), else one read
 * after the other.
 */
async function userWithCredential(
  ctx: AuthContext,
  where: Record<string, unknown>,
): Promise<{ user: Record<string, unknown>; credential: Record<string, unknown> | null } | undefined> {
  const repository = users(ctx);
  const together = await repository.findFirstWithLinked?.(where, credentials(ctx), 'user_key');
  if (together !== undefined)
    return together === null ? undefined : { user: together.found, credential: together.linked };
  const user = await repository.findFirst({ where });
  if (!user) return undefined;
  return { user, credential: await credentialOf(ctx, userKeyOf(ctx, user)) };
}

function credentialOf(ctx: AuthContext, userKey: string): Promise<Record<string, unknown> | null> {
  return credentials(ctx).findUnique({ where: { user_key: userKey } });
}

function epochOf(credential: Record<string, unknown> | null | undefined): number {
  return Number(credential?.['session_epoch'] ?? 0);
}

/** Logs `user` in for this request and the next ones: sets the cookie and the caller. */
export async function logIn(
  ctx: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: Record<string, unknown>,
): Promise<void> {
  setTicket(ctx, request, reply, user, await sessionEpoch(ctx, userKeyOf(ctx, user)));
  remember(ctx, request, user, 'cookie');
}

export async function sessionEpoch(ctx: AuthContext, userKey: string): Promise<number> {
  return epochOf(await credentialOf(ctx, userKey));
}

/** Sets a fresh login cookie for `user`. */
export function setTicket(
  ctx: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  user: Record<string, unknown>,
  epoch: number,
): void {
  const ticket = ctx.spec.ticket;
  if (!ticket || !ctx.keys) return;
  const value = issueTicket(ctx.keys, {
    userKey: userKeyOf(ctx, user),
    issuedAt: Math.floor(ctx.now() / 1000),
    epoch,
    fingerprint: fingerprint(user['password']),
  });
  reply.setCookie(cookieName(ctx, ticket), value, {
    ...cookieOptions(ctx, request, ticket),
    maxAge: ctx.config.authTimeout,
  });
}

/**
 * Who guesses at `user`'s password, as the login brake counts them (throttle.ts): a session of
 * theirs, a device they logged in from (its device cookie), else a stranger; from the request's
 * client address. `user` is null for a login that names no one.
 */
export function guesserOf(ctx: AuthContext, request: FastifyRequest, user: Rec | null): Guesser {
  const address = clientOf(request);
  if (user === null) return { address, device: null };
  const userKey = userKeyOf(ctx, user);
  // A device of its own before a session: another session of the account (a stolen one) that used
  // the sessions' count up does not lock the owner's device out.
  const device = deviceOf(ctx, request, user, userKey);
  if (device) return { address, device: `cookie:${device}` };
  return { address, device: callerOf(request).id === userKey ? 'session' : null };
}

/** The id of the device cookie of `user`'s that the request carries, when one is valid. */
function deviceOf(ctx: AuthContext, request: FastifyRequest, user: Rec, userKey: string): string | null {
  const ticket = ctx.spec.ticket;
  if (!ticket || !ctx.deviceKeys) return null;
  const account = vouched(user, userKey);
  const now = Math.floor(ctx.now() / 1000);
  for (const tag of deviceTags(ctx.deviceKeys, userKey)) {
    const device = trustedDevice(ctx.deviceKeys, request.cookies[deviceCookieName(ctx, ticket, tag)], account, now);
    if (device) return device;
  }
  return null;
}

/** Remembers that this device logged in to `user`: a device cookie of theirs, when the API has tickets. */
export function trustDevice(ctx: AuthContext, request: FastifyRequest, reply: FastifyReply, user: Rec): void {
  const ticket = ctx.spec.ticket;
  if (!ticket || !ctx.deviceKeys) return;
  const userKey = userKeyOf(ctx, user);
  const value = issueDevice(ctx.deviceKeys, vouched(user, userKey), Math.floor(ctx.now() / 1000));
  reply.setCookie(deviceCookieName(ctx, ticket, deviceTags(ctx.deviceKeys, userKey)[0]!), value, {
    ...cookieOptions(ctx, request, ticket),
    httpOnly: true,
    maxAge: DEVICE_SECONDS,
  });
}

/** What a device cookie of `user`'s vouches for: their key, and their password as it is now. */
function vouched(user: Rec, userKey: string): Vouched {
  return { userKey, fingerprint: fingerprint(user['password']) };
}

export function clearTicket(ctx: AuthContext, request: FastifyRequest, reply: FastifyReply): void {
  const ticket = ctx.spec.ticket;
  if (!ticket) return;
  reply.setCookie(cookieName(ctx, ticket), '', {
    ...cookieOptions(ctx, request, ticket),
    maxAge: 0,
    expires: new Date(0),
  });
}

/**
 * Host-only, HttpOnly unless the RAML says otherwise, SameSite=Lax, Secure over HTTPS, and always
 * with the `__Host-` prefix (which browsers keep only when Secure, host-only, Path=/).
 */
function cookieOptions(ctx: AuthContext, request: FastifyRequest, ticket: { readonly httpOnly: boolean }) {
  const secure = ctx.config.authCookieHostPrefix || request.protocol === 'https';
  return { path: '/', httpOnly: ticket.httpOnly, sameSite: 'lax', secure } as const;
}

/** The ticket cookie's name: the RAML's, with `__Host-` before it when auth.cookie_host_prefix says so. */
function cookieName(ctx: AuthContext, ticket: { readonly cookieName: string }): string {
  return ctx.config.authCookieHostPrefix ? `__Host-${ticket.cookieName}` : ticket.cookieName;
}

const PROVED = Symbol('svcgen.provedPassword');

/**
 * Marks a request whose caller proved their password to change it: its answer carries a device
 * cookie for the new password (`renewDevice`). The change revokes every device cookie of the
 * account, and ends its sessions; without a new one, the owner who changed it while strangers had
 * used their count up could log in again from nowhere until the count's window ended.
 */
export function provedPassword(request: FastifyRequest, userKey: string): void {
  (request as unknown as { [PROVED]?: string })[PROVED] = userKey;
}

/** The account whose password the request proved to change it (`provedPassword`), if any. */
export function provedBy(request: FastifyRequest): string | undefined {
  return (request as unknown as { [PROVED]?: string })[PROVED];
}

/** Before a successful answer of a request `provedPassword` marked: the device cookie of the account as it is now. */
export async function renewDevice(
  ctx: AuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userKey: string,
): Promise<void> {
  if (reply.statusCode >= 300) return;
  const key = users(ctx).keyValue(userKey);
  const user = key === undefined ? null : await users(ctx).findUnique({ where: { [userModel(ctx).primaryKey]: key } });
  if (user) trustDevice(ctx, request, reply, user);
}

/** A device cookie's: the ticket cookie's with `_device_` and the account's tag after it (device.ts `deviceTags`). */
function deviceCookieName(ctx: AuthContext, ticket: { readonly cookieName: string }, tag: string): string {
  return `${cookieName(ctx, ticket)}_device_${tag}`;
}

/**
 * A user's groups as the x-ACLs and `_group_fields` name them: lower-cased, as svcgen reads
 * `g:HR` (an admin who typed "HR" into a user's groups meant that group, not none).
 */
export function groupsOf(user: Record<string, unknown>): string[] {
  return Array.isArray(user['groups']) ? user['groups'].map((g) => String(g).toLowerCase()) : [];
}
