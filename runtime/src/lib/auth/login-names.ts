/**
 * Usernames that pass for one another (`joé`, or Cyrillic `јое`, beside `joe`) are refused in
 * either order, however close together the two writes come. Each username claims its plain form
 * (`passesFor`: accents left out, lookalike letters read as Latin; a plain name is its own) in the
 * AuthLoginName model, keyed by that form, in the transaction of the write that sets it: a later
 * claim of the form finds the first, and two at the same moment meet on the key.
 *
 * A claim is never removed. One whose username no user has any more (renamed or deleted, by a
 * route, a handler or a cascade) is free for another name that passes for it: the next claimant
 * takes it over. The name itself is not: objects may still name it (a message's `recipient` that
 * an x-ACL reads as `user(object.recipient)`), and a member who registered a deleted user's name
 * was given that user's messages. Only an admin, who knows whose it was, gives it to an account
 * again (`mayRetake`: the admin's writes, and the system user that settings name). Usernames written by
 * other code (`event.db.user.create`, a script) claim nothing; the name itself in plain form is
 * still found (a new `joé` beside a `joe` that never claimed).
 */
import { badRequest, HttpError } from '../errors.js';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { ConstraintViolation } from '../repository.js';
import { text } from '../text.js';
import { userModel, users, type AuthContext } from './context.js';
import { namedUsers, type Acl } from './acl.js';
import { loginForm, passesFor } from './logins.js';

/** The claim that says every user has claimed their name (start-up's `claimExistingNames` ran). */
const ALL_CLAIMED = '';
/** Users read per step when the names of a database made before claims are claimed. */
const PAGE = 500;

/** The plain form a username (in its login form) claims. */
export function plainName(username: string): string {
  return passesFor(username) ?? username;
}

/** The names the x-ACLs grant to (acl.ts `namedUsers`), in their plain forms: a lookalike of one is reserved with it. */
export function reservedNames(acls: Readonly<Record<string, Acl>>): ReadonlySet<string> {
  return new Set([...namedUsers(acls)].map(plainName));
}

/**
 * A 400 when `key`, a new user's key (its `field`), is a name the x-ACLs grant to, or passes for one
 * (`éditor` would claim `editor`, and the admin could then not make that user). A number is compared as its text.
 */
export function refuseReserved(key: unknown, reserved: ReadonlySet<string>, field: string): void {
  if ((typeof key !== 'string' && typeof key !== 'number') || !reserved.has(plainName(loginForm(String(key))))) return;
  throw badRequest(`"${String(key)}" cannot be registered: the API reserves that name`, [
    { field, message: 'is reserved' },
  ]);
}

/**
 * In the write's transaction (`db`), before it stores `username` for the user whose key is `key`
 * (undefined: a new user): a 409 when it passes for another user's name, else the claim is theirs.
 */
export async function claimLoginName(
  ctx: AuthContext,
  db: ServiceDatabase,
  username: string,
  key: unknown,
  { mayRetake = false }: { readonly mayRetake?: boolean } = {},
): Promise<void> {
  const plain = plainName(username);
  const names = loginNames(ctx, db);
  // The claim, where there is one, is this write's until it commits (PostgreSQL): a write that would
  // take over the same stale claim at the same moment (its user deleted) waits, then finds this
  // one's user. Where there is none, the claims' key settles it.
  await names.lockForUpdate(plain);
  const claim = await names.findUnique({ where: { plain_name: plain } });
  // The name itself: claimed as it is, and a second user of it is the unique username's 409; a name
  // no user has any more is an earlier account's, which objects may still name.
  if (claim && claim['username'] === username) {
    if (mayRetake || (await holderOf(ctx, db, username)) !== undefined) return;
    throw retired(username);
  }
  const holder = claim ? await holderOf(ctx, db, String(claim['username'])) : undefined;
  // A plain name written without a claim (before claims were kept, or by code that makes none).
  const plainHolder = holder ?? (plain !== username ? await holderOf(ctx, db, plain) : undefined);
  if (plainHolder !== undefined && (key === undefined || plainHolder !== text(key))) {
    // A user who has the name already keeps it (of two old names that pass for each other, the one
    // without the claim): a write that leaves it as it is changes nothing of who passes for whom.
    if (key !== undefined && (await holderOf(ctx, db, username)) === text(key)) return;
    throw lookalike(plain);
  }
  if (claim) await names.update({ where: { plain_name: plain }, data: { username } });
  // Another write that claimed the form since the read above (PostgreSQL: it committed) wins. Its
  // name cannot be read here (the failed insert ended PostgreSQL's transaction): a plain name is
  // most often the same name sent twice at once (a form submitted twice), the unique username's 409.
  else if (!(await created(names, plain, username)))
    throw plain === username
      ? new ConstraintViolation('unique', ['username'], `the username ${username} is claimed by another write`)
      : lookalike(plain);
}

/** Creates the claim; false when the form is claimed already (its key is taken). */
async function created(names: EngineRepository, plain: string, username: string): Promise<boolean> {
  try {
    await names.create({ data: { plain_name: plain, username } });
    return true;
  } catch (error) {
    if (error instanceof ConstraintViolation && error.kind === 'unique') return false;
    throw error;
  }
}

/**
 * At start-up, once per database: the users stored before names were claimed claim theirs, in key
 * order (of two names that pass for each other, the first in key order keeps the claim; both stay). Another
 * instance doing the same at the same moment is no harm: a claim made twice is made once.
 */
export async function claimExistingNames(ctx: AuthContext): Promise<void> {
  const names = loginNames(ctx, ctx.db);
  if (await names.findUnique({ where: { plain_name: ALL_CLAIMED } })) return;
  const key = userModel(ctx).primaryKey;
  for (let after: unknown = undefined; ;) {
    const page = await users(ctx).findMany({
      ...(after === undefined ? {} : { where: { [key]: { gt: after } } }),
      orderBy: { [key]: 'asc' },
      take: PAGE,
      select: { [key]: true, username: true },
    });
    for (const user of page)
      if (typeof user['username'] === 'string') await claimOnce(names, plainName(user['username']), user['username']);
    if (page.length < PAGE) break;
    after = page[page.length - 1]![key];
  }
  await claimOnce(names, ALL_CLAIMED, ALL_CLAIMED);
}

async function claimOnce(names: EngineRepository, plain: string, username: string): Promise<void> {
  if (!(await names.findUnique({ where: { plain_name: plain } }))) await created(names, plain, username);
}

/** The key (as text) of the user named `username`; undefined when no user is. */
async function holderOf(ctx: AuthContext, db: ServiceDatabase, username: string): Promise<string | undefined> {
  const key = userModel(ctx).primaryKey;
  const user = await users(ctx, db).findFirst({ where: { username }, select: { [key]: true } });
  return user ? text(user[key]) : undefined;
}

function loginNames(ctx: AuthContext, db: ServiceDatabase): EngineRepository {
  return db.repository(ctx.spec.loginNameModel.name);
}

function retired(username: string): HttpError {
  const message = 'was the name of an account that was deleted or renamed, which objects may still name';
  return new HttpError(
    409,
    `username "${username}" ${message}: choose another (only an admin gives it to an account again)`,
    [{ field: 'username', message }],
  );
}

function lookalike(plain: string): HttpError {
  const message = `passes for "${plain}", as the name of an existing user does`;
  return new HttpError(409, `username ${message}: choose another`, [{ field: 'username', message }]);
}
