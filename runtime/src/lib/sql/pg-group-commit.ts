/**
 * Group commit on PostgreSQL: the writes that stand alone (a write and its event in one statement,
 * recorded-writes.ts) and arrive in one turn of the event loop share one transaction on one pooled
 * connection, written at once: BEGIN, the writes, COMMIT, each with its own Sync (node-postgres's
 * pipeline mode), none waiting for the answer to the one before. Writes of one shape (creates of
 * one model with the same fields, say) are one statement there (merged-writes.ts).
 *
 * A transaction costs PostgreSQL far more than a small write: a backend woken for it, its snapshot
 * and commit, a statement-level trigger's set-up, the answer read back. Ten creates of
 * ramses-starter's Item cost the machine 133 µs each in ten transactions, 68 µs in one, 33 µs as
 * one statement (pgbench; bench/RESULTS.md, "Writes committed together on PostgreSQL").
 *
 * Each write still succeeds or fails as it would alone:
 * - Nobody hears of a write before its COMMIT is answered COMMIT: what is answered is committed.
 * - When any statement of the group fails, PostgreSQL undoes the whole transaction (COMMIT is
 *   answered ROLLBACK): each write then runs again alone, in a transaction of its own, and only
 *   one that fails alone fails. Alone it is the statement it was made as, its event's id its own.
 *   For `ALONE_AFTER_ROLLBACK_MS` after that, writes run alone: failures cannot make others pay twice.
 * - A group waits at most `GROUP_LOCK_TIMEOUT` for a row lock (another transaction's, or another
 *   group's in a deadlock), then its writes run alone, where each waits as long as it would have:
 *   a write that waits does not hold up the others of its turn for longer than that.
 * - A lost connection fails each write of the group with its error (a 503), as it fails a write
 *   on its own: whether the server committed before the loss cannot be known, and a write is never
 *   sent twice. Otherwise every statement sent was answered by the server.
 * - If BEGIN itself failed (on a connection that is still up), each statement ran on its own
 *   (autocommit), and its answer is its own.
 * - A change or a delete that a merged statement did not make runs alone after the COMMIT
 *   (merged-writes.ts says why).
 */
import pg from 'pg';
import { isRetryable, LentClient } from './pg-clients.js';
import type { Compiled, GroupedWrite, MergedWrites } from './types.js';

/** How long a group waits for a row lock before its writes run alone (SET LOCAL lock_timeout). */
export const GROUP_LOCK_TIMEOUT = '50ms';

/**
 * At most this many writes in one transaction; the rest go in the next group. A bigger group holds
 * its rows' locks longer, for little more saving.
 */
const MOST_PER_GROUP = 32;

const BEGIN = `begin; set local lock_timeout = '${GROUP_LOCK_TIMEOUT}'`;

/**
 * After a group is rolled back, writes run alone for this long. A group's writes that run again
 * alone cost twice: a client whose writes keep failing (a unique value taken, again and again)
 * could otherwise make every other client's write cost twice. So at most one group in this time
 * is undone, and the writes cost what they did before group commit meanwhile.
 */
export const ALONE_AFTER_ROLLBACK_MS = 100;

/** How a statement is sent on a client (prepared under its name), how a write runs alone, where clients come from. */
export interface GroupCommitDriver {
  readonly send: (client: pg.PoolClient, query: Compiled) => Promise<pg.QueryResult>;
  readonly alone: (query: Compiled) => Promise<pg.QueryResult>;
  readonly connect: () => Promise<pg.PoolClient>;
}

interface Queued {
  readonly query: Compiled;
  readonly grouped: GroupedWrite;
  readonly resolve: (result: pg.QueryResult) => void;
  readonly reject: (error: unknown) => void;
}

/** One statement of a group: a write as it is, or writes of one shape merged. */
type Unit = { readonly one: Queued } | { readonly many: readonly Queued[]; readonly merged: MergedWrites };

/** What node-postgres's client has beside its typed interface: its mode and its socket. */
interface ClientInternals {
  pipeline: boolean;
  readonly connection: { readonly stream: { cork(): void; uncork(): void } };
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** What the server answered to a group's BEGIN, statements and COMMIT. */
interface Outcome {
  readonly begin: Settled<unknown>;
  readonly answers: readonly Settled<pg.QueryResult>[];
  readonly commit: Settled<pg.QueryResult>;
}

export class PostgresGroupCommit {
  readonly #driver: GroupCommitDriver;
  #queued: Queued[] = [];
  #scheduled = false;
  /** The groups and lone writes sent and not settled yet (`drained` waits for them). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Until when (performance.now()) writes run alone, after a group was rolled back. */
  #aloneUntil = 0;

  constructor(driver: GroupCommitDriver) {
    this.#driver = driver;
  }

  /** Runs `query` (a write that stands alone: `grouped`) with the others of this turn; resolves once it is committed. */
  write(query: Compiled, grouped: GroupedWrite): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      this.#queued.push({ query, grouped, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Resolves once every write asked for so far is settled: before the pool ends, they are made. */
  async drained(): Promise<void> {
    while (this.#queued.length > 0 || this.#inFlight.size > 0) {
      if (this.#queued.length > 0) this.#flush();
      await Promise.allSettled(this.#inFlight);
    }
  }

  #flush(): void {
    const group = this.#queued.splice(0, MOST_PER_GROUP);
    this.#scheduled = this.#queued.length > 0;
    if (this.#scheduled) setImmediate(() => this.#flush());
    if (group.length === 1 || (group.length > 1 && performance.now() < this.#aloneUntil))
      for (const queued of group) this.#runAlone(queued);
    else if (group.length > 1) this.#track(this.#runTogether(group));
  }

  #track(work: Promise<unknown>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  /** The write as it was made, alone, unless its request's time is up (then it is not sent). */
  #runAlone({ query, grouped, resolve, reject }: Queued): void {
    try {
      grouped.inTime?.();
    } catch (error) {
      reject(error);
      return;
    }
    this.#track(this.#driver.alone(query).then(resolve, reject));
  }

  async #runTogether(group: readonly Queued[]): Promise<void> {
    let lent: LentClient;
    try {
      lent = new LentClient(await this.#driver.connect());
    } catch (error) {
      // No connection: each would have failed alone too.
      for (const { reject } of group) reject(error);
      return;
    }
    try {
      const units = unitsOf(group);
      const [begin, answers, commit] = await this.#sent(lent.client, units);
      this.#settle(group, units, { begin, answers, commit }, lent.lost);
    } catch (error) {
      // This code's own failure, not the database's: nobody is left waiting (a write already
      // settled stays so), and the connection, in a state nobody knows, is closed.
      lent.drop(error);
      for (const { reject } of group) reject(error);
    } finally {
      lent.giveBack();
    }
  }

  /** BEGIN, the units and COMMIT, written at once; their outcomes once all are answered. */
  async #sent(client: pg.PoolClient, units: readonly Unit[]) {
    const internals = client as unknown as ClientInternals;
    internals.pipeline = true;
    try {
      const { stream } = internals.connection;
      let answered;
      stream.cork();
      try {
        const begin = settled(client.query(BEGIN));
        const answers = units.map((unit) =>
          settled(this.#driver.send(client, 'one' in unit ? unit.one.query : unit.merged.statement)),
        );
        const commit = settled(client.query('commit'));
        answered = Promise.all([begin, Promise.all(answers), commit] as const);
      } finally {
        stream.uncork();
      }
      return await answered;
    } finally {
      // Every statement is answered (or the client is dropped): it goes back as it came.
      internals.pipeline = false;
    }
  }

  #settle(group: readonly Queued[], units: readonly Unit[], outcome: Outcome, lost: Error | undefined): void {
    const { begin, answers, commit } = outcome;
    if (commit.ok && commit.value.command === 'COMMIT') {
      // Committed: all together, or, had BEGIN failed, each statement by itself (COMMIT then only
      // warns that no transaction was open). A connection lost after it changes nothing.
      units.forEach((unit, i) => this.#settleUnit(unit, answers[i]!, !begin.ok));
      return;
    }
    if (lost || !(commit.ok || commit.error instanceof pg.DatabaseError)) {
      // The connection was lost, or COMMIT's answer is unknown: so is what the server did.
      const error = lost ?? (commit as { error: unknown }).error;
      for (const { reject } of group) reject(error);
      return;
    }
    // Rolled back, all of it (COMMIT answered ROLLBACK, or failed: a deferred constraint): each
    // runs again on its own, and so do the next writes for a while.
    this.#aloneUntil = performance.now() + ALONE_AFTER_ROLLBACK_MS;
    for (const queued of group) this.#runAlone(queued);
  }

  /** A unit's answer, committed with the group or, when `alone` (BEGIN failed), by itself. */
  #settleUnit(unit: Unit, answer: Settled<pg.QueryResult>, alone: boolean): void {
    if ('one' in unit) {
      if (answer.ok) unit.one.resolve(answer.value);
      else if (alone && isRetryable(answer.error)) this.#runAlone(unit.one);
      else unit.one.reject(answer.error);
      return;
    }
    if (!answer.ok) {
      // By itself, a merged statement that the server refused made nothing: each write runs
      // alone. Committed with the group, the server made it, and the error is the client's
      // (reading its rows): run again, the writes would be made twice.
      const refused = alone && answer.error instanceof pg.DatabaseError;
      for (const queued of unit.many) {
        if (refused) this.#runAlone(queued);
        else queued.reject(answer.error);
      }
      return;
    }
    let parts: ReturnType<MergedWrites['split']>;
    try {
      parts = unit.merged.split(answer.value.rows as Record<string, unknown>[]);
    } catch (error) {
      for (const queued of unit.many) queued.reject(error);
      return;
    }
    unit.many.forEach((queued, i) => {
      const rows = parts[i];
      if (rows) queued.resolve({ ...answer.value, rows, rowCount: rows.length });
      else this.#runAlone(queued);
    });
  }
}

/**
 * The group's statements: the writes of each shape merged, in chunks of a power of two (2, 4, 8…,
 * so that a shape has few statement texts to prepare), in the order of their first write.
 */
function unitsOf(group: readonly Queued[]): Unit[] {
  const byShape = new Map<string, Queued[]>();
  for (const queued of group) {
    const shape = queued.grouped.shape;
    const same = byShape.get(shape);
    if (same) same.push(queued);
    else byShape.set(shape, [queued]);
  }
  const units: Unit[] = [];
  for (const same of byShape.values()) {
    let at = 0;
    while (at < same.length) {
      const size = 2 ** Math.floor(Math.log2(same.length - at));
      const chunk = same.slice(at, at + size);
      at += size;
      if (chunk.length === 1) units.push({ one: chunk[0]! });
      else {
        const merged = chunk[0]!.grouped.merge(chunk.map((queued) => queued.grouped.parts));
        units.push({ many: chunk, merged });
      }
    }
  }
  return units;
}

function settled<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
