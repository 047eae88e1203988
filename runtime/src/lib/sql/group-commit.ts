/**
 * Group commit on SQLite: the writes that arrive in one turn of the event loop share one
 * transaction, each in a savepoint of its own. A commit costs far more than a small write (its
 * pages go to the WAL, the locks are taken and given back, a checkpoint comes due sooner), and
 * under load many requests reach their write in the same turn: twenty concurrent deletes
 * committed one by one spent 244 µs of CPU per request, grouped 121 (bench/RESULTS.md).
 *
 * Each write still succeeds or fails as it would alone: a failed statement is rolled back to its
 * savepoint and only its caller gets the error; a write that undoes the whole transaction (OR
 * ROLLBACK, RAISE(ROLLBACK), a full disk) fails alone and the others run again without it; a
 * COMMIT that fails (a deferred foreign key) sends each write back to run alone. Nobody hears of
 * a write before its COMMIT, so what is answered is what is committed. A write waits for the end
 * of the current turn (`setImmediate`), never for a timer: alone, it runs as it did before.
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

/** How a write of a group went; `undidAll`: its error made SQLite undo the whole transaction. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown; undidAll: boolean };

/**
 * At most this many writes in one transaction: a bigger group would hold the event loop longer
 * (each write is tens of microseconds) for little more saving; the rest go in the next.
 */
const MOST_PER_GROUP = 64;

/** Statements that may share a transaction; anything else (PRAGMA, VACUUM, DDL) runs alone, as written. */
export function isGroupable(sql: string): boolean {
  return /^\s*(insert|update|delete|replace)\b/i.test(sql);
}

/**
 * Undoes the writer's transaction. If even ROLLBACK fails, the connection is closed (which undoes
 * it too): left open, the transaction would take in the next writes, answered and never committed.
 */
export function rollback(writer: Database.Database): void {
  if (!writer.inTransaction) return;
  try {
    writer.exec('ROLLBACK');
  } catch {
    writer.close();
  }
}

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

  /**
   * Lets the writes queued so far take the writer before whoever asks for it next (a transaction,
   * a statement that runs alone): a write asked for first is made first.
   */
  takeWriterFirst(): void {
    if (this.#queued.length > 0) void this.#flush();
  }

  async #flush(): Promise<void> {
    const release = await this.#acquire();
    // What came in while waiting for the lock joins this group.
    const group = this.#queued.splice(0, MOST_PER_GROUP);
    this.#scheduled = this.#queued.length > 0;
    if (this.#scheduled) setImmediate(() => void this.#flush());
    try {
      this.#run(group);
    } catch (error) {
      // A savepoint's own statement failed (an I/O error): nothing of the group is kept, and
      // nobody is left waiting.
      rollback(this.#writer);
      for (const { reject } of group) reject(error);
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
    const outcomes: Outcome[] = [];
    try {
      this.#begin.run();
    } catch (error) {
      // The writer is busy (another process) or gone: each would have failed alone too.
      for (const { reject } of group) reject(error);
      return;
    }
    for (const [i, queued] of group.entries()) {
      const outcome = this.#inSavepoint(queued.write);
      if (!outcome.ok && outcome.undidAll) {
        // This write undid the others too (OR ROLLBACK, RAISE(ROLLBACK), a full disk): it fails,
        // and the rest run again without it.
        this.#settle(queued, outcome);
        this.#run([...group.slice(0, i), ...group.slice(i + 1)]);
        return;
      }
      outcomes.push(outcome);
    }
    try {
      this.#commit.run();
    } catch {
      // A deferred constraint, checked at COMMIT, names no write: each runs again alone, where
      // only the one that breaks it fails.
      rollback(this.#writer);
      for (const queued of group) this.#runAlone(queued);
      return;
    }
    group.forEach((queued, i) => this.#settle(queued, outcomes[i]!));
  }

  /** One write runs as it would without grouping; more share a transaction. */
  #run(group: readonly Queued[]): void {
    if (group.length === 1) this.#runAlone(group[0]!);
    else if (group.length > 1) this.#runTogether(group);
  }

  #settle({ resolve, reject }: Queued, outcome: Outcome): void {
    if (outcome.ok) resolve(outcome.value);
    else reject(outcome.error);
  }

  /** One write of the group; a statement that fails is undone alone, unless SQLite undid everything. */
  #inSavepoint(write: GroupedWrite<unknown>): Outcome {
    this.#savepoint.run();
    try {
      const value = write.inGroup();
      this.#release.run();
      return { ok: true, value };
    } catch (error) {
      if (!this.#writer.inTransaction) return { ok: false, error, undidAll: true };
      this.#rollbackTo.run();
      this.#release.run();
      return { ok: false, error, undidAll: false };
    }
  }
}
