/**
 * Brute-force brake for logins. A guess is counted when it starts, before the password is
 * checked, under a lock of its row (made first when there is none): a burst of parallel guesses
 * gets no more through than guesses sent one by one. Each guess is counted twice:
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
import { formatTimestamp, HttpError } from '../errors.js';
import { ConstraintViolation } from '../repository.js';

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

/** The count every stranger to an account shares. */
const STRANGERS = '\0strangers';

export class LoginThrottle {
  /** When this process last forgot the windows long over (ensureRow). */
  private purgedAt = -Infinity;

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
   * must not be checked (answer as a wrong one). The login's counts come first, all of them, so
   * that what is counted of a login never depends on whose account it names (stopping at an
   * account's used-up count would leave the login's next count as it was only where the login is
   * that account's: an oracle of whose an email is).
   */
  async attempt(account: string, login: string, guesser: Guesser): Promise<boolean> {
    const across = this.across(account, login, guesser);
    const here = this.atAddress(guesser);
    if (here) await this.countLogin(login, here, this.perClient, TOO_MANY);
    if (across) await this.countLogin(login, across.scope, across.budget, across.refusal);
    if (account === login) return true;
    const there = here && (await this.counted(attemptKey(account, here), this.perClient, TOO_MANY));
    const anywhere = across && (await this.counted(attemptKey(account, across.scope), across.budget, across.refusal));
    return (there === null || there === 'counted') && (anywhere === null || anywhere === 'counted');
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
    await this.repository(this.db).deleteMany({ where: { attempt_key: { in: keys } } });
    if (across?.scope === STRANGERS) for (const name of names) await this.uncount(attemptKey(name, STRANGERS));
  }

  /**
   * The count a guess shares across addresses: its device's, or every stranger's. Each has the
   * per-account budget (a device of its own: a stolen device cookie or session guesses no more in a
   * day than strangers do together). None when that budget is 0, or for a login that names no
   * account, which has none to protect (and would fill the table with rows of made-up logins).
   */
  private across(account: string, login: string, guesser: Guesser) {
    if (this.perAccount.limit === 0 || (guesser.device === null && account === login)) return null;
    return guesser.device === null
      ? { scope: STRANGERS, budget: this.perAccount, refusal: TOO_MANY_STRANGERS }
      : { scope: `\0device:${guesser.device}`, budget: this.perAccount, refusal: TOO_MANY };
  }

  /** Counts a guess at `login` (as written), at `scope`; throws the 429 of a login whose guesses are used up. */
  private async countLogin(login: string, scope: string, budget: Budget, refusal: string): Promise<void> {
    const counted = await this.counted(attemptKey(login, scope), budget, refusal);
    if (counted !== 'counted') throw counted;
  }

  /** One more guess on `key`, or the 429 of a window whose guesses are used up. */
  private async counted(key: string, budget: Budget, refusal: string): Promise<'counted' | HttpError> {
    for (let tries = 0; ; tries++) {
      const result = await this.count(key, budget, refusal);
      if (result !== 'no row') return result;
      // The row a guess is counted on must exist before the transaction that locks it: a row
      // another transaction inserts is not there to lock, and two guesses would both read it
      // once it is committed, and count one.
      if (tries === 3) throw new Error(`the login brake found no row to count on for ${key}`);
      await this.ensureRow(key);
    }
  }

  /**
   * Adds one guess under a row lock, starting a new window when the last one is over: the 429 of
   * a window whose guesses are used up, or 'no row' when there is none to lock (none yet, or a
   * successful login just removed it).
   */
  private count(key: string, budget: Budget, refusal: string): Promise<'counted' | 'no row' | HttpError> {
    return this.db.transaction(async (tx) => {
      const repository = this.repository(tx);
      // Lock only a row that was there before: a row committed after the lock was asked for is
      // read all the same, unlocked, by every guess at once.
      if (!(await repository.findUnique({ where: { attempt_key: key } }))) return 'no row';
      await repository.lockForUpdate(key);
      const row = await repository.findUnique({ where: { attempt_key: key } });
      if (!row) return 'no row';
      const now = this.now();
      if (endsAt(row) > now) {
        const guesses = Number(row['failures']);
        if (guesses >= budget.limit) {
          return new HttpError(429, refusal, undefined, {
            'retry-after': String(Math.ceil((endsAt(row) - now) / 1000)),
          });
        }
        await repository.update({ where: { attempt_key: key }, data: { failures: guesses + 1 } });
      } else {
        const window = { failures: 1, window_ends: formatTimestamp(new Date(now + budget.windowMs)) };
        await repository.update({ where: { attempt_key: key }, data: window });
      }
      return 'counted';
    });
  }

  /** A row for `key` with no guess in it (a window already over), unless there is one. */
  private async ensureRow(key: string): Promise<void> {
    const repository = this.repository(this.db);
    const now = this.now();
    // Forget the windows long over, so that made-up logins cannot fill the table (a row made a
    // moment ago for a guess about to be counted is not one of them): by window_ends' index, and
    // once a window at most, not at every new row.
    if (now - this.purgedAt >= this.perClient.windowMs) {
      this.purgedAt = now;
      const over = formatTimestamp(new Date(now - this.perClient.windowMs));
      await repository.deleteMany({ where: { window_ends: { lt: over } } });
    }
    try {
      await repository.create({ data: { attempt_key: key, failures: 0, window_ends: formatTimestamp(new Date(now)) } });
    } catch (error) {
      // Another guess made it at the same moment: count on it.
      if (!(error instanceof ConstraintViolation && error.kind === 'unique')) throw error;
    }
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
