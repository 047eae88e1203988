/**
 * PostgreSQL: writes of one shape that commit together (pg-group-commit.ts) made one statement,
 * with their events. PostgreSQL then parses, plans, starts, triggers and answers one statement
 * where it did each of them: ten creates of ramses-starter's Item in one statement cost the machine
 * 33 µs each, in ten statements of one transaction 68 µs, in ten transactions 133 µs (pgbench;
 * bench/RESULTS.md, "Writes committed together on PostgreSQL").
 *
 *   creates  with w as (insert into t (c…) values ($1, $2), ($3, $4) returning …), e as (…) select * from w
 *   changes  with w as (update t as svc_t set c = svc_v.c0 from (values (…), (0, $1, $2), (1, $3, $4))
 *              as svc_v (n, c0, k) where svc_t.k = svc_v.k returning svc_v.n, …), e as (…) select * from w
 *   deletes  the same, as `delete from t as svc_t using (values …) … returning svc_v.n, …`
 *
 * Each write is the statement it would be alone (repository.ts's insertOf, updateOf and deleteOf:
 * the same table, columns, values and key, and nothing else; a change to those changes this too).
 * A multi-row insert returns its rows in the order of its VALUES, which is how each create gets
 * its own row back (Django's bulk_create relies on the same on PostgreSQL). A change or a delete
 * returns its number in the list.
 *
 * A statement changes a row at most once: when two writes of one statement name the same row
 * (one key twice, or spelt two ways, `5` and `05`), one of them changes it and the other returns
 * nothing. So a change or a delete that returns no row is not answered "not found" from here: it
 * runs again alone after the COMMIT (`split` gives it `undefined`), and is answered what it does
 * then. Keys are not compared here for that reason: only PostgreSQL knows which spellings are one.
 *
 * An event made here gets its id from PostgreSQL (`gen_random_uuid()`, a UUID v4 as the
 * service's own), and its time is the group's.
 */
import type { Model, ModelRegistry } from '../model.js';
import { eventTime } from '../outbox/event.js';
import type { EventAction } from '../outbox/types.js';
import { identifier } from './quoting.js';
import { eventsOfRows } from './recorded-writes.js';
import type { GroupedWrite, MergedWrites, WriteParts } from './types.js';

type Row = Record<string, unknown>;

/** `parts`, one write of `model`, ready to be merged with others of its shape. */
export function groupedWrite(
  models: ModelRegistry,
  model: Model,
  action: EventAction,
  parts: WriteParts,
  inTime?: () => void,
): GroupedWrite {
  const columns = parts.kind === 'delete' ? [] : parts.columns;
  const shape = `${model.name}\u0000${action}\u0000${parts.kind}\u0000${columns.join('\u0000')}`;
  return {
    shape,
    parts,
    merge: (writes) => merged(models, model, action, shape, writes),
    ...(inTime ? { inTime } : {}),
  };
}

/** The SQL of a shape's statement for a number of writes, made once. */
const texts = new WeakMap<Model, Map<string, string>>();

function merged(
  models: ModelRegistry,
  model: Model,
  action: EventAction,
  shape: string,
  writes: readonly WriteParts[],
): MergedWrites {
  let cache = texts.get(model);
  // Clients choose which fields a change sends: the shapes are bounded by the model, not by much.
  if (!cache || cache.size > 1000) texts.set(model, (cache = new Map()));
  const cacheKey = `${shape}\u0000${writes.length}`;
  let sql = cache.get(cacheKey);
  const kind = writes[0]!.kind;
  if (!sql) {
    sql = kind === 'insert' ? insertsSql(models, model, action, writes) : keyedSql(models, model, action, writes);
    cache.set(cacheKey, sql);
  }
  const parameters: unknown[] = [];
  for (const write of writes) parameters.push(...valuesOf(write));
  parameters.push(`${model.name}.${action}`, model.name, eventTime());
  return {
    statement: { sql, parameters },
    split:
      kind === 'insert'
        ? (rows) => insertedRows(rows, writes.length)
        : (rows) => numberedRows(model, rows, writes.length),
  };
}

function valuesOf(write: WriteParts): readonly unknown[] {
  switch (write.kind) {
    case 'insert':
      return write.values;
    case 'update':
      return [...write.values, write.key];
    case 'delete':
      return [write.key];
  }
}

/** The events' values: their ids made by PostgreSQL, the rest the last three parameters. */
function eventValues(at: number) {
  return { id: 'gen_random_uuid()::text', type: `$${at + 1}`, model: `$${at + 2}`, time: `$${at + 3}` };
}

/** The model's columns, of the table or of its alias. */
function returning(model: Model, alias?: string): string {
  return model.columns.map((f) => (alias ? `${alias}.${identifier(f.column!)}` : identifier(f.column!))).join(', ');
}

function insertsSql(models: ModelRegistry, model: Model, action: EventAction, writes: readonly WriteParts[]): string {
  const columns = (writes[0] as { columns: readonly string[] }).columns;
  let n = 0;
  const rows = writes.map(() => `(${columns.map(() => `$${++n}`).join(', ')})`);
  const insert =
    `insert into ${identifier(model.table)} (${columns.map(identifier).join(', ')}) ` +
    `values ${rows.join(', ')} returning ${returning(model)}`;
  return `with w as (${insert}), ${eventsOfRows(models, model, action, eventValues(n))} select * from w`;
}

/**
 * Changes or deletes, one statement (one ModifyTable: PostgreSQL prepares the generated search
 * columns' expressions once per statement, not once per row), joined to a list of the writes'
 * numbers, keys and values. The list's first row is the table's columns (`(select c from t where
 * false)`, null), which types the parameters below it as the columns they go to, as they are in a
 * write alone; its number is null, and it matches no row. (Not `(null::t).c`: a table named as a
 * built-in type, `point` or `date`, would name that type.)
 */
function keyedSql(models: ModelRegistry, model: Model, action: EventAction, writes: readonly WriteParts[]): string {
  const table = identifier(model.table);
  const key = identifier(model.field(model.primaryKey)!.column!);
  const first = writes[0]!;
  const columns = first.kind === 'update' ? first.columns.map(identifier) : [];
  const typed = [...columns, key].map((c) => `(select ${c} from ${table} where false)`);
  let n = 0;
  const rows = writes.map((_, i) => `(${i}, ${[...columns, key].map(() => `$${++n}`).join(', ')})`);
  const list = `(values (null::integer, ${typed.join(', ')}), ${rows.join(', ')}) as svc_v (n, ${[...columns.map((_, i) => `c${i}`), 'k'].join(', ')})`;
  const returned = `returning svc_v.n as ${identifier(numberColumn(model))}, ${returning(model, 'svc_t')}`;
  const write =
    first.kind === 'update'
      ? `update ${table} as svc_t set ${columns.map((c, i) => `${c} = svc_v.c${i}`).join(', ')} from ${list} where svc_t.${key} = svc_v.k ${returned}`
      : `delete from ${table} as svc_t using ${list} where svc_t.${key} = svc_v.k ${returned}`;
  return `with w as (${write}), ${eventsOfRows(models, model, action, eventValues(n))} select * from w`;
}

/** The column that numbers a change's rows: a name none of the model's columns has. */
function numberColumn(model: Model): string {
  let name = 'svc_write';
  while (model.columns.some((f) => f.column === name)) name += '_';
  return name;
}

/** A create's row is the row of its VALUES: one each, in order. */
function insertedRows(rows: readonly Row[], count: number): Row[][] {
  if (rows.length !== count)
    throw new Error(`a merged insert of ${count} rows returned ${rows.length}: the rows cannot be told apart`);
  return rows.map((row) => [row]);
}

/** Each change's or delete's row, by its number; none: it runs again alone. */
function numberedRows(model: Model, rows: readonly Row[], count: number): (Row[] | undefined)[] {
  const numbered = numberColumn(model);
  const out: (Row[] | undefined)[] = Array.from({ length: count }, () => undefined);
  for (const row of rows) {
    const { [numbered]: n, ...rest } = row;
    out[Number(n)] = [rest];
  }
  return out;
}
