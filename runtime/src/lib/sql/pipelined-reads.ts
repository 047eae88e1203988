/**
 * One PostgreSQL connection in node-postgres's pipeline mode, for the reads of one row by key
 * outside transactions (a GET of one object, the member a request's credentials name). Each
 * statement is written without waiting for the answers to those before it; PostgreSQL answers
 * them in order, each after its own Sync, so a failed statement fails alone. Under load many
 * are on the wire at once: the server reads and answers them in batches, and the service wakes
 * once per batch instead of once per statement. Against the pool, 20 callers reading by key
 * (`npm run bench -- pg-pipeline`; bench/RESULTS.md, "Reads by key on one pipelined connection"):
 * 7.2 µs of the service's CPU per read instead of 15.9, 14.5 µs of the machine's instead of 31.3.
 *
 * Only statements that cannot take long go here: a statement that waits (for a lock, for a big
 * scan) holds up every statement written after it. A read of one row by a unique key is answered
 * from its index and never waits for another transaction's row lock. Writes stay on the pool:
 * here each commit would wait for its own WAL flush, one after another, and a write waiting for
 * a row's lock would hold up every statement behind it.
 *
 * A connection that fails or ends is replaced at the next statement; the statements it carried
 * fail with its error (a 503, as for a lost pooled connection).
 */
import pg from 'pg';

/** Its name in pg_stat_activity, beside the pool's connections (a URL's own `application_name` wins). */
export const PIPELINED_READS_NAME = 'svcgen reads by key';

type Answered = (error: Error | undefined, result: pg.QueryResult) => void;

export class PipelinedReads {
  readonly #config: pg.ClientConfig;
  /** The connection, once it is up and until it is lost. */
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #closed = false;
  #holding = false;

  constructor(config: pg.ClientConfig) {
    this.#config = { application_name: PIPELINED_READS_NAME, ...config, pipeline: true };
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
    (client as unknown as { query(query: pg.Query, callback: Answered): unknown }).query(query, answered);
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
