/**
 * Who a request's credentials name, remembered for as long as the user and credential tables are
 * unchanged (lib/sql/table-versions.ts, pg-table-versions.ts): then reading the user and their
 * credential again would give the same rows, so the answer is the same as if they were read. Any
 * write to either table, by this process or another (a demotion, a new password, a logout
 * elsewhere, SQL behind the service's back), forgets everything. Where the database cannot say
 * cheaply that they are unchanged (MongoDB), nothing is remembered and every request reads; so
 * does a request while it cannot say now (SQLite's writer is in a transaction; PostgreSQL's
 * triggers could not be made).
 *
 * What a request identified as gets a copy: a handler that changes `request.user` changes its
 * own request only. Only identifications are kept, never a refusal, so that unknown tokens sent
 * by the thousand cannot push known ones out.
 */
import type { TableVersion } from '../database.js';

const MAX_ENTRIES = 10_000;

export class UnchangedReads {
  readonly #version: TableVersion | undefined;
  #seen: string | undefined;
  readonly #values = new Map<string, unknown>();

  constructor(version: TableVersion | undefined) {
    this.#version = version;
  }

  /**
   * What `load` gives for the key (undefined: nothing, not kept), or what it gave while the tables
   * were unchanged. The key is made only where something may be kept (a digest, for a token).
   */
  async read<T extends object>(keyOf: () => string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    // SQLite's at once; PostgreSQL's after a statement (the rows `load` reads are read after it).
    const version = await this.#version?.();
    // None now (a transaction is open), or none at all: read. A version never comes back once another was seen.
    if (version === undefined) return load();
    if (version !== this.#seen) {
      this.#values.clear();
      this.#seen = version;
    }
    const key = keyOf();
    const kept = this.#values.get(key) as T | undefined;
    if (kept !== undefined) return copyOf(kept);
    const value = await load();
    // A write while it was read: the rows may be older or newer than `version`; not kept.
    if (value === undefined || (await this.#version?.()) !== version) return value;
    if (this.#values.size >= MAX_ENTRIES) this.#values.clear();
    this.#values.set(key, copyOf(value));
    return value;
  }
}

/** A copy of a record as a repository reads it (JSON's values): structuredClone costs several times more. */
function copyOf<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyOf) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = copyOf((value as Record<string, unknown>)[key]);
    // A JSON object may hold a `__proto__` key: assigned, it would become the copy's prototype.
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: field, enumerable: true, writable: true, configurable: true });
    else copy[key] = field;
  }
  return copy as T;
}
