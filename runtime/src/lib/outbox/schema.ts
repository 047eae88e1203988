/**
 * The outbox's own tables (collections on MongoDB), created by the runtime at start-up and by
 * `npm run migrate`, apart from the models' migrations: they belong to the service, not to the API.
 *
 * - `svc_events`: the events, by `seq`. SQLite gives `seq` at append (one writer at a time: append
 *   order is commit order): the rowid, one more than the highest, never reused because pruning
 *   keeps the newest event (not AUTOINCREMENT, whose counter row is one more page in every
 *   commit; tables made with it keep it). PostgreSQL's transactions commit in any order, so an event is appended
 *   with `pos` (append order) and no `seq`, and the sequencer (`EventLog.sequence`) gives committed
 *   events their `seq` in the order they became visible, one sequencer at a time (an advisory
 *   lock). MongoDB: `_id` is the seq, taken from the one document of `svc_event_sequence` in the
 *   write's transaction (a collection of its own: the models' key counters in `svc_counters` are
 *   taken outside transactions, and must not wait on it).
 *   On PostgreSQL the unique index of `seq` leaves out the events not numbered yet: an append
 *   is one index entry fewer (a table made with `seq bigint unique` keeps that constraint, the
 *   same rule, and gets no second index).
 *   `id` is a random UUID, unique by construction and never looked up: no index keeps it (one
 *   more B-tree insert per write, at a random place).
 * - `svc_deliveries`: one row per subscription and event it matched (lib/webhooks/types.ts).
 * - `svc_webhook_cursors`: per subscription, the last seq fanned out into deliveries.
 */
import type { Dialect } from '../values.js';

export const EVENTS = 'svc_events';
export const DELIVERIES = 'svc_deliveries';
export const CURSORS = 'svc_webhook_cursors';
/** MongoDB: the collection of the one counter document (`_id: 'seq'`) whose `seq` the events take. */
export const EVENT_SEQUENCE = 'svc_event_sequence';
/** PostgreSQL: the advisory lock the sequencer holds while it numbers events. */
export const SEQUENCER_LOCK = 7_263_580_101;

const SQLITE_EVENTS = `
create table if not exists svc_events (
  seq integer primary key,
  id text not null,
  type text not null,
  model text not null,
  pk text not null,
  time text not null,
  data text not null
);`;

const POSTGRES_EVENTS = `
create table if not exists svc_events (
  pos bigserial primary key,
  seq bigint,
  id text not null,
  type text not null,
  model text not null,
  pk text not null,
  time text not null,
  data jsonb not null
);
do $$ begin
  if not exists (select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
                 where i.indrelid = to_regclass('svc_events') and i.indisunique and i.indnatts = 1
                 and a.attname = 'seq') then
    create unique index svc_events_seq on svc_events (seq) where seq is not null;
  end if;
end $$;
create index if not exists svc_events_unsequenced on svc_events (pos) where seq is null;`;

/** The deliveries and cursors, alike on both; `big` is the type of seqs and epoch milliseconds. */
const deliveries = (big: 'integer' | 'bigint') => `
create table if not exists svc_deliveries (
  subscription text not null,
  seq ${big} not null,
  event_id text not null,
  type text not null,
  object text not null,
  status text not null default 'pending',
  attempts integer not null default 0,
  next_at ${big} not null,
  lease_owner text,
  lease_until ${big} not null default 0,
  last_error text,
  last_status integer,
  done_at ${big},
  primary key (subscription, seq)
);
create index if not exists svc_deliveries_due on svc_deliveries (subscription, status, next_at);
create index if not exists svc_deliveries_object on svc_deliveries (subscription, object, seq) where status = 'pending';
create index if not exists svc_deliveries_done on svc_deliveries (status, done_at);
create index if not exists svc_deliveries_pending on svc_deliveries (subscription, seq) where status = 'pending';
create table if not exists svc_webhook_cursors (
  subscription text primary key,
  seq ${big} not null
);
`;

/** The script that creates the outbox's tables when they are missing (run on every start: idempotent). */
export function outboxSchema(dialect: Dialect): string {
  return dialect === 'sqlite' ? SQLITE_EVENTS + deliveries('integer') : POSTGRES_EVENTS + deliveries('bigint');
}
