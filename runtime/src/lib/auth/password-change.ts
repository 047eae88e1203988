/**
 * A user who changes their own password proves they know the current one (`current_password` in
 * the body of the PATCH or PUT of their record), so that a session someone else took over (a
 * stolen cookie or token) cannot change the password and lock its owner out (OWASP ASVS 2.1.6).
 * Admins change other users' passwords without it; `auth.require_current_password = false` turns
 * the rule off (Ramses asked for nothing).
 *
 * A body that sends the password unchanged (a PUT of the whole record must send it) needs no
 * proof: the stored hash is kept, and with it every session. Each check of a password here is a
 * guess, counted by the login brake (throttle.ts) as one at that account, from that address and from
 * the account's own sessions.
 */
import type { FastifyRequest } from 'fastify';
import { badRequest, HttpError } from '../errors.js';
import type { Model } from '../model.js';
import { userModel, type AuthContext } from './context.js';
import { callerOf, guesserOf, isAdmin, provedPassword } from './identity.js';
import { hashingClient } from './throttle.js';

type Rec = Record<string, unknown>;

/** The body field that carries the current password. */
export const CURRENT_PASSWORD = 'current_password';

/**
 * The body to write: without `current_password`, and without the password when it is the stored
 * one. Throws 403 when the caller changes their own password without proving the current one.
 */
export async function provePasswordChange(
  ctx: AuthContext,
  request: FastifyRequest,
  model: Model,
  body: Rec,
  object: Rec | undefined,
): Promise<Rec> {
  const { [CURRENT_PASSWORD]: current, ...rest } = body;
  const users = userModel(ctx);
  if (model.name !== users.name) return rest;
  if (current !== undefined && typeof current !== 'string')
    throw badRequest(`${CURRENT_PASSWORD} must be a string`, [
      { field: CURRENT_PASSWORD, message: 'must be a string' },
    ]);
  const secrets = model.fields.filter((f) => f.secret && typeof rest[f.name] === 'string').map((f) => f.name);
  const caller = callerOf(request);
  const own = object !== undefined && caller.id !== null && caller.id === String(object[model.primaryKey]);
  if (secrets.length === 0 || (isAdmin(caller) && !own)) return rest;
  // No proof asked for: a password sent as it is stored still changes nothing (its sessions stay, as
  // the README says of a PUT; a re-hash of it ended every one of them).
  if (!ctx.config.requireCurrentPassword) return own ? withoutUnchanged(ctx, rest, secrets, object) : rest;
  // A change of many objects that writes a password: there is no one object to prove it for.
  if (object === undefined)
    throw new HttpError(403, 'change your password with a PATCH of your own record, with current_password', [
      { field: secrets[0]!, message: 'cannot be changed for many users at once' },
    ]);
  // Another's record: the policy decides whether the caller may write it at all (checkWritable).
  if (!own) return rest;
  // The account's own count, which logins share, and its sessions' across addresses: a stolen
  // session guesses no more in a day than strangers do together.
  const account = `user:${caller.id}`;
  const guesser = guesserOf(ctx, request, object);
  const check = async (password: string, field: string): Promise<boolean> => {
    // Past the account's guesses, the password is not checked: answered as a wrong one.
    const allowed = await ctx.throttle.attempt(account, account, guesser);
    const stored = object[field];
    const { ok } = await ctx.hasher.verify(
      typeof stored === 'string' ? stored : null,
      password,
      hashingClient(guesser),
    );
    if (allowed && ok) await ctx.throttle.succeeded(account, account, guesser);
    return allowed && ok;
  };
  if (current !== undefined) {
    if (await check(current, secrets[0]!)) {
      provedPassword(request, caller.id);
      return rest;
    }
    throw new HttpError(403, `${CURRENT_PASSWORD} is not your password`, [
      { field: CURRENT_PASSWORD, message: 'is not your current password' },
    ]);
  }
  // The password sent as it is stored (a PUT of the whole record): nothing changes, no proof needed.
  const unchanged: string[] = [];
  for (const field of secrets) if (await check(rest[field] as string, field)) unchanged.push(field);
  if (unchanged.length === secrets.length)
    return Object.fromEntries(Object.entries(rest).filter(([k]) => !unchanged.includes(k)));
  throw new HttpError(403, `to change your password, send the current one as ${CURRENT_PASSWORD} in a PATCH`, [
    { field: CURRENT_PASSWORD, message: 'is required to change your password' },
  ]);
}

/** `body` without the secrets it sends as `object` stores them (checked against their hashes). */
async function withoutUnchanged(
  ctx: AuthContext,
  body: Rec,
  secrets: readonly string[],
  object: Rec | undefined,
): Promise<Rec> {
  const out = { ...body };
  for (const field of secrets) {
    const stored = object?.[field];
    if (typeof stored !== 'string') continue;
    const { ok } = await ctx.hasher.verify(stored, body[field] as string);
    if (ok) delete out[field];
  }
  return out;
}
