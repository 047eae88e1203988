/**
 * Password hashing: argon2id with OWASP's minimum cost (19 MiB, 2 passes, 1 lane),
 * stored as a PHC string. A hash costs tens of milliseconds and 19 MiB, so at most `concurrency`
 * run at once and at most `queueLimit` wait; beyond that the service answers 503 with Retry-After
 * instead of running out of memory under a burst of logins. The queue is shared fairly between
 * client addresses: they are served in turn, and one address holding more than its share cannot
 * keep another out (its newest waiter gives its place up), so a burst from one client does not
 * turn everyone else's logins into 503s.
 *
 * Users brought over from Ramses have bcrypt hashes (`$2a$`, `$2b$`, `$2y$`): those verify too, and
 * the login route replaces them with argon2id on the first successful login (`rehash`).
 */
import argon2 from 'argon2';
import bcrypt from 'bcryptjs';
import { badRequest } from '../errors.js';
import { FairSlots } from './fair-slots.js';

/** Passwords longer than this are refused before hashing (OWASP asks for at least 64 characters). */
export const MAX_PASSWORD_BYTES = 1024;

const OPTIONS = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export interface HasherOptions {
  /** Hashes computed at once (argon2 runs on libuv's thread pool: 4 threads by default). */
  readonly concurrency?: number;
  /** Requests that may wait for a free slot before the service answers 503. */
  readonly queueLimit?: number;
}

export class PasswordHasher {
  readonly #slots: FairSlots;
  #dummy: Promise<string> | undefined;

  constructor(options: HasherOptions = {}) {
    this.#slots = new FairSlots(
      options.concurrency ?? Number(process.env['UV_THREADPOOL_SIZE'] ?? 4),
      options.queueLimit ?? 32,
    );
  }

  /** `client`: who asks (the client's address), for a fair share of the queue. */
  async hash(password: string, field = 'password', client = ''): Promise<string> {
    checkLength(password, field);
    return this.#slots.run(client, () => argon2.hash(password, OPTIONS));
  }

  /**
   * Whether `password` matches `stored`. Without a stored hash (an unknown user) a hash is still
   * verified, so that the answer takes as long either way and tells nobody which users exist.
   */
  async verify(
    stored: string | null | undefined,
    password: string,
    client = '',
  ): Promise<{ ok: boolean; rehash: boolean }> {
    if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return { ok: false, rehash: false };
    if (typeof stored === 'string' && isBcryptHash(stored)) {
      const ok = await this.#slots.run(client, () => bcrypt.compare(password, stored).catch(() => false));
      return { ok, rehash: ok };
    }
    const usable = typeof stored === 'string' && stored.startsWith('$argon2');
    this.#dummy ??= argon2.hash('svcgen: no such user', OPTIONS);
    const hash = usable ? stored : await this.#dummy;
    const ok = await this.#slots.run(client, () => argon2.verify(hash, password).catch(() => false));
    return { ok: ok && usable, rehash: ok && usable && argon2.needsRehash(hash, OPTIONS) };
  }
}

/**
 * A bcrypt hash as Ramses (py-bcrypt), PHP and OpenBSD write it: `$2a$`, `$2b$` or `$2y$`, a
 * two-digit cost, then 53 characters of salt and digest. The three prefixes compute the same hash
 * for every password Ramses could store (they differ only on bugs of old C implementations).
 */
export function isBcryptHash(stored: string): boolean {
  return /^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$/.test(stored);
}

function checkLength(password: string, field: string): void {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw badRequest(`${field} is too long`, [{ field, message: `must be at most ${MAX_PASSWORD_BYTES} bytes` }]);
  }
}
