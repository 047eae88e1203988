/**
 * PostgreSQL: writes of one shape that commit together (pg-group-commit.ts) made one statement,
 * with their events. PostgreSQL then parses, plans, starts, triggers and answers one statement
 * where it did each of them: ten creates of ramses-starter's Item in one statement cost the machine
 * 33 µs each, in ten statements of one transaction 68 µs, in ten transactions 133 µs (pgbench;
 * bench/RESULTS.md, "Writes committed together on PostgreSQL").
 *
 *   creates   with w as (insert into t (c…) values ($1, $2), ($3, $4) returning …), e as (…)
 *             select * from w
 *   changes   with w0 as (update t set c = $1 where k = $2 returning …), w1 as (…),
 *             w as (select 0 as n, * from w0 union all select 1, * from w1), e as (…) select * from w
 *   deletes   the same, with `delete from t where k = $1 returning …`
 *
 * Each write is the statement it would be alone (repository.ts's insertOf, updateOf and deleteOf:
 * the same table, columns, values and key, and nothing else; a change to those changes this too).
 * A multi-row insert returns its rows in the order of its VALUES, which is how each create gets
 * its own row back (Django's bulk_create relies on the same on PostgreSQL). A change or a delete
 * is a statement of its own inside the one (a data-modifying WITH), its rows numbered.
 *
 * All of one statement's parts see the same snapshot, and a row is changed at most once by one
 * statement: a second change or delete of a row already changed by another part is skipped
 * silently and returns nothing. So a change or a delete that returns no row is not answered "not
 * found" from here: it runs again alone after the COMMIT (`split` gives it `undefined`), and is
 * answered what it does then. Two requests for one key in one turn are rare; a key spelt two ways
 * (`5` and `05`) is the same row, which is why this does not compare keys.
 *
 * An event made here gets its id from PostgreSQL (`gen_random_uuid()`, a UUID v4 as the
 * service's own), and its time is the group's.
 */
import type { Model, ModelRegistry } from '../model.js';
import { eventIdentity } from '../outbox/event.js';
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
): GroupedWrite {
  const columns = parts.kind === 'delete' ? [] : parts.columns;
  const shape = `${model.name}\u0000${action}\u0000${parts.kind}\u0000${columns.join('\u0000')}`;
  return {
    shape,
    parts,
    merge: (writes) => merged(models, model, action, shape, writes),
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
  if (!cache) texts.set(model, (cache = new Map()));
  const cacheKey = `${shape}\u0000${writes.length}`;
  let sql = cache.get(cacheKey);
  const kind = writes[0]!.kind;
  if (!sql) {
    sql = kind === 'insert' ? insertsSql(models, model, action, writes) : keyedSql(models, model, action, writes);
    cache.set(cacheKey, sql);
  }
  const parameters: unknown[] = [];
  for (const write of writes) parameters.push(...valuesOf(write));
  const { time } = eventIdentity();
  parameters.push(`${model.name}.${action}`, model.name, time);
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

function returning(model: Model): string {
  return model.columns.map((f) => identifier(f.column!)).join(', ');
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

function keyedSql(models: ModelRegistry, model: Model, action: EventAction, writes: readonly WriteParts[]): string {
  const table = identifier(model.table);
  const key = identifier(model.field(model.primaryKey)!.column!);
  const numbered = numberColumn(model);
  let n = 0;
  const parts = writes.map((write, i) => {
    const statement =
      write.kind === 'update'
        ? `update ${table} set ${write.columns.map((c) => `${identifier(c)} = $${++n}`).join(', ')} where ${key} = $${++n}`
        : `delete from ${table} where ${key} = $${++n}`;
    return `w${i} as (${statement} returning ${returning(model)})`;
  });
  const union = writes.map((_, i) => `select ${i} as ${identifier(numbered)}, * from w${i}`).join(' union all ');
  return `with ${parts.join(', ')}, w as (${union}), ${eventsOfRows(models, model, action, eventValues(n))} select * from w`;
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
