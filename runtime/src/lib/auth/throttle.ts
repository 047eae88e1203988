/**
 * Brute-force brake for logins. A guess is counted when it starts, before the password is
 * checked, by an atomic upsert of its row (`countInWindows`): a burst of parallel guesses gets no
 * more through than guesses sent one by one. Each guess is counted twice:
 * - per client address (`auth.login_attempts` in `auth.login_window` seconds, 5 a minute);
 * - across addresses (`auth.account_attempts` in `auth.account_window`, 100 a day): every client
 *   that is a stranger to the account shares one count of it, so that guesses from many addresses
 *   get no further than that; a device the account logged in from (its device cookie, device.ts),
 *   or the account's own sessions together, have one of their own, so that strangers who use theirs
 *   up do not lock the owner out of the devices they use. A device is not counted per address: others
 *   behind its address (a NAT, an IPv6 /64) would lock it out. A login that names no account has no
 *   count across addresses: there is nothing to protect.
 *
 * Each count is kept twice, per login as written (normalized): past its limit, that login gets 429
 * with Retry-After; and per account, whichever of its logins (username, email) the guess names:
 * past its limit, the password is not checked, and the guess is answered as a wrong password (after
 * the same work). So two spellings of one account share its password checks, and yet a 429 depends
 * only on the login sent: it cannot tell that an email is a given username's (guesses at `ben`, then
 * one at `ben@…`, would otherwise be 429 exactly when the email is ben's). A successful login clears
 * its client's counts, and takes itself off the strangers' (only their failures count there).
 *
 * The counts live in the database (the AuthLoginFailure model), so every instance of the service
 * sees the same count and a restart forgets nothing. The address is `request.ip`: it follows
 * `http.trust_proxy`, so X-Forwarded-For from anyone but a trusted proxy changes nothing; an IPv6
 * address counts by its /64 network (http/client-address.ts).
 */
import { createHash } from 'node:crypto';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { HttpError } from '../errors.js';

type Rec = Record<string, unknown>;

/** So many guesses in so many milliseconds. */
export interface Budget {
  readonly limit: number;
  readonly windowMs: number;
}

const TOO_MANY = 'too many login attempts; try again later';
const TOO_MANY_STRANGERS =
  'too many login attempts from devices this account has not logged in from; try again later, or from a device you have logged in from';

/** Who guesses, as the brake counts them. */
export interface Guesser {
  /** The client's address (an IPv6 client's /64): http/client-address.ts `clientOf`. */
  readonly address: string;
  /** `cookie:<id>`: a device the account logged in from (device.ts); `session`: one of its own; null: a stranger. */
  readonly device: string | null;
}

/**
 * Whom the password-hashing queue (passwords.ts, fair-slots.ts) serves a guess as: a device the
 * account logged in from on its own, so that others behind its address who flood logins (a NAT)
 * do not keep it waiting or get it a 503; anyone else as their address.
 */
export function hashingClient(guesser: Guesser): string {
  return guesser.device?.startsWith('cookie:') ? guesser.device : guesser.address;
}

/** The count every stranger to an account shares. */
const STRANGERS = '\0strangers';

/** A count a guess is counted on, with its limit and what a 429 past it says (none: the account's). */
interface Count {
  readonly key: string;
  readonly budget: Budget;
  readonly refusal?: string;
  /** A count that only makes the work even (`attempt`): never read, so never past its limit. */
  readonly filler?: true;
}

/** Rows of windows long over deleted by one statement (`forgetOldWindows`). */
const PURGE_BATCH = 500;

/** The fields of the AuthLoginFailure model, as `countInWindows` counts them. */
const FIELDS = { count: 'failures', ends: 'window_ends' } as const;

export class LoginThrottle {
  /** When this process last forgot the windows long over (`forgetOldWindows`). */
  private purgedAt = -Infinity;
  /** The forgetting under way, if any (tests wait for it). */
  purging: Promise<void> = Promise.resolve();

  constructor(
    readonly db: ServiceDatabase,
    /** The model that holds the counts (AuthSpec.loginFailureModel). */
    readonly modelName: string,
    readonly now: () => number = Date.now,
    /** Per client address. */
    readonly perClient: Budget = { limit: 5, windowMs: 60_000 },
    /** The guesses every stranger to an account shares, and each device; a limit of 0 counts none. */
    readonly perAccount: Budget = { limit: 100, windowMs: 86_400_000 },
  ) {}

  /**
   * Counts one guess at `login` (as written) naming `account`, before its password is checked.
   * Throws 429 when the login's guesses are used up; false when the account's are: its password
   * must not be checked (answer as a wrong one). What is counted of a login never depends on whose
   * account it names (stopping at an account's used-up count would leave the login's next count as
   * it was only where the login is that account's: an oracle of whose an email is).
   *
   * The work is the same whoever guesses and whatever the login names: two steps of two counts
   * each, an upsert that takes as long whether its row exists or not. A count that does not apply
   * (a login that names no account has no account's count, nor one across addresses) is made up
   * by one of the client's address that nothing reads (one row per slot and address, whatever the
   * login: made-up logins add one row each, not four). With fewer steps for made-up logins, their
   * answers came sooner: a probe told which logins name accounts, and whose an email is, by time alone.
   */
  async attempt(account: string, login: string, guesser: Guesser): Promise<boolean> {
    this.forgetOldWindows();
    const across = this.across(account, login, guesser);
    const here = this.atAddress(guesser);
    const named = account !== login;
    const filler = (slot: number): Count => ({
      key: attemptKey('\0filler', `${slot}:${guesser.address}`),
      budget: this.perClient,
      filler: true,
    });
    const [atLogin, atAccount] = await this.tally([
      here ? { key: attemptKey(login, here), budget: this.perClient, refusal: TOO_MANY } : filler(0),
      here && named ? { key: attemptKey(account, here), budget: this.perClient } : filler(1),
    ]);
    if (atLogin!.refused) throw atLogin!.refused;
    const [acrossLogin, acrossAccount] = await this.tally([
      across ? { key: attemptKey(login, across.scope), budget: across.budget, refusal: across.refusal } : filler(2),
      across && named ? { key: attemptKey(account, across.scope), budget: across.budget } : filler(3),
    ]);
    if (acrossLogin!.refused) throw acrossLogin!.refused;
    return !atAccount!.over && !acrossAccount!.over;
  }

  /**
   * The address a guess is counted at, but for a device the account logged in from: it has a count
   * of its own, and others behind its address (a NAT, an IPv6 /64) would otherwise lock it out.
   */
  private atAddress(guesser: Guesser): string | null {
    return guesser.device?.startsWith('cookie:') && this.perAccount.limit > 0 ? null : guesser.address;
  }

  /**
   * The password was right: the guesses at the login and its account from this client (its
   * address, its device) start over, and this one is taken off the strangers' count (which counts
   * failures only: an owner who logs in from new places does not use up their own account).
   */
  async succeeded(account: string, login: string, guesser: Guesser): Promise<void> {
    const names = [...new Set([account, login])];
    const across = this.across(account, login, guesser);
    const cleared = [this.atAddress(guesser), across && across.scope !== STRANGERS ? across.scope : null].filter(
      (at) => at !== null,
    );
    const keys = names.flatMap((name) => cleared.map((at) => attemptKey(name, at)));
    // One row a statement: a statement deleting two in the table's order could wait, on
    // PostgreSQL, for a guess that counts on them in key order, while it waits for this one.
    for (const key of keys.sort()) await this.repository(this.db).deleteMany({ where: { attempt_key: key } });
    if (across?.scope === STRANGERS) for (const name of names) await this.uncount(attemptKey(name, STRANGERS));
  }

  /**
   * The count a guess shares across addresses: its device's, or every stranger's. Each has the
   * per-account budget (a device of its own: a stolen device cookie or session guesses no more in a
   * day than strangers do together). None when that budget is 0, or for a login that names no
   * account, which has none to protect (and would fill the table with day-long rows of made-up logins).
   */
  private across(account: string, login: string, guesser: Guesser) {
    if (this.perAccount.limit === 0 || (guesser.device === null && account === login)) return null;
    return guesser.device === null
      ? { scope: STRANGERS, budget: this.perAccount, refusal: TOO_MANY_STRANGERS }
      : { scope: `\0device:${guesser.device}`, budget: this.perAccount, refusal: TOO_MANY };
  }

  /**
   * One more guess on each count, in one step: whether each is past its limit now, and for a count
   * with a refusal, the 429 that says so (with Retry-After, when its window ends).
   */
  private async tally(counts: readonly Count[]): Promise<{ over: boolean; refused?: HttpError }[]> {
    const now = this.now();
    const counters = counts.map((c) => ({ key: c.key, ends: new Date(now + c.budget.windowMs) }));
    const after = await this.repository(this.db).countInWindows(FIELDS, counters, new Date(now));
    return counts.map((c, i) => {
      const { count, ends } = after[i]!;
      // Shared by every guess from the address, a filler read as a count locked all of them out.
      if (c.filler || count <= c.budget.limit) return { over: false };
      if (c.refusal === undefined) return { over: true };
      const wait = String(Math.max(1, Math.ceil((ends.getTime() - now) / 1000)));
      return { over: true, refused: new HttpError(429, c.refusal, undefined, { 'retry-after': wait }) };
    });
  }

  /**
   * Forgets the windows long over, so that made-up logins cannot fill the table: once a window per
   * process at most, not at every guess (a row whose window ended a moment ago may be about to
   * count again, and starts over all the same), beside the guess that starts it, not in its way.
   * In statements of 500 rows by window_ends' index, each its own step: a flood's hundred thousand
   * rows, deleted in one go, held every request up for two seconds (SQLite's is one process).
   */
  private forgetOldWindows(): void {
    const now = this.now();
    if (now - this.purgedAt < this.perClient.windowMs) return;
    this.purgedAt = now;
    const before = new Date(now - this.perClient.windowMs);
    const repository = this.repository(this.db);
    const forget = async () => {
      while ((await repository.forgetWindows(FIELDS, before, PURGE_BATCH)) === PURGE_BATCH)
        await new Promise((resolve) => setImmediate(resolve));
    };
    // A purge that failed (the database away a moment) is tried again at the next guess.
    this.purging = this.purging.then(forget).catch(() => {
      this.purgedAt = -Infinity;
    });
  }

  /** One guess fewer on `key`, in its window (none when the window is over or gone). */
  private async uncount(key: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const repository = this.repository(tx);
      if (!(await repository.findUnique({ where: { attempt_key: key } }))) return;
      await repository.lockForUpdate(key);
      const row = await repository.findUnique({ where: { attempt_key: key } });
      const guesses = Number(row?.['failures'] ?? 0);
      if (!row || endsAt(row) <= this.now() || guesses === 0) return;
      await repository.update({ where: { attempt_key: key }, data: { failures: guesses - 1 } });
    });
  }

  private repository(db: ServiceDatabase): EngineRepository {
    return db.repository(this.modelName);
  }
}

/** One key per account (or login) and address or scope, of fixed length whatever the account's. */
function attemptKey(account: string, at: string): string {
  return createHash('sha256').update(`${account}\0${at}`).digest('hex');
}

function endsAt(row: Rec): number {
  return Date.parse(String(row['window_ends']));
}
