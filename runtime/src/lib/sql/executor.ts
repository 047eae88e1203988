/**
 * Runs compiled SQL. Kysely builds and compiles every query (see `compiler.ts`); executing it
 * here instead of through a Kysely driver lets SQLite reuse prepared statements and keeps reads
 * off a connection that is in the middle of another request's transaction.
 *
 * SQLite: one writer connection, used by one transaction at a time (an async lock), and one
 * reader connection for everything outside transactions, which sees committed data only (WAL);
 * the reads of one turn of the event loop share its read transaction (turn-snapshot.ts).
 * Writes outside a transaction that arrive in one turn of the event loop commit together.
 * PostgreSQL: a pool; a transaction holds one pooled client until it ends. Reads of one row by key
 * outside transactions share one pipelined connection, quick pages another (pipelined-reads.ts).
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ConfigError, DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config.js';
import { DatabaseBusy, TransactionEnded } from '../database.js';
import { startCheckpointer } from './checkpointer.js';
import { GroupCommit, isGroupable, rollback } from './group-commit.js';
import { isRetryable, LentClient } from './pg-clients.js';
import { PostgresGroupCommit } from './pg-group-commit.js';
import { PIPELINED_PAGES_NAME, PipelinedReads } from './pipelined-reads.js';
import { arrayRows, type RowMaker } from './sqlite-rows.js';
import { StatementNames } from './statement-names.js';
import { tableVersions } from './table-versions.js';
import { pgTableVersions } from './pg-table-versions.js';
import { addTextFold } from './text-fold.js';
import { TurnSnapshot } from './turn-snapshot.js';
import type { Compiled, SqlDatabase, SqlExecutor } from './types.js';

export type { Compiled, SqlDatabase, SqlExecutor } from './types.js';

export interface SqlOptions {
  /** Relative SQLite paths are resolved from here (service.ini's folder). */
  readonly root?: string;
  /** Called with every statement run (the service logs them at level debug). */
  readonly onQuery?: (sql: string) => void;
  /** PostgreSQL: how long to wait for a connection and for a statement (service.ini's database.*_timeout). */
  readonly timeouts?: DatabaseTimeouts;
}

export function openSql(url: string, options: SqlOptions = {}): SqlDatabase {
  if (url.startsWith('sqlite:'))
    return openSqlite(url.slice('sqlite:'.length), options.root ?? process.cwd(), options.onQuery);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options);
  throw new ConfigError(
    `database.url must start with sqlite: or postgres://, not "${url.replace(/:[^:@/]*@/, ':***@')}"`,
  );
}

// --- SQLite ---------------------------------------------------------------------------------------

function openSqlite(file: string, root: string, onQuery: ((sql: string) => void) | undefined): SqlDatabase {
  const memory = file === ':memory:' || file === '';
  const path = memory ? ':memory:' : resolve(root, file);
  // A new database is its owner's alone (password hashes, sessions, every object): 0600 in a
  // folder made 0700, whatever the umask. One that exists keeps the modes its owner gave it.
  const made = !memory && !existsSync(path);
  if (!memory) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const writer = new Database(path);
  if (made) chmodSync(path, 0o600);
  // First: processes opening one new file at once wait for each other while it turns to WAL.
  writer.pragma('busy_timeout = 5000');
  writer.pragma('journal_mode = WAL');
  writer.pragma('foreign_keys = ON');
  writer.pragma('synchronous = NORMAL');
  // An in-memory database exists only on its own connection.
  const reader = memory ? writer : new Database(path, { readonly: true });
  if (reader !== writer) reader.pragma('busy_timeout = 5000');
  // The reads of a turn share one read transaction (turn-snapshot.ts); every commit of the writer ends it.
  const snapshot = memory ? undefined : new TurnSnapshot(reader);
  const committed = (): void => snapshot?.end();
  // Checkpoints in a thread of their own (checkpointer.ts); an in-memory database has no WAL.
  const checkpointer = memory ? undefined : startCheckpointer(path, writer);
  const lock = new Lock();
  // Everything that holds the lock writes: once it is given back, a checkpoint is due.
  const acquireWriter = async (): Promise<() => void> => {
    const release = await lock.acquire();
    return () => {
      committed();
      release();
      checkpointer?.written();
    };
  };
  addTextFold(writer);
  if (reader !== writer) addTextFold(reader);
  const onWriter = new SqliteConnection(writer, onQuery);
  const onReader = new SqliteConnection(reader, onQuery);

  /**
   * One transaction's statements on the writer. Once it has ended they fail instead of running:
   * an event handler left running past its request's time (deadline.ts) would otherwise write
   * outside any transaction, or inside the next one.
   */
  const transactionOnWriter = (): { readonly tx: SqlExecutor; readonly end: () => void } => {
    let ended = false;
    const open = <T>(statement: () => T): Promise<T> =>
      ended ? Promise.reject(new TransactionEnded()) : Promise.resolve(statement());
    const tx: SqlExecutor = {
      dialect: 'sqlite',
      inTransaction: true,
      all: (q) => open(() => onWriter.all(q)),
      run: (q) => open(() => onWriter.run(q)),
      runBeforeCommit: (q) => open(() => void onWriter.run(q)),
      allThen: (q, then) => open(() => onWriter.allThen(q, then)),
      execute: (script) => open(() => void writer.exec(script)),
      // Nested transactions join the one that is running.
      transaction: (work) => (ended ? Promise.reject(new TransactionEnded()) : work(tx)),
    };
    return { tx, end: () => (ended = true) };
  };

  // Prepared once: every write is a transaction (its outbox event goes with it), and exec() would
  // parse the text each time.
  const begin = writer.prepare('BEGIN IMMEDIATE');
  const commit = writer.prepare('COMMIT');
  // A transaction on the writer; the caller holds the lock.
  const immediate = async <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const { tx, end } = transactionOnWriter();
    begin.run();
    try {
      const result = await work(tx);
      end();
      commit.run();
      committed();
      return result;
    } catch (error) {
      end();
      rollback(writer);
      throw error;
    }
  };

  // Two statements in one turn: a transaction with no await inside.
  const both = <R>(q: Compiled, then: (rows: R[]) => Compiled | undefined): R[] => {
    begin.run();
    try {
      const rows = onWriter.allThen(q, then);
      commit.run();
      committed();
      return rows;
    } catch (error) {
      rollback(writer);
      throw error;
    }
  };

  // Writes outside a transaction commit with the others of their turn (group-commit.ts).
  const groups = new GroupCommit(writer, acquireWriter);

  // The writer for the caller, after the writes queued before it asked (group-commit.ts).
  const writerLock = (): Promise<() => void> => {
    groups.takeWriterFirst();
    return acquireWriter();
  };

  // A statement that must not share a transaction, and any read of an in-memory database: on the
  // writer, between transactions. One statement is a transaction by itself (autocommit).
  const autocommit = async <T>(statement: () => T): Promise<T> => {
    const release = await writerLock();
    try {
      return statement();
    } finally {
      release();
    }
  };

  const write = <T>(sql: string, statement: () => T): Promise<T> =>
    isGroupable(sql) ? groups.write({ inGroup: statement, alone: statement }) : autocommit(statement);

  // Inside `withoutForeignKeys`, which holds the lock: every statement on the writer.
  const alone: SqlExecutor = {
    dialect: 'sqlite',
    inTransaction: false,
    all: (q) => immediate(async (tx) => tx.all(q)),
    run: (q) => immediate(async (tx) => tx.run(q)),
    runBeforeCommit: (q) => immediate(async (tx) => void (await tx.run(q))),
    allThen: (q, then) => Promise.resolve(both(q, then)),
    execute: (script) => immediate(async (tx) => tx.execute(script)),
    transaction: immediate,
  };

  const db: SqlDatabase = {
    dialect: 'sqlite',
    inTransaction: false,
    // Reads go to the reader. Writes, and reads of an in-memory database (which has one
    // connection), wait for the running transaction: on the writer's connection they would join
    // it, or see what it has not committed.
    all: async (q) => {
      if (!isRead(q.sql)) return write(q.sql, () => onWriter.all(q));
      if (memory) return autocommit(() => onWriter.all(q));
      snapshot?.enter();
      return onReader.all(q);
    },
    run: (q) => write(q.sql, () => onWriter.run(q)),
    runBeforeCommit: (q) => write(q.sql, () => void onWriter.run(q)),
    allThen: (q, then) => groups.write({ inGroup: () => onWriter.allThen(q, then), alone: () => both(q, then) }),
    execute: (script) => db.transaction(async (tx) => tx.execute(script)),
    async transaction(work) {
      const release = await writerLock();
      try {
        return await immediate(work);
      } finally {
        release();
      }
    },
    async withoutForeignKeys(work) {
      const release = await writerLock();
      try {
        writer.pragma('foreign_keys = OFF');
        return await work(alone);
      } finally {
        try {
          writer.pragma('foreign_keys = ON');
        } finally {
          release();
        }
      }
    },
    ping() {
      reader.prepare('select 1').get();
      return Promise.resolve();
    },
    tableVersion: tableVersions(writer, committed),
    // After the writes asked for before it (a background task's last one, queued for the end of
    // the turn): they are made, not refused for a closed connection.
    async close() {
      const release = await writerLock();
      try {
        // Before the connections: the writer, closing last, checkpoints what is left and removes the WAL.
        await checkpointer?.close();
        committed();
        if (reader !== writer) reader.close();
        writer.close();
      } finally {
        release();
      }
    },
  };
  return db;
}

function isRead(sql: string): boolean {
  return /^\s*(select|with)\b/i.test(sql);
}

/**
 * Whether a statement's columns stay the ones it had when prepared: it has no `*` but `count(*)`.
 * SQLite prepares a statement again after a schema change, and a `select *` then has the table's
 * columns as they are now (another number, in another order): its rows stay better-sqlite3's objects.
 */
function namesItsColumns(sql: string): boolean {
  return !sql.replace(/count\(\*\)/gi, '').includes('*');
}

/** A prepared statement; most readers' rows come as arrays, made objects by `rows` (./sqlite-rows.ts). */
interface Prepared {
  readonly statement: Database.Statement;
  readonly rows: RowMaker | undefined;
}

class SqliteConnection {
  readonly #statements = new Map<string, Prepared>();

  constructor(
    readonly db: Database.Database,
    readonly onQuery: ((sql: string) => void) | undefined,
  ) {}

  prepared(sql: string): Prepared {
    this.onQuery?.(sql);
    let prepared = this.#statements.get(sql);
    if (!prepared) {
      const statement = this.db.prepare(sql);
      prepared = { statement, rows: statement.reader && namesItsColumns(sql) ? arrayRows(statement) : undefined };
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, prepared);
    }
    return prepared;
  }

  all<R>(q: Compiled): R[] {
    const { statement, rows } = this.prepared(q.sql);
    if (rows) return rows(statement.all(...(q.parameters as unknown[])) as unknown[][]) as R[];
    if (statement.reader) return statement.all(...(q.parameters as unknown[])) as R[];
    statement.run(...(q.parameters as unknown[]));
    return [];
  }

  run(q: Compiled): number {
    return this.prepared(q.sql).statement.run(...(q.parameters as unknown[])).changes;
  }

  allThen<R>(q: Compiled, then: (rows: R[]) => Compiled | undefined): R[] {
    const rows = this.all<R>(q);
    const next = then(rows);
    if (next) this.run(next);
    return rows;
  }
}

/** A FIFO async lock: one holder at a time. */
export class Lock {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => next);
    return ready;
  }
}

// --- PostgreSQL -----------------------------------------------------------------------------------

// int8, numeric, date, time, timestamp, timestamptz, json, jsonb: as text, converted by values.ts
// (a json value that is a string, parsed by the driver, could not be told from its text).
const RAW_TYPES = new Set([20, 1700, 1082, 1083, 1114, 1184, 114, 3802]);
/** The parser of those: one function, not a new one for each column of each result the driver reads. */
const asText = (value: string): string => value;

const TRANSACTION_ATTEMPTS = 4;

/**
 * A deadlock or a serialization failure undoes the whole transaction; PostgreSQL's advice is to
 * run it again. A few times, after a short random pause; any other error is the caller's.
 */
async function retried<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= TRANSACTION_ATTEMPTS || !isRetryable(error)) throw error;
      await sleep(Math.random() * 20 * n);
    }
  }
}

type Answered = (error: Error | undefined, result: pg.QueryResult) => void;
/** Whatever takes a query and answers it: the pool, a client, the pipelined connection. */
type Sender = (query: pg.Query, answered: Answered) => void;

/** The pool's and a client's: given a query of its own, a client returns it, not a promise, so a callback for both. */
function senderOf(client: pg.Pool | pg.PoolClient): Sender {
  const taker = client as unknown as { query(query: pg.Query, callback: Answered): unknown };
  return (query, answered) => void taker.query(query, answered);
}

/**
 * Sends a statement, prepared under `name` when it has one. The query is made of its text, its
 * name set after: node-postgres copies a query given as a config object property by property, by
 * descriptors (1.0 µs a statement, against 0.04 µs for this; bench/RESULTS.md, "Two costs of the
 * drivers, per statement").
 */
function sentQuery(
  send: Sender,
  text: string,
  values: readonly unknown[],
  name: string | undefined,
): Promise<pg.QueryResult> {
  const query = new pg.Query(text, values as unknown[]);
  if (name) (query as { name?: string }).name = name;
  return new Promise<pg.QueryResult>((resolve, reject) => {
    send(query, (error, result) => (error ? reject(error) : resolve(result)));
  }).catch((error: Error) => {
    // Its stack was the socket's reader: made again here, it goes back to the statement's callers
    // (async frames), as node-postgres's own promises do.
    Error.captureStackTrace(error);
    throw error;
  });
}

/**
 * COMMIT, after `lastly` (statements with their values written in: one simple query, one round
 * trip). Its answer is the COMMIT's (the last of the query's results). The log gets the
 * statements with their placeholders: never a value a client sent. COMMIT of a transaction that
 * a failed statement aborted is answered ROLLBACK, not an error (PostgreSQL undoes all of it,
 * whatever the caller did with the statement's error): nothing was saved, so the caller must not
 * be told it was.
 */
async function commit(
  client: pg.PoolClient,
  lastly: readonly Compiled[],
  onQuery: ((sql: string) => void) | undefined,
): Promise<void> {
  for (const q of lastly) onQuery?.(q.sql);
  const text = [...lastly.map((q) => inlined(client, q)), 'COMMIT'].join(';\n');
  const answer = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
  const { command } = Array.isArray(answer) ? answer.at(-1)! : answer;
  if (command !== 'COMMIT') {
    throw new Error(
      'the transaction was rolled back, nothing of it was saved: one of its statements failed and its error was caught (PostgreSQL then undoes the whole transaction)',
    );
  }
}

/**
 * A statement with its `$n` parameters written in as literals (strings quoted by the driver, which
 * knows the server's quoting rules), for a simple query that carries several statements.
 */
function inlined(client: pg.PoolClient, q: Compiled): string {
  return q.sql.replace(/\$(\d+)/g, (_, n: string) => literal(client, q.parameters[Number(n) - 1]));
}

function literal(client: pg.PoolClient, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return client.escapeLiteral(value);
  // The outbox's statements carry only text and numbers.
  throw new Error(`cannot write a ${typeof value} into a statement as a literal`);
}

/** A transaction on a pooled client: the statements that go with its COMMIT, and whether it has ended. */
interface OpenTransaction {
  readonly lastly: Compiled[];
  ended: boolean;
}

/** The pool's connections; with the two pipelined ones, what an instance holds (docs/reliability.md). */
const POOL_SIZE = 10;
/** What node-postgres's pool says when it gave no connection within `connectionTimeoutMillis`. */
const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

function openPostgres(url: string, { onQuery, timeouts = DATABASE_TIMEOUTS }: SqlOptions): SqlDatabase {
  const connection: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: timeouts.connect,
    // The server cancels a statement that runs longer (57014, a 503); keep-alive notices a server
    // that is gone without closing the connection.
    statement_timeout: timeouts.query,
    keepAlive: true,
    options: '-c TimeZone=UTC',
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        RAW_TYPES.has(oid) ? asText : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  };
  const pool = new pg.Pool({ ...connection, max: POOL_SIZE });
  // node-postgres's pool says one thing when no connection could be made in time and when every
  // connection stayed lent that long: the second is the service's own load (a probe's 40 bulk
  // changes of huge rows at once), not a database that does not answer.
  const busyOrSame = (error: Error): Error =>
    error.message === POOL_TIMEOUT && pool.totalCount >= POOL_SIZE ? new DatabaseBusy(error) : error;
  const connected = (): Promise<pg.PoolClient> =>
    pool.connect().catch((error: Error) => {
      throw busyOrSame(error);
    });
  // What runs on the pool outside a transaction (a read, a lone write): it connects for each statement.
  const poolSend = senderOf(pool);
  const sendOnPool: Sender = (query, answered) =>
    poolSend(query, (error, result) => answered(error && busyOrSame(error), result));
  const pipelined = new PipelinedReads(connection);
  const pages = new PipelinedReads(connection, PIPELINED_PAGES_NAME);
  const sendPipelined: Sender = (query, answered) => pipelined.send(query, answered);
  const sendPage: Sender = (query, answered) => pages.send(query, answered);
  // A connection the server drops is replaced by the pool; it must not crash the process.
  pool.on('error', () => undefined);
  // Nor one the server ends as it is made: its error can come in the packet that made it ready, and
  // node-postgres emits it before the borrower (a LentClient) listens. A probe's service exited so
  // under pg_terminate_backend. Its statements fail by themselves, and the pool drops it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Statements are prepared once per connection under a name, except those planned each time.
  const names = new StatementNames();
  const sent = (send: Sender, q: Compiled): Promise<pg.QueryResult> => {
    onQuery?.(q.sql);
    return sentQuery(send, q.sql, q.parameters, names.nameOf(q.sql));
  };
  // One-statement writes outside transactions commit with the others of their turn (pg-group-commit.ts).
  const groups = new PostgresGroupCommit({
    send: (client, q) => sent(senderOf(client), q),
    alone: (q) => retried(() => sent(sendOnPool, q)),
    connect: connected,
  });
  /** `open`: the transaction the statements are in, on `client` (none: each on the pool). */
  const on = (client: pg.Pool | pg.PoolClient, open?: OpenTransaction): SqlExecutor => {
    const transaction = open !== undefined;
    const lastly = open?.lastly;
    // Once the transaction has ended its client is another's: nothing more is sent on it (an
    // event handler left running past its request's time, deadline.ts).
    const ended = () => open?.ended === true;
    const send = client === pool ? sendOnPool : senderOf(client);
    // A statement on its own is a transaction of its own: run again like one (in a transaction,
    // the whole transaction runs again instead). A read of one row by key on its own takes the
    // pipelined connection, a quick page the one for pages, unless it is stalled (pipelined-reads.ts).
    const query = (q: Compiled) => {
      if (ended()) return Promise.reject(new TransactionEnded());
      if (transaction) return sent(send, q);
      if (q.grouped) return groups.write(q, q.grouped);
      const sender =
        q.oneByKey && !pipelined.stalled() ? sendPipelined : q.quickPage && !pages.stalled() ? sendPage : send;
      return retried(() => sent(sender, q));
    };
    const executor: SqlExecutor = {
      dialect: 'postgres',
      inTransaction: transaction,
      all: async <R>(q: Compiled) => (await query(q)).rows as R[],
      run: async (q) => (await query(q)).rowCount ?? 0,
      runBeforeCommit: async (q) => {
        if (ended()) throw new TransactionEnded();
        if (lastly) lastly.push(q);
        else await query(q);
      },
      allThen: <R>(q: Compiled, then: (rows: R[]) => Compiled | undefined) =>
        executor.transaction(async (tx) => {
          const rows = await tx.all<R>(q);
          const next = then(rows);
          if (next) await tx.runBeforeCommit(next);
          return rows;
        }),
      execute: async (script) => {
        if (ended()) throw new TransactionEnded();
        await client.query(script);
      },
      // Nested transactions join the one that is running.
      transaction: (work) =>
        ended() ? Promise.reject(new TransactionEnded()) : transaction ? work(executor) : db.transaction(work),
    };
    return executor;
  };
  const once = async <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
    const lent = new LentClient(await connected());
    const { client } = lent;
    try {
      await client.query('BEGIN');
      const open: OpenTransaction = { lastly: [], ended: false };
      try {
        const result = await work(on(client, open));
        open.ended = true;
        await commit(client, open.lastly, onQuery);
        return result;
      } catch (error) {
        open.ended = true;
        // A ROLLBACK that failed may have left the transaction open.
        await client.query('ROLLBACK').catch((failed: unknown) => lent.drop(failed));
        throw error;
      }
    } finally {
      lent.giveBack();
    }
  };
  const db: SqlDatabase = {
    ...on(pool),
    transaction: (work) => retried(() => once(work)),
    withoutForeignKeys: (work) => work(db),
    // Read on the pipelined connection: one row by key, and the catalog's triggers of a few tables.
    tableVersion: pgTableVersions({
      read: async (q) => (await retried(() => sent(sendPipelined, q))).rows as Record<string, unknown>[],
      // In a transaction of its own: its `set local lock_timeout` holds for it alone.
      execute: (script) => db.transaction((tx) => tx.execute(script)),
    }),
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      // The writes asked for before are made, not refused for a closed pool.
      await groups.drained();
      await Promise.all([pool.end(), pipelined.close(), pages.close()]);
    },
  };
  return db;
}
