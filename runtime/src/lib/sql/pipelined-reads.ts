/**
 * One PostgreSQL connection in node-postgres's pipeline mode, for quick reads outside
 * transactions: of one row by key (a GET of one object, the member a request's credentials name)
 * on one such connection, and of a page from an index on another (`Compiled.quickPage`). Each
 * statement is written without waiting for the answers to those before it; PostgreSQL answers
 * them in order, each after its own Sync, so a failed statement fails alone. Under load many
 * are on the wire at once: the server reads and answers them in batches, and the service wakes
 * once per batch instead of once per statement. Against the pool, 20 callers reading by key
 * (`npm run bench -- pg-pipeline`; bench/RESULTS.md, "Reads by key on one pipelined connection"):
 * 7.2 µs of the service's CPU per read instead of 15.9, 14.5 µs of the machine's instead of 31.3.
 * Pages of 20 with their kept total (bench/RESULTS.md, "Pages on a pipelined connection"): 115 µs
 * of the service's CPU and 51 of PostgreSQL's a page instead of 189 and 100.
 *
 * Only statements that cannot take long go here: a statement that waits (for a lock, for a big
 * scan) holds up every statement written after it. A read of one row by a unique key is answered
 * from its index and never waits for another transaction's row lock; a quick page reads at most
 * QUICK_PAGE_ROWS rows in an index's order. Should one take long all the same (a table locked by a
 * migration, a plan gone wrong), the connection is `stalled` once its oldest unanswered statement
 * is STALLED_AFTER_MS old, and statements go to the pool meanwhile: what waits behind it is
 * what was sent before that. Writes stay on the pool: here each commit would wait for its own
 * WAL flush, one after another, and a write waiting for a row's lock would hold up every
 * statement behind it.
 *
 * A connection that fails or ends is replaced at the next statement; the statements it carried
 * fail with its error (a 503, as for a lost pooled connection).
 */
import pg from 'pg';

/** Their names in pg_stat_activity, beside the pool's connections (a URL's own `application_name` wins). */
export const PIPELINED_READS_NAME = 'svcgen reads by key';
export const PIPELINED_PAGES_NAME = 'svcgen pages';

/** How long the oldest unanswered statement may wait before the connection counts as stalled. */
export const STALLED_AFTER_MS = 50;

type Answered = (error: Error | undefined, result: pg.QueryResult) => void;

export class PipelinedReads {
  readonly #config: pg.ClientConfig;
  /** The connection, once it is up and until it is lost. */
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #closed = false;
  #holding = false;
  /** When (performance.now()) each unanswered statement was sent, oldest first: answers come in that order. */
  readonly #sentAt: number[] = [];

  constructor(config: pg.ClientConfig, name = PIPELINED_READS_NAME) {
    this.#config = { application_name: name, ...config, pipeline: true };
  }

  /** Whether a statement sent now would wait behind one unanswered for STALLED_AFTER_MS or more: the pool's would not. */
  stalled(): boolean {
    return this.#sentAt.length > 0 && performance.now() - this.#sentAt[0]! >= STALLED_AFTER_MS;
  }

  /** Sends `query`; `answered` gets its result or its error. */
  send(query: pg.Query, answered: Answered): void {
    if (this.#closed) {
      // The pool's words for the same, which the service answers 503.
      process.nextTick(() => answered(new Error('Client was closed and is not queryable'), undefined!));
      return;
    }
    if (this.#client) {
      this.#sendOn(this.#client, query, answered);
      return;
    }
    this.#connected().then(
      (client) => this.#sendOn(client, query, answered),
      (error: Error) => answered(error, undefined!),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  #sendOn(client: pg.Client, query: pg.Query, answered: Answered): void {
    this.#holdWrites(client);
    this.#sentAt.push(performance.now());
    (client as unknown as { query(query: pg.Query, callback: Answered): unknown }).query(query, (error, result) => {
      this.#sentAt.shift();
      answered(error, result);
    });
  }

  /**
   * The statements sent in one turn of the event loop leave in one write: node-postgres writes each
   * statement as it comes (a system call, and a wake-up of the server, per statement), and the
   * requests answered in one turn send theirs one after another. The socket is held (corked) until
   * the turn's end (`setImmediate`), which comes before the loop waits for anything.
   */
  #holdWrites(client: pg.Client): void {
    if (this.#holding) return;
    const stream = (client as unknown as { connection: { stream: { cork(): void; uncork(): void } } }).connection
      .stream;
    this.#holding = true;
    stream.cork();
    setImmediate(() => {
      this.#holding = false;
      stream.uncork();
    });
  }

  /** A connection, opened at the first statement and after one is lost; the statements sent meanwhile share it. */
  #connected(): Promise<pg.Client> {
    this.#connecting ??= this.#opened().finally(() => (this.#connecting = undefined));
    return this.#connecting;
  }

  /**
   * Statements wait for the connection here, not in the client's queue: if it cannot connect,
   * they fail with the reason (a database that does not exist, a refused password), as the
   * pool's would, not with "Connection terminated".
   */
  async #opened(): Promise<pg.Client> {
    const client = new pg.Client(this.#config);
    let lost = false;
    const forget = () => {
      lost = true;
      if (this.#client === client) this.#client = undefined;
    };
    // A lost connection must not crash the process: its statements fail by themselves.
    client.on('error', forget);
    client.on('end', forget);
    try {
      await client.connect();
    } catch (error) {
      throw connectFailure(error as Error);
    }
    if (this.#closed || lost) {
      void client.end().catch(() => undefined);
      throw new Error(this.#closed ? 'Client was closed and is not queryable' : 'Connection terminated unexpectedly');
    }
    this.#client = client;
    return client;
  }
}

/** node-postgres's client says "timeout expired" where the pool says this, which the service answers 503. */
function connectFailure(error: Error): Error {
  return error.message === 'timeout expired'
    ? new Error('timeout exceeded when trying to connect', { cause: error })
    : error;
}
