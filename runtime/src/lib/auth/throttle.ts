/**
 * Brute-force brake for logins: at most `limit` password guesses per account and client address
 * within a window (`auth.login_attempts` in `auth.login_window` seconds); more get 429 with
 * Retry-After until the window ends. A guess is counted when it starts, before the password is
 * checked, under a row lock: a burst of parallel guesses gets no more through than guesses sent
 * one by one. The account is the user a login names, by username or email alike (an unknown login
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
    try {
      await this.count(key);
    } catch (error) {
      // Another request created the row for this key at the same moment: count on it.
      if (!(error instanceof ConstraintViolation && error.kind === 'unique')) throw error;
      await this.count(key);
    }
  }

  /** The password was right: the account's guesses from this address start over. */
  async succeeded(account: string, ip: string): Promise<void> {
    await this.repository(this.db).deleteMany({ where: { attempt_key: attemptKey(account, ip) } });
  }

  /** Adds one guess under a row lock, starting a new window when the last one is over. */
  private count(key: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      const repository = this.repository(tx);
      await repository.lockForUpdate(key);
      const row = await repository.findUnique({ where: { attempt_key: key } });
      const now = this.now();
      if (row && endsAt(row) > now) {
        const guesses = Number(row['failures']);
        if (guesses >= this.limit) {
          throw new HttpError(429, 'too many login attempts; try again later', undefined, {
            'retry-after': String(Math.ceil((endsAt(row) - now) / 1000)),
          });
        }
        await repository.update({ where: { attempt_key: key }, data: { failures: guesses + 1 } });
        return;
      }
      const window = { failures: 1, window_ends: formatTimestamp(new Date(now + this.windowMs)) };
      if (row) await repository.update({ where: { attempt_key: key }, data: window });
      else {
        // Forget the windows that are over, so made-up logins cannot fill the table.
        await repository.deleteMany({ where: { window_ends: { lt: formatTimestamp(new Date(now)) } } });
        await repository.create({ data: { attempt_key: key, ...window } });
      }
    });
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
