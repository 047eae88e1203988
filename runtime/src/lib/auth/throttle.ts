/**
 * Brute-force brake for logins: at most `limit` password checks per account and client address
 * within a window (`auth.login_attempts` in `auth.login_window` seconds). A guess is counted when
 * it starts, before the password is checked, under a lock of its row (made first when there is
 * none): a burst of parallel guesses gets no more through than guesses sent one by one.
 *
 * Two counts are kept, each per address:
 * - per login as written (normalized): past its limit, that login gets 429 with Retry-After;
 * - per account, whichever of its logins (username, email) the guess names: past its limit, the
 *   password is not checked, and the guess is answered as a wrong password (after the same work).
 * So two spellings of one account share its password checks, and yet a 429 depends only on the
 * login sent: it cannot tell that an email is a given username's (guesses at `ben`, then one at
 * `ben@…`, would otherwise be 429 exactly when the email is ben's). An unknown login is an
 * account of its own. A successful login clears both counts.
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

export class LoginThrottle {
  constructor(
    readonly db: ServiceDatabase,
    /** The model that holds the counts (AuthSpec.loginFailureModel). */
    readonly modelName: string,
    readonly now: () => number = Date.now,
    readonly limit = 5,
    readonly windowMs = 60_000,
  ) {}

  /**
   * Counts one guess at `login` (as written) naming `account`, from `ip`, before its password is
   * checked. Throws 429 (counting nothing) when the login's guesses are used up; false when the
   * account's are: its password must not be checked (answer as a wrong one).
   */
  async attempt(account: string, login: string, ip: string): Promise<boolean> {
    const written = await this.counted(attemptKey(login, ip));
    if (written !== 'counted') throw written;
    return account === login || (await this.counted(attemptKey(account, ip))) === 'counted';
  }

  /** The password was right: the guesses at the login and its account from this address start over. */
  async succeeded(account: string, login: string, ip: string): Promise<void> {
    const keys = [...new Set([account, login])].map((key) => attemptKey(key, ip));
    await this.repository(this.db).deleteMany({ where: { attempt_key: { in: keys } } });
  }

  /** One more guess on `key`, or the 429 of a window whose guesses are used up. */
  private async counted(key: string): Promise<'counted' | HttpError> {
    for (let tries = 0; ; tries++) {
      const result = await this.count(key);
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
  private count(key: string): Promise<'counted' | 'no row' | HttpError> {
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
        if (guesses >= this.limit) {
          return new HttpError(429, 'too many login attempts; try again later', undefined, {
            'retry-after': String(Math.ceil((endsAt(row) - now) / 1000)),
          });
        }
        await repository.update({ where: { attempt_key: key }, data: { failures: guesses + 1 } });
      } else {
        const window = { failures: 1, window_ends: formatTimestamp(new Date(now + this.windowMs)) };
        await repository.update({ where: { attempt_key: key }, data: window });
      }
      return 'counted';
    });
  }

  /** A row for `key` with no guess in it (a window already over), unless there is one. */
  private async ensureRow(key: string): Promise<void> {
    const repository = this.repository(this.db);
    const now = this.now();
    // Forget the windows long over, so made-up logins cannot fill the table; a row made a moment
    // ago for a guess about to be counted is not one of them.
    await repository.deleteMany({ where: { window_ends: { lt: formatTimestamp(new Date(now - this.windowMs)) } } });
    try {
      await repository.create({ data: { attempt_key: key, failures: 0, window_ends: formatTimestamp(new Date(now)) } });
    } catch (error) {
      // Another guess made it at the same moment: count on it.
      if (!(error instanceof ConstraintViolation && error.kind === 'unique')) throw error;
    }
  }

  private repository(db: ServiceDatabase): EngineRepository {
    return db.repository(this.modelName);
  }
}

/** One key per account (or login) and address, of fixed length whatever the account's. */
function attemptKey(account: string, ip: string): string {
  return createHash('sha256').update(`${account}\0${ip}`).digest('hex');
}

function endsAt(row: Rec): number {
  return Date.parse(String(row['window_ends']));
}
