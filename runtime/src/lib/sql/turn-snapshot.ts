/**
 * The reads of one turn of the event loop share one read transaction on SQLite's reader
 * connection. Each read transaction takes and gives back a read lock of the WAL (two `fcntl`
 * calls, each a system call); a statement alone is its own transaction, so every read paid both.
 * Under load the requests of one turn are many (one `epoll_wait` answered ~18 under 20
 * connections), and one transaction for all of them served a GET of one item with 4–5 µs less CPU
 * (bench/RESULTS.md, "One read transaction per turn").
 *
 * What a read sees stays what is committed:
 * - this process's own commits end the snapshot as they happen (`end`, called by the executor at
 *   every commit and whenever the writer is given back), so a write is seen by every read after it;
 * - another process's commit is seen from the next turn; and at once by whoever has read
 *   `data_version` move (table-versions.ts ends the snapshot then), so what authentication keeps
 *   while the user tables are unchanged is never read from before a change it has been told of.
 *
 * The transaction ends in `setImmediate`, after the turn's I/O callbacks: it is never held while
 * the process waits, so checkpoints and other processes' writers are not held back by it.
 */
import type Database from 'better-sqlite3';

export class TurnSnapshot {
  readonly #db: Database.Database;
  readonly #begin: Database.Statement;
  readonly #commit: Database.Statement;
  #open = false;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#begin = db.prepare('BEGIN');
    this.#commit = db.prepare('COMMIT');
  }

  /** Before a read: joins the turn's transaction, or begins it. */
  enter(): void {
    if (this.#open) return;
    this.#begin.run();
    this.#open = true;
    setImmediate(this.end);
  }

  /**
   * Ends the turn's transaction, if one is open: the next read sees what is committed by then.
   * Never throws (it runs in `setImmediate`, where an error would end the process): a read-only
   * transaction whose COMMIT fails is rolled back, and a closed connection has none.
   */
  readonly end = (): void => {
    if (!this.#open) return;
    this.#open = false;
    if (!this.#db.open || !this.#db.inTransaction) return;
    try {
      this.#commit.run();
    } catch {
      try {
        this.#db.exec('ROLLBACK');
      } catch {
        // Nothing left to undo: the connection ended the transaction itself.
      }
    }
  };
}
