/**
 * Group commit on SQLite: the writes that arrive in one turn of the event loop share one
 * transaction, each in a savepoint of its own. A commit costs far more than a small write (its
 * pages go to the WAL, the locks are taken and given back, a checkpoint comes due sooner), and
 * under load many requests reach their write in the same turn: twenty concurrent deletes
 * committed one by one spent 244 µs of CPU per request, grouped 121 (bench/RESULTS.md).
 *
 * Each write still succeeds or fails alone: a failed statement is rolled back to its savepoint and
 * only its caller gets the error. Nobody hears of a write before the group's COMMIT, so what is
 * answered is committed; if SQLite undoes the whole transaction (disk full, I/O error) or the
 * COMMIT fails, every write of the group fails with that error. A write waits for the end of the
 * current turn (`setImmediate`), never for a timer: alone, it runs as it did before grouping.
 */
import type Database from 'better-sqlite3';

/** One write: its statements, run on the writer, and how to run them without a group around them. */
export interface GroupedWrite<T> {
  /** Inside the group's transaction. */
  readonly inGroup: () => T;
  /** Alone: a transaction of its own if it has more than one statement, or autocommit. */
  readonly alone: () => T;
}

interface Queued {
  readonly write: GroupedWrite<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * At most this many writes in one transaction: a bigger group would hold the event loop longer
 * (each write is tens of microseconds) for little more saving; the rest go in the next.
 */
const MOST_PER_GROUP = 64;

export class GroupCommit {
  readonly #writer: Database.Database;
  readonly #acquire: () => Promise<() => void>;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  readonly #savepoint: Database.Statement;
  readonly #release: Database.Statement;
  readonly #rollbackTo: Database.Statement;
  #queued: Queued[] = [];
  #scheduled = false;

  /** `acquire`: the writer's lock, shared with the transactions that are not grouped. */
  constructor(writer: Database.Database, acquire: () => Promise<() => void>) {
    this.#writer = writer;
    this.#acquire = acquire;
    this.#begin = writer.prepare('BEGIN IMMEDIATE');
    this.#commit = writer.prepare('COMMIT');
    this.#savepoint = writer.prepare('SAVEPOINT svc_write');
    this.#release = writer.prepare('RELEASE svc_write');
    this.#rollbackTo = writer.prepare('ROLLBACK TO svc_write');
  }

  /** Runs `write` with the others of this turn; resolves once it is committed. */
  write<T>(write: GroupedWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queued.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const release = await this.#acquire();
    // What came in while waiting for the lock joins this group.
    const group = this.#queued.splice(0, MOST_PER_GROUP);
    this.#scheduled = this.#queued.length > 0;
    if (this.#scheduled) setImmediate(() => void this.#flush());
    try {
      if (group.length === 1) this.#runAlone(group[0]!);
      else this.#runTogether(group);
    } finally {
      release();
    }
  }

  #runAlone({ write, resolve, reject }: Queued): void {
    try {
      resolve(write.alone());
    } catch (error) {
      reject(error);
    }
  }

  #runTogether(group: readonly Queued[]): void {
    const settled: Array<() => void> = [];
    try {
      this.#begin.run();
      for (const { write, resolve, reject } of group) {
        const outcome = this.#inSavepoint(write);
        settled.push(outcome.ok ? () => resolve(outcome.value) : () => reject(outcome.error));
      }
      this.#commit.run();
    } catch (error) {
      // SQLite undid the transaction, or the COMMIT failed: none of the group was saved.
      if (this.#writer.inTransaction) this.#writer.exec('ROLLBACK');
      for (const { reject } of group) reject(error);
      return;
    }
    for (const settle of settled) settle();
  }

  /** One write of the group; a statement that fails is undone alone, unless SQLite undid everything. */
  #inSavepoint(write: GroupedWrite<unknown>): { ok: true; value: unknown } | { ok: false; error: unknown } {
    this.#savepoint.run();
    try {
      const value = write.inGroup();
      this.#release.run();
      return { ok: true, value };
    } catch (error) {
      if (!this.#writer.inTransaction) throw error;
      this.#rollbackTo.run();
      this.#release.run();
      return { ok: false, error };
    }
  }
}
