/**
 * The webhook deliveries on SQLite and PostgreSQL (`svc_deliveries` and `svc_webhook_cursors`,
 * lib/outbox/schema.ts). Several instances may dispatch at once: fanning out holds the
 * subscription's cursor row (PostgreSQL: `for update`; SQLite has one writer at a time), and a
 * claim is one statement that leases rows nobody else holds (PostgreSQL: `skip locked`), so no
 * delivery is made twice and no two instances send the same one.
 *
 * Statements are written once with PostgreSQL's `$n` placeholders; `compile` turns them into
 * SQLite's `?`. On SQLite every write starts with insert/update/delete (its executor sends
 * `select`/`with` to a read-only connection) and gives its rows back with RETURNING.
 */
import type { Dialect } from '../values.js';
import type { Compiled, SqlDatabase, SqlExecutor } from '../sql/types.js';
import type { Delivery, DeliveryCounts, DeliveryStatus, DeliveryStore } from './types.js';

/** Rows per insert of deliveries (6 parameters each: well under both databases' limits). */
const INSERT_SLICE = 200;
/** `last_error` keeps this many characters: a receiver's whole error page is not needed. */
const ERROR_LENGTH = 500;

export class SqlDeliveryStore implements DeliveryStore {
  constructor(readonly sql: SqlDatabase) {}

  fanOut(subscription: string, matches: (type: string) => boolean, limit: number): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const cursor = await this.lockCursor(tx, subscription);
      const events = await tx.all<EventRow>(
        this.compile(
          // PostgreSQL's events not numbered yet (seq null) wait for the sequencer: the cursor is a
          // seq, and they have none.
          'select seq, id, type, model, pk from svc_events where seq > $1 and seq is not null order by seq limit $2',
          [cursor, limit],
        ),
      );
      if (events.length === 0) return 0;
      const made = await this.insertDeliveries(
        tx,
        subscription,
        events.filter((e) => matches(e.type)),
      );
      // Past the last event read, matching or not: the next fan-out starts after it.
      await tx.run(
        this.compile('update svc_webhook_cursors set seq = $1 where subscription = $2', [
          Number(events.at(-1)!.seq),
          subscription,
        ]),
      );
      return made;
    });
  }

  /**
   * The subscription's cursor, created at the latest event when it has none, held until the
   * transaction ends (PostgreSQL: a second instance fanning out waits here, then reads the moved cursor).
   */
  private async lockCursor(tx: SqlExecutor, subscription: string): Promise<number> {
    // `where true`: SQLite reads `on conflict` after a select without a where as a join's `on`.
    await tx.run(
      this.compile(
        `insert into svc_webhook_cursors (subscription, seq)
          select $1, coalesce(max(seq), 0) from svc_events where true
          on conflict (subscription) do nothing`,
        [subscription],
      ),
    );
    const lock = this.sql.dialect === 'postgres' ? ' for update' : '';
    const [row] = await tx.all<{ seq: unknown }>(
      this.compile(`select seq from svc_webhook_cursors where subscription = $1${lock}`, [subscription]),
    );
    return Number(row!.seq);
  }

  /** Inserts the deliveries of `events`, leaving those already made; returns how many are new. */
  private async insertDeliveries(tx: SqlExecutor, subscription: string, events: readonly EventRow[]): Promise<number> {
    const now = Date.now();
    let made = 0;
    for (let i = 0; i < events.length; i += INSERT_SLICE) {
      const parameters: unknown[] = [];
      const rows = events.slice(i, i + INSERT_SLICE).map((e) => {
        const at = parameters.length;
        parameters.push(subscription, Number(e.seq), e.id, e.type, `${e.model}:${e.pk}`, now);
        return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, 'pending', $${at + 6})`;
      });
      made += await tx.run(
        this.compile(
          `insert into svc_deliveries (subscription, seq, event_id, type, object, status, next_at)
            values ${rows.join(', ')} on conflict do nothing`,
          parameters,
        ),
      );
    }
    return made;
  }

  async claim(subscription: string, owner: string, now: number, leaseMs: number, limit: number): Promise<Delivery[]> {
    // Due, not leased, and the first pending delivery of its object (leased or not): an object's
    // events go out one at a time, in seq order. PostgreSQL: `offset 0` keeps the check a subquery
    // that probes svc_deliveries_object with this row's object; flattened into an anti-join, it was
    // planned (with statistics from before a backlog) to read every pending row for each row, and
    // a claim over a backlog of thousands took seconds.
    const fence = this.sql.dialect === 'postgres' ? ' offset 0' : '';
    const due = `select c.${this.sql.dialect === 'sqlite' ? 'rowid' : 'subscription, c.seq'} from svc_deliveries c
      where c.subscription = $1 and c.status = 'pending' and c.next_at <= $2 and c.lease_until < $2
        and not exists (select 1 from svc_deliveries e where e.subscription = $1
          and e.object = c.object and e.status = 'pending' and e.seq < c.seq${fence})
      order by c.seq limit $3`;
    const lease = 'lease_owner = $4, lease_until = $5';
    const parameters = [subscription, now, limit, owner, now + leaseMs];
    const statement =
      this.sql.dialect === 'sqlite'
        ? `update svc_deliveries set ${lease} where rowid in (${due}) returning *`
        : // Materialized, the rows are picked (and locked) once; skip locked: rows another
          // instance is leasing right now are left to it, not waited for.
          `with picked as materialized (${due} for update skip locked)
            update svc_deliveries d set ${lease} from picked
            where d.subscription = picked.subscription and d.seq = picked.seq returning d.*`;
    const rows = await this.sql.all<DeliveryRow>(this.compile(statement, parameters));
    return rows.map(delivery).sort((a, b) => a.seq - b.seq);
  }

  async delivered(subscription: string, seqs: readonly number[], now: number, status: number): Promise<void> {
    if (seqs.length === 0) return;
    const list = seqs.map((_, i) => `$${i + 4}`).join(', ');
    await this.sql.run(
      this.compile(
        `update svc_deliveries set status = 'delivered', done_at = $1, attempts = attempts + 1, last_status = $2,
          lease_owner = null, lease_until = 0 where subscription = $3 and seq in (${list})`,
        [now, status, subscription, ...seqs],
      ),
    );
  }

  async failed(
    subscription: string,
    seq: number,
    failure: { attempts: number; nextAt: number | null; error: string; status: number | null; now: number },
  ): Promise<void> {
    // Pending again at nextAt, or dead (its next_at left as it was: never read again).
    const outcome = failure.nextAt === null ? `status = 'dead', done_at = $1` : `status = 'pending', next_at = $1`;
    await this.sql.run(
      this.compile(
        `update svc_deliveries set ${outcome}, attempts = $2, last_error = $3, last_status = $4,
          lease_owner = null, lease_until = 0 where subscription = $5 and seq = $6`,
        [failure.nextAt ?? failure.now, failure.attempts, truncated(failure.error), failure.status, subscription, seq],
      ),
    );
  }

  async list(
    subscription: string,
    status: DeliveryStatus | undefined,
    page: { after?: number; limit: number },
  ): Promise<Delivery[]> {
    const rows = await this.sql.all<DeliveryRow>(
      this.compile(
        `select * from svc_deliveries where subscription = $1 and seq > $2${status ? ' and status = $4' : ''}
          order by seq limit $3`,
        [subscription, page.after ?? 0, page.limit, ...(status ? [status] : [])],
      ),
    );
    return rows.map(delivery);
  }

  async counts(subscription: string): Promise<DeliveryCounts> {
    const rows = await this.sql.all<{ status: string; n: unknown }>(
      this.compile('select status, count(*) as n from svc_deliveries where subscription = $1 group by status', [
        subscription,
      ]),
    );
    // No failure time is stored: the failure of the latest event still failing stands for the most
    // recent one; a delivery acknowledged since is no longer failing.
    const [last] = await this.sql.all<{ last_error: string }>(
      this.compile(
        `select last_error from svc_deliveries where subscription = $1 and last_error is not null
          and status <> 'delivered' order by seq desc limit 1`,
        [subscription],
      ),
    );
    const count = (status: DeliveryStatus) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    return {
      pending: count('pending'),
      delivered: count('delivered'),
      dead: count('dead'),
      lastError: last?.last_error ?? null,
    };
  }

  async retry(subscription: string, seq: number, now: number): Promise<boolean> {
    const changed = await this.sql.run(
      this.compile(`${AGAIN} where subscription = $2 and seq = $3`, [now, subscription, seq]),
    );
    return changed > 0;
  }

  retryDead(subscription: string, now: number): Promise<number> {
    return this.sql.run(this.compile(`${AGAIN} where subscription = $2 and status = 'dead'`, [now, subscription]));
  }

  prune(before: { delivered: number; dead: number }, limit: number): Promise<number> {
    const old = `select ${this.sql.dialect === 'sqlite' ? 'rowid' : 'subscription, seq'} from svc_deliveries
      where (status = 'delivered' and done_at < $1) or (status = 'dead' and done_at < $2) limit $3`;
    const key = this.sql.dialect === 'sqlite' ? 'rowid' : '(subscription, seq)';
    return this.sql.run(
      this.compile(`delete from svc_deliveries where ${key} in (${old})`, [before.delivered, before.dead, limit]),
    );
  }

  async lowestNeeded(): Promise<number | undefined> {
    const [row] = await this.sql.all<{ seq: unknown }>(
      this.compile(`select min(seq) as seq from svc_deliveries where status in ('pending', 'dead')`, []),
    );
    return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
  }

  private compile(sql: string, parameters: readonly unknown[]): Compiled {
    return compile(this.sql.dialect, sql, parameters);
  }
}

/** Due again now ($1), from its first attempt, by whichever instance claims it. */
const AGAIN = `update svc_deliveries set status = 'pending', attempts = 0, next_at = $1, done_at = null,
  lease_owner = null, lease_until = 0`;

/** `sql` with PostgreSQL's `$n`; on SQLite, `?`s given the parameters in the order they appear. */
function compile(dialect: Dialect, sql: string, parameters: readonly unknown[]): Compiled {
  if (dialect === 'postgres') return { sql, parameters };
  const ordered: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    ordered.push(parameters[Number(n) - 1]);
    return '?';
  });
  return { sql: text, parameters: ordered };
}

/** The first ERROR_LENGTH characters (code points: a surrogate pair is never cut in two). */
function truncated(error: string): string {
  return error.length <= ERROR_LENGTH ? error : Array.from(error).slice(0, ERROR_LENGTH).join('');
}

interface EventRow {
  seq: unknown;
  id: string;
  type: string;
  model: string;
  pk: string;
}

interface DeliveryRow {
  subscription: string;
  seq: unknown;
  event_id: string;
  type: string;
  object: string;
  status: DeliveryStatus;
  attempts: unknown;
  next_at: unknown;
  last_error: string | null;
  last_status: unknown;
  done_at: unknown;
}

/** A row as `Delivery` (PostgreSQL gives bigint columns as strings). */
function delivery(row: DeliveryRow): Delivery {
  return {
    subscription: row.subscription,
    seq: Number(row.seq),
    eventId: row.event_id,
    type: row.type,
    object: row.object,
    status: row.status,
    attempts: Number(row.attempts),
    nextAt: Number(row.next_at),
    lastError: row.last_error,
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    doneAt: row.done_at === null ? null : Number(row.done_at),
  };
}
