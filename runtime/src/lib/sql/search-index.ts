/**
 * SQLite's search index is caught up, not kept in step with every write. An FTS5 insert in each
 * small transaction writes a new index segment each time (it cost a POST about 40 %); in batches
 * it costs a fraction. So the migrations' triggers only mark what changed: a row beyond
 * `svc_search_state.indexed_to` is new, and a row at or below it that changed or was deleted has
 * its rowid in `svc_search_<table>_stale`. This module moves those rows into the index: shortly
 * after writes, in the background, in batches that hold the writer briefly; and always before a
 * search reads the index, so that a search sees every write before it (of any process on the
 * database file: the marks are in the database).
 */
import { setImmediate as yieldToRequests } from 'node:timers/promises';
import type { Model } from '../model.js';
import { identifier, stringLiteral } from './quoting.js';
import type { SqlDatabase, SqlExecutor } from './types.js';

/** Rows per batch when a search waits for the index: a few milliseconds of the writer, few commits. */
const BATCH = 500;
/**
 * Rows per batch in the background, between requests: a millisecond or so of the writer, which
 * the requests that write wait for (500 at a time added ~1 ms to the p99 of updates under load).
 */
const BACKGROUND_BATCH = 100;
/** How long after a write the background catches up: writes in between share the batch. */
const DELAY_MS = 100;
/**
 * FTS5's `deletemerge` for the index: the share of a segment's rows (in %) that must be deleted
 * before the segment is merged for that alone. A deleted or changed row leaves a tombstone, not
 * a hole; at FTS5's 10 %, segments of an index whose rows keep changing were merged again and
 * again, and checking their tombstones was a tenth of a SQLite DELETE's CPU under load. At 50 %,
 * catching up an index after 40,000 deletes cost 5.2 µs a row instead of 8.0, re-indexing rows
 * changed one after another 6.8 instead of 13.8, and at random 11.5 instead of 12.8; searches
 * took as long, the index was up to 45 % bigger (bench/RESULTS.md, "What the write features cost").
 * On 100,000 rows changed and deleted at random, writes 13 % cheaper, the index 12 % bigger,
 * searches as fast (`npm run bench -- fts-deletemerge`).
 */
const DELETE_MERGE_PERCENT = 50;

/** The FTS5 table of a model's table (src/plan/storage/search.ts creates it). */
export function ftsTable(table: string): string {
  return `svc_search_${table}`;
}

/** The FTS5 column of a searched field: its name, but `_rank` and `_rowid` for the names FTS5 reserves (svcgen's too). */
export function ftsColumn(field: string): string {
  return /^(rank|rowid)$/i.test(field) ? `_${field}` : field;
}

export class SearchIndexer {
  readonly #statements = new Map<string, Statements>();
  readonly #scheduled = new Map<string, NodeJS.Timeout>();
  /** The models whose index this process has given DELETE_MERGE_PERCENT (kept by the index itself). */
  readonly #tuned = new Set<string>();
  #closed = false;

  constructor(readonly db: SqlDatabase) {}

  /** After a write of `model`: catch up soon, in the background. */
  written(model: Model): void {
    if (this.#closed || model.searchFields.length === 0 || this.#scheduled.has(model.name)) return;
    const timer = setTimeout(() => void this.#inBackground(model), DELAY_MS);
    timer.unref();
    this.#scheduled.set(model.name, timer);
  }

  /** Before a search of `model` on `executor`: the index takes every row marked so far. */
  async catchUp(executor: SqlExecutor, model: Model): Promise<void> {
    // No text field, no index: such a search matches nothing, and there is nothing to catch up.
    if (model.searchFields.length === 0) return;
    const statements = this.#of(model);
    if (executor.inTransaction) {
      // The transaction's own writes too; its rollback undoes the catching up with them.
      while (await this.#batch(executor, statements));
      return;
    }
    if (!(await this.#pending(statements))) return;
    while (await this.#batchAlone(model, statements));
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#scheduled.values()) clearTimeout(timer);
    this.#scheduled.clear();
  }

  async #inBackground(model: Model): Promise<void> {
    this.#scheduled.delete(model.name);
    const statements = this.#of(model);
    try {
      while (!this.#closed && (await this.#batchAlone(model, statements, BACKGROUND_BATCH))) await yieldToRequests();
    } catch {
      // The database is busy or gone: the marks stay, and the next search (or write) catches up.
    }
  }

  /** Whether anything is marked, read without the writer (most searches find nothing to do). */
  async #pending(statements: Statements): Promise<boolean> {
    const rows = await this.db.all<{ pending: number }>({ sql: statements.pending, parameters: [] });
    return Boolean(rows[0]?.pending);
  }

  /**
   * A batch in a transaction of its own, the first of this process for the model setting the
   * index's `deletemerge` in it (a setting the index keeps; set again by each process, in case
   * the index was rebuilt since). Not in a request's transaction, whose rollback would undo it;
   * counted as set once its transaction has committed.
   */
  async #batchAlone(model: Model, s: Statements, size?: number): Promise<boolean> {
    const tune = !this.#tuned.has(model.name);
    const more = await this.db.transaction(async (tx) => {
      if (tune) await tx.run({ sql: s.tune, parameters: [] });
      return this.#batch(tx, s, size);
    });
    if (tune) this.#tuned.add(model.name);
    return more;
  }

  /** One batch of up to `size` rows in the transaction `tx`; true when there may be more. */
  async #batch(tx: SqlExecutor, s: Statements, size = BATCH): Promise<boolean> {
    const mark = Number((await tx.all<{ n: number }>({ sql: s.mark, parameters: [] }))[0]?.n ?? 0);
    const stale = (await tx.all<{ changed: number }>({ sql: s.stale, parameters: [size] })).map((r) => r.changed);
    if (stale.length) {
      const keys = JSON.stringify(stale);
      await tx.run({ sql: s.unindex, parameters: [keys] });
      await tx.run({ sql: s.reindex, parameters: [keys, mark] });
      await tx.run({ sql: s.unmark, parameters: [keys] });
    }
    const last = (await tx.all<{ n: number | null }>({ sql: s.newRows, parameters: [mark, size] }))[0]?.n ?? null;
    if (last !== null) {
      await tx.run({ sql: s.index, parameters: [mark, last] });
      await tx.run({ sql: s.advance, parameters: [last] });
    }
    return stale.length === size || last !== null;
  }

  #of(model: Model): Statements {
    let statements = this.#statements.get(model.name);
    if (!statements) {
      statements = statementsOf(model);
      this.#statements.set(model.name, statements);
    }
    return statements;
  }
}

interface Statements {
  readonly pending: string;
  readonly mark: string;
  readonly stale: string;
  readonly unindex: string;
  readonly reindex: string;
  readonly unmark: string;
  readonly newRows: string;
  readonly index: string;
  readonly advance: string;
  readonly tune: string;
}

/** The SQL of one model's catching up (the names are src/plan/storage/search.ts's). */
function statementsOf(model: Model): Statements {
  const table = identifier(model.table);
  const fts = identifier(ftsTable(model.table));
  const stale = identifier(`${ftsTable(model.table)}_stale`);
  const columns = model.searchFields.map((name) => identifier(model.field(name)!.column!)).join(', ');
  const ftsColumns = model.searchFields.map((name) => identifier(ftsColumn(name))).join(', ');
  // This table's row of svc_search_state.
  const ownRow = `"name" = ${stringLiteral(model.table)}`;
  const mark = `(select "indexed_to" from "svc_search_state" where ${ownRow})`;
  const keys = `(select value from json_each(?))`;
  return {
    pending: `select exists (select 1 from ${stale}) or exists (select 1 from ${table} where rowid > ${mark}) as pending`,
    mark: `select ${mark} as n`,
    stale: `select "changed" from ${stale} order by "changed" limit ?`,
    unindex: `delete from ${fts} where rowid in ${keys}`,
    reindex: `insert into ${fts} (rowid, ${ftsColumns}) select rowid, ${columns} from ${table} where rowid in ${keys} and rowid <= ?`,
    unmark: `delete from ${stale} where "changed" in ${keys}`,
    newRows: `select max(rowid) as n from (select rowid from ${table} where rowid > ? order by rowid limit ?)`,
    index: `insert into ${fts} (rowid, ${ftsColumns}) select rowid, ${columns} from ${table} where rowid > ? and rowid <= ?`,
    advance: `update "svc_search_state" set "indexed_to" = ? where ${ownRow}`,
    // FTS5 takes its settings as an insert into the column named as the table.
    tune: `insert into ${fts} (${fts}, rank) values ('deletemerge', ${DELETE_MERGE_PERCENT})`,
  };
}
