/**
 * Brute-force brake for logins: at most `limit` password guesses per account and client address
 * within a window (`auth.login_attempts` in `auth.login_window` seconds); more get 429 with
 * Retry-After until the window ends. A guess is counted when it starts, before the password is
 * checked, under a lock of its row (made first when there is none): a burst of parallel guesses
 * gets no more through than guesses sent one by one. The account is the user a login names, by username or email alike (an unknown login
 * is counted as written), so two spellings of one account share its count. A successful login
 * clears the count. The counts live in the database (the AuthLoginFailure model), so every
 * instance of the service sees the same count and a restart forgets nothing. The address is
 * `request.ip`: it follows `http.trust_proxy`, so X-Forwarded-For from anyone but a trusted proxy
 * changes nothing.
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
   * Counts one guess at `account` from `ip`, before its password is checked; throws 429 (counting
   * nothing) when the window's guesses are used up.
   */
  async attempt(account: string, ip: string): Promise<void> {
    const key = attemptKey(account, ip);
    for (let tries = 0; ; tries++) {
      if (await this.count(key)) return;
      // The row a guess is counted on must exist before the transaction that locks it: a row
      // another transaction inserts is not there to lock, and two guesses would both read it
      // once it is committed, and count one.
      if (tries === 3) throw new Error(`the login brake found no row to count on for ${key}`);
      await this.ensureRow(key);
    }
  }

  /** The password was right: the account's guesses from this address start over. */
  async succeeded(account: string, ip: string): Promise<void> {
    await this.repository(this.db).deleteMany({ where: { attempt_key: attemptKey(account, ip) } });
  }

  /**
   * Adds one guess under a row lock, starting a new window when the last one is over; false when
   * there is no row to lock (none yet, or a successful login just removed it).
   */
  private count(key: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const repository = this.repository(tx);
      // Lock only a row that was there before: a row committed after the lock was asked for is
      // read all the same, unlocked, by every guess at once.
      if (!(await repository.findUnique({ where: { attempt_key: key } }))) return false;
      await repository.lockForUpdate(key);
      const row = await repository.findUnique({ where: { attempt_key: key } });
      if (!row) return false;
      const now = this.now();
      if (endsAt(row) > now) {
        const guesses = Number(row['failures']);
        if (guesses >= this.limit) {
          throw new HttpError(429, 'too many login attempts; try again later', undefined, {
            'retry-after': String(Math.ceil((endsAt(row) - now) / 1000)),
          });
        }
        await repository.update({ where: { attempt_key: key }, data: { failures: guesses + 1 } });
      } else {
        const window = { failures: 1, window_ends: formatTimestamp(new Date(now + this.windowMs)) };
        await repository.update({ where: { attempt_key: key }, data: window });
      }
      return true;
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

/** One key per account and address, of fixed length whatever the account's. */
function attemptKey(account: string, ip: string): string {
  return createHash('sha256').update(`${account}\0${ip}`).digest('hex');
}

function endsAt(row: Rec): number {
  return Date.parse(String(row['window_ends']));
}
