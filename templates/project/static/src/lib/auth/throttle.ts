/**
 * Brute-force brake for logins: after `limit` failed attempts for one login from one address
 * within `windowMs`, further attempts get 429 with Retry-After until the window ends. The counts
 * live in the database (the AuthLoginFailure model), so every instance of the service sees the
 * same count and a restart forgets nothing. The address is `request.ip`: it follows
 * `http.trust_proxy`, so X-Forwarded-For from anyone but a trusted proxy changes nothing.
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

  /** Throws 429 while `login` from `ip` is locked out. */
  async check(login: string, ip: string): Promise<void> {
    const row = await this.repository(this.db).findUnique({ where: { attempt_key: attemptKey(login, ip) } });
    const left = row ? endsAt(row) - this.now() : 0;
    if (row && left > 0 && Number(row['failures']) >= this.limit) {
      throw new HttpError(429, 'too many failed logins; try again later', undefined, {
        'retry-after': String(Math.ceil(left / 1000)),
      });
    }
  }

  async failed(login: string, ip: string): Promise<void> {
    const key = attemptKey(login, ip);
    try {
      await this.count(key);
    } catch (error) {
      // Another instance created the row for this key at the same moment: count on it.
      if (!(error instanceof ConstraintViolation && error.kind === 'unique')) throw error;
      await this.count(key);
    }
  }

  async succeeded(login: string, ip: string): Promise<void> {
    await this.repository(this.db).deleteMany({ where: { attempt_key: attemptKey(login, ip) } });
  }

  /** Adds one failure under a row lock, starting a new window when the last one is over. */
  private count(key: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      const repository = this.repository(tx);
      await repository.lockForUpdate(key);
      const row = await repository.findUnique({ where: { attempt_key: key } });
      const now = this.now();
      if (row && endsAt(row) > now) {
        await repository.update({ where: { attempt_key: key }, data: { failures: Number(row['failures']) + 1 } });
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

/** One key per lower-cased login and address, of fixed length whatever the login's. */
function attemptKey(login: string, ip: string): string {
  return createHash('sha256').update(`${login.toLowerCase()}\0${ip}`).digest('hex');
}

function endsAt(row: Rec): number {
  return Date.parse(String(row['window_ends']));
}
