/**
 * What runs SQL, as the repositories and migrations see it; executor.ts implements it on SQLite and
 * PostgreSQL. Apart from the drivers, so that code which only passes statements along (the search
 * indexer) depends on no driver.
 */
import type { TableVersion } from '../database.js';
import type { Dialect } from '../values.js';

export interface Compiled {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /**
   * A read of at most one row by a unique key, which is quick and never waits for a lock: outside
   * a transaction, PostgreSQL sends it on the shared pipelined connection (pipelined-reads.ts).
   */
  readonly oneByKey?: boolean;
  /**
   * A page read in an index's order, of at most QUICK_PAGE_ROWS rows, without conditions (its
   * total the kept count): outside a transaction, PostgreSQL sends it on the pipelined connection
   * for pages (pipelined-reads.ts).
   */
  readonly quickPage?: boolean;
  /**
   * A write that stands alone (one statement: a write and its event, recorded-writes.ts): outside
   * a transaction, PostgreSQL commits it with the other such writes of its turn, merged into one
   * statement with those of its shape (pg-group-commit.ts, merged-writes.ts).
   */
  readonly grouped?: GroupedWrite;
}

/** What one write is made of: its table's columns and their values, and the key it changes. */
export type WriteParts =
  | { readonly kind: 'insert'; readonly columns: readonly string[]; readonly values: readonly unknown[] }
  | {
      readonly kind: 'update';
      readonly columns: readonly string[];
      readonly values: readonly unknown[];
      readonly key: unknown;
    }
  | { readonly kind: 'delete'; readonly key: unknown };

export interface GroupedWrite {
  /** Writes of one shape (model, action, columns) can be one statement. */
  readonly shape: string;
  readonly parts: WriteParts;
  /** Writes of this shape (two or more), made one statement. */
  readonly merge: (writes: readonly WriteParts[]) => MergedWrites;
  /** Throws once the request's time is up: asked again before the write is sent again alone. */
  readonly inTime?: () => void;
}

export interface MergedWrites {
  readonly statement: Compiled;
  /**
   * Each write's rows from the statement's, in the order of the writes; `undefined` for a write
   * the statement did not make, which must run again alone (merged-writes.ts says when).
   */
  readonly split: (rows: readonly Record<string, unknown>[]) => (Record<string, unknown>[] | undefined)[];
}

export interface SqlExecutor {
  readonly dialect: Dialect;
  /** Rows of a query (or of a write with RETURNING). */
  all<R = Record<string, unknown>>(query: Compiled): Promise<R[]>;
  /** Runs a write; resolves with the number of rows it changed. */
  run(query: Compiled): Promise<number>;
  /**
   * Runs a write whose result nobody reads (the outbox's events), as the transaction's last
   * statement: PostgreSQL sends it with the COMMIT, in one round trip (its parameters written
   * into the text as literals: `$n` must not appear inside the statement's own literals).
   * Outside a transaction, and on SQLite (no round trips), it runs at once.
   */
  runBeforeCommit(query: Compiled): Promise<void>;
  /**
   * A write, then the statement its rows make (`then`: the outbox's event), all or nothing. On
   * SQLite one synchronous transaction, with no turn of the event loop inside.
   */
  allThen<R = Record<string, unknown>>(query: Compiled, then: (rows: R[]) => Compiled | undefined): Promise<R[]>;
  /** Runs a script of statements without parameters (migrations). */
  execute(script: string): Promise<void>;
  /** Runs `work` in one transaction: all of it is committed, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** True inside `transaction`. */
  readonly inTransaction: boolean;
}

export interface SqlDatabase extends SqlExecutor {
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs `work` with SQLite's foreign key enforcement off, alone on the database (migrations).
   * Rebuilding a table (create a copy, drop the old one, rename) with it on would make the DROP
   * delete or unlink the rows that point at the table; the pragma is ignored inside a
   * transaction, so it is switched here, outside, and back on when `work` ends. `work` gets an
   * executor whose transactions run in this turn. On PostgreSQL, a plain call.
   */
  withoutForeignKeys<T>(work: (db: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * The version of some tables' rows (table-versions.ts, pg-table-versions.ts): another value once
   * any of them was written.
   */
  readonly tableVersion?: (tables: readonly string[]) => TableVersion;
}
