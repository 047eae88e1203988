/**
 * Brute-force brake for logins (OWASP API Security Top 10, API2: broken authentication): after `limit` failed attempts for one
 * login from one address within `windowMs`, further attempts get 429 with Retry-After until the
 * window ends. The counts live in this process: behind a load balancer each instance counts its own.
 */
import { HttpError } from '../errors.js';

export class LoginThrottle {
  readonly #failures = new Map<string, { count: number; until: number }>();

  constructor(
    readonly limit = 5,
    readonly windowMs = 60_000,
    readonly maxEntries = 100_000,
    readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 while `login` from `ip` is locked out. */
  check(login: string, ip: string): void {
    const entry = this.#failures.get(key(login, ip));
    if (!entry) return;
    const left = entry.until - this.now();
    if (left <= 0) this.#failures.delete(key(login, ip));
    else if (entry.count >= this.limit) {
      throw new HttpError(429, 'too many failed logins; try again later', undefined, {
        'retry-after': String(Math.ceil(left / 1000)),
      });
    }
  }

  failed(login: string, ip: string): void {
    const k = key(login, ip);
    const entry = this.#failures.get(k);
    if (entry && entry.until > this.now()) entry.count++;
    else {
      // Oldest first: drop the first entries when the map is full (a flood of made-up logins).
      if (this.#failures.size >= this.maxEntries) this.#failures.delete(this.#failures.keys().next().value!);
      this.#failures.set(k, { count: 1, until: this.now() + this.windowMs });
    }
  }

  succeeded(login: string, ip: string): void {
    this.#failures.delete(key(login, ip));
  }
}

function key(login: string, ip: string): string {
  return `${login.toLowerCase()}\0${ip}`;
}
