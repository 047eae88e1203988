/**
 * PostgreSQL: a write and its event in one statement,
 *
 *   with w as (<insert | update | delete> … returning <columns>),
 *        e as (insert into svc_events (…) select …, <the row as JSON> from w)
 *   select * from w
 *
 * one round trip, all or nothing, where BEGIN, the write, and the event's insert with COMMIT were
 * three. The event's `data` is then the row as stored, `{ pk, row, links }`: secrets and hidden
 * fields left out, and for a create the relationships kept in other tables, which it has none of
 * yet (`emptyLinks`). The log makes the event's object of it when it is read (`storedRecord`),
 * with the conversions of every read, so it is the object the transaction path records
 * (lib/outbox/event.ts).
 *
 * Values are written as the driver gives them, as text (`::text`: the same output function, in
 * the same session time zone; json too, which the executor reads as text), booleans as they are,
 * blobs as base64: `fromDb` reads either alike.
 */
import type { FieldSpec, Model, ModelRegistry } from '../model.js';
import { eventIdentity } from '../outbox/event.js';
import type { EventAction } from '../outbox/types.js';
import { fromDb } from '../values.js';
import type { Compiled } from './executor.js';
import { identifier, stringLiteral } from './quoting.js';

type Rec = Record<string, unknown>;

/** What a stored row's event data holds (see above); the transaction path stores `{ pk, object }`. */
export interface StoredRow {
  readonly pk: string;
  readonly row: Rec;
  readonly links: Rec;
}

/** PostgreSQL's limit on a function's arguments: `jsonb_build_object` takes 50 pairs at most. */
const PAIRS_PER_CALL = 50;

/** `write` (its SQL returning the model's columns) with the event of `action` appended in it. */
export function withEvent(models: ModelRegistry, model: Model, action: EventAction, write: Compiled): Compiled {
  const { id, time } = eventIdentity();
  const at = write.parameters.length;
  const sql = wrapped(models, model, action, write.sql, at);
  return { sql, parameters: [...write.parameters, id, `${model.name}.${action}`, model.name, time] };
}

/**
 * The wrapped SQL, made once per model and statement (the statements are themselves cached shapes).
 * Keyed by the statement alone: what it adds depends on the action only for a create (its empty
 * links), whose statement is an insert, never another action's.
 */
const wrappedSql = new WeakMap<Model, Map<string, string>>();

function wrapped(models: ModelRegistry, model: Model, action: EventAction, write: string, at: number): string {
  let cache = wrappedSql.get(model);
  if (!cache || cache.size > 1000) wrappedSql.set(model, (cache = new Map()));
  let sql = cache.get(write);
  if (!sql) {
    const p = (n: number) => `$${at + n}`;
    const event = { id: p(1), type: p(2), model: p(3), time: p(4) };
    sql = `with w as (${write}), ${eventsOfRows(models, model, action, event)} select * from w`;
    cache.set(write, sql);
  }
  return sql;
}

/** SQL of the values an event is given besides its row: parameters, or an expression. */
export interface EventValues {
  readonly id: string;
  readonly type: string;
  readonly model: string;
  readonly time: string;
}

/** `e as (insert into svc_events … from w)`: the event of each row of `w`, a model's written rows. */
export function eventsOfRows(models: ModelRegistry, model: Model, action: EventAction, values: EventValues): string {
  const pk = `(w.${identifier(keyColumn(model))})::text`;
  const data = `jsonb_build_object('pk', ${pk}, 'row', ${rowJson(model)}, 'links', ${linksJson(models, model, action)})`;
  return (
    `e as (insert into svc_events (id, type, model, pk, time, data) ` +
    `select ${values.id}, ${values.type}, ${values.model}, ${pk}, ${values.time}, ${data} from w)`
  );
}

/** The row's columns an admin may read, each as `fromDb` takes it. */
function rowJson(model: Model): string {
  const pairs = model.columns
    .filter((f) => f.primaryKey || (!f.secret && !model.hiddenFields.includes(f.name)))
    .map((f) => `${stringLiteral(f.column!)}, ${columnJson(f)}`);
  // The to-one relationships kept in this table are columns too (foreign keys).
  return objectOf(pairs);
}

function columnJson(field: FieldSpec): string {
  const column = `w.${identifier(field.column!)}`;
  switch (field.storage) {
    case 'boolean':
      return column;
    case 'blob':
      return `translate(encode(${column}, 'base64'), E'\\n', '')`;
    default:
      return `(${column})::text`;
  }
}

/**
 * What a create's event names of the relationships kept in other tables: none yet (an update or a
 * delete of a model that has any takes a transaction: SqlRepository.recordedWrites). Hidden
 * relationships are left out, as from every event.
 */
export function emptyLinks(models: ModelRegistry, model: Model): Rec {
  const links: Rec = {};
  for (const relation of model.relations) {
    if (relation.local || !models.get(relation.target) || model.hiddenFields.includes(relation.name)) continue;
    links[relation.name] = relation.cardinality === 'many' ? [] : null;
  }
  return links;
}

function linksJson(models: ModelRegistry, model: Model, action: EventAction): string {
  const links = action === 'create' ? emptyLinks(models, model) : {};
  return `${stringLiteral(JSON.stringify(links))}::jsonb`;
}

function objectOf(pairs: readonly string[]): string {
  if (pairs.length === 0) return `'{}'::jsonb`;
  const calls: string[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL)
    calls.push(`jsonb_build_object(${pairs.slice(i, i + PAIRS_PER_CALL).join(', ')})`);
  return calls.join(' || ');
}

/**
 * The record a stored row stands for, as a read would make it: own fields and the to-one
 * relationships kept in the row (`rowRecord`, the repository's conversion), the other
 * relationships from their keys.
 */
export function storedRecord(
  models: ModelRegistry,
  model: Model,
  stored: StoredRow,
  rowRecord: (row: Rec) => Rec,
): Rec {
  const record = rowRecord(stored.row);
  for (const [name, keys] of Object.entries(stored.links)) {
    const target = models.get(model.relation(name)?.target ?? '');
    const keyField = target?.field(target.primaryKey);
    if (!keyField) continue;
    record[name] = Array.isArray(keys) ? keys.map((k) => fromDb(k, keyField)) : fromDb(keys, keyField);
  }
  return record;
}

export function isStoredRow(data: unknown): data is StoredRow {
  return typeof data === 'object' && data !== null && 'row' in data && 'links' in data;
}

function keyColumn(model: Model): string {
  return model.field(model.primaryKey)!.column!;
}
