/**
 * The outbox on SQLite and PostgreSQL (tables in ./schema.ts). Appending runs on the write's own
 * executor, inside its transaction. SQLite numbers events as it appends them: one writer at a
 * time, so append order is commit order. PostgreSQL appends with no `seq`; `sequence` numbers
 * what has committed, in the order it became visible, so that a reader that has seen seq n never
 * sees a lower seq appear later.
 */
import type { Compiled, SqlDatabase, SqlExecutor } from '../sql/types.js';
import type { Dialect } from '../values.js';
import { eventData, eventIdentity, eventType, storedEvent } from './event.js';
import { SEQUENCER_LOCK } from './schema.js';
import type { EventLog, NewEvent, ServiceEvent } from './types.js';

/** Rows per insert statement (7 parameters each: well under SQLite's and PostgreSQL's limits). */
const APPEND_SLICE = 200;
/** Events the sequencer numbers per transaction. */
const SEQUENCE_BATCH = 5000;

/** Appends `events` on `executor` (inside the write's transaction). */
export async function appendSql(executor: SqlExecutor, events: readonly NewEvent[]): Promise<void> {
  // Nothing reads their results: on PostgreSQL they go with the COMMIT, one round trip fewer.
  for (let i = 0; i < events.length; i += APPEND_SLICE)
    await executor.runBeforeCommit(appendStatement(executor.dialect, events.slice(i, i + APPEND_SLICE)));
}

/** The insert of `events` (at most APPEND_SLICE). */
export function appendStatement(dialect: Dialect, events: readonly NewEvent[]): Compiled {
  const parameters: unknown[] = [];
  const rows = events.map((event) => {
    const { id, time } = eventIdentity();
    const at = parameters.length;
    parameters.push(id, eventType(event), event.model, event.pk, time, eventData(event));
    return `(${[1, 2, 3, 4, 5, 6].map((n) => placeholder(dialect, at + n)).join(', ')})`;
  });
  return { sql: `insert into svc_events (id, type, model, pk, time, data) values ${rows.join(', ')}`, parameters };
}

export class SqlEventLog implements EventLog {
  /** `render`: makes an event's object of what the write stored (lib/sql/recorded-writes.ts). */
  constructor(
    readonly sql: SqlDatabase,
    readonly render: (event: ServiceEvent) => ServiceEvent = (event) => event,
  ) {}

  async after(seq: number, limit: number): Promise<ServiceEvent[]> {
    const rows = await this.sql.all<Row>({
      sql: `select seq, id, type, time, data from svc_events where seq > ${this.p(1)} order by seq limit ${this.p(2)}`,
      parameters: [seq, limit],
    });
    return rows.map((row) => this.render(storedEvent(row)));
  }

  async bySeq(seqs: readonly number[]): Promise<ServiceEvent[]> {
    if (seqs.length === 0) return [];
    const list = seqs.map((_, i) => this.p(i + 1)).join(', ');
    const rows = await this.sql.all<Row>({
      sql: `select seq, id, type, time, data from svc_events where seq in (${list}) order by seq`,
      parameters: [...seqs],
    });
    return rows.map((row) => this.render(storedEvent(row)));
  }

  async createdAfter(model: string, pk: string, seq: number): Promise<number | undefined> {
    const types = [`${model}.create`, `${model}.register`];
    /** The object's creations, their parameters from `$n` on. */
    const of = (n: number) =>
      `model = ${this.p(n)} and pk = ${this.p(n + 1)} and type in (${this.p(n + 2)}, ${this.p(n + 3)})`;
    if (this.sql.dialect === 'postgres') {
      // Appended, not numbered yet: the partial index svc_events_unsequenced keeps this short.
      const [waiting] = await this.sql.all({
        sql: `select 1 from svc_events where seq is null and ${of(1)} limit 1`,
        parameters: [model, pk, ...types],
      });
      if (waiting) return Infinity;
    }
    const [row] = await this.sql.all<{ seq: unknown }>({
      sql: `select max(seq) as seq from svc_events where seq > ${this.p(1)} and ${of(2)}`,
      parameters: [seq, model, pk, ...types],
    });
    return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
  }

  async deletedBefore(model: string, pk: string, seq: number, within: number): Promise<ServiceEvent | undefined> {
    // By the seq's index, a range of `within` events at most.
    const [row] = await this.sql.all<Row>({
      sql: `select seq, id, type, time, data from svc_events where seq < ${this.p(1)} and seq >= ${this.p(2)} and type = ${this.p(3)} and pk = ${this.p(4)} order by seq desc limit 1`,
      parameters: [seq, seq - within, `${model}.delete`, pk],
    });
    return row ? this.render(storedEvent(row)) : undefined;
  }

  async oldest(): Promise<number | undefined> {
    const [row] = await this.sql.all<{ seq: unknown }>({
      sql: 'select min(seq) as seq from svc_events',
      parameters: [],
    });
    return row?.seq === null || row?.seq === undefined ? undefined : Number(row.seq);
  }

  async latest(): Promise<number> {
    const [row] = await this.sql.all<{ seq: unknown }>({
      sql: 'select max(seq) as seq from svc_events',
      parameters: [],
    });
    return row?.seq === null || row?.seq === undefined ? 0 : Number(row.seq);
  }

  async sequence(): Promise<number> {
    if (this.sql.dialect === 'sqlite') return 0;
    return this.sql.transaction(async (tx) => {
      // One sequencer at a time; another instance's turn is as good as this one's.
      const [lock] = await tx.all<{ ok: boolean }>({
        sql: `select pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) as ok`,
        parameters: [],
      });
      if (!lock?.ok) return 0;
      // In append order among what has committed: the events of one object were appended under
      // its row lock, so they are in order; events of different objects are numbered as they
      // became visible.
      return tx.run({
        sql: `with todo as (select pos from svc_events where seq is null order by pos limit ${SEQUENCE_BATCH}),
          base as (select coalesce(max(seq), 0) as top from svc_events),
          numbered as (select pos, row_number() over (order by pos) as n from todo)
          update svc_events e set seq = base.top + numbered.n from numbered, base where e.pos = numbered.pos`,
        parameters: [],
      });
    });
  }

  async prune(before: Date, limit: number, needed: number | undefined): Promise<number> {
    // The newest event stays too: PostgreSQL's sequencer numbers on from it.
    return this.sql.run({
      sql: `delete from svc_events where seq in (select seq from svc_events where seq < ${this.p(1)} and seq < (select max(seq) from svc_events) and time < ${this.p(2)} order by seq limit ${this.p(3)})`,
      parameters: [needed ?? Number.MAX_SAFE_INTEGER, before.toISOString(), limit],
    });
  }

  private p(n: number): string {
    return placeholder(this.sql.dialect, n);
  }
}

interface Row {
  seq: unknown;
  id: unknown;
  type: unknown;
  time: unknown;
  data: unknown;
}

function placeholder(dialect: Dialect, n: number): string {
  return dialect === 'sqlite' ? '?' : `$${n}`;
}
