/**
 * Retained events follow renames and drops. An event keeps its object as it was written
 * (`svc_events`, the runtime's lib/outbox/), named by the API of its day: after a field was
 * renamed, the change feed and subscribers got its past events under the old name, and a member,
 * whose view of an event keeps only the fields the model has now, got them without it; after a
 * field was dropped (`--allow-data-loss`: "its values are dropped"), admins still read its values
 * in the retained events. So the migration that renames a model or a field renames it in the
 * retained events too (a model also in their deliveries), and the one that drops a field drops it
 * from them, on every engine, in the same run as the tables: an event reads as the API now names
 * its object.
 */
import type { MongoStep } from '../../../../runtime/src/lib/mongo/steps.js';
import type { StoredColumn } from '../../../outdir/storage-model.js';
import type { TableChange } from './changes.js';
import { linkRenames } from './links.js';
import { renamesInOrder } from './rename-order.js';
import type { Dialect } from './identifiers.js';

export interface EventRenames {
  /** Models renamed: `[from, to]`, in an order that keeps swaps apart. */
  readonly models: readonly (readonly [string, string])[];
  /** Fields renamed, by the model's new name, in an order that keeps swaps apart (`svc_renaming_…`). */
  readonly fields: readonly { readonly model: string; readonly from: string; readonly to: string }[];
  /** Fields dropped, by the model's new name: gone before the renames, one of which may take the name. */
  readonly dropped: readonly { readonly model: string; readonly field: string }[];
}

export function eventRenames(changes: readonly TableChange[]): EventRenames {
  const models: (readonly [string, string])[] = [];
  const fields: { model: string; from: string; to: string }[] = [];
  const dropped: { model: string; field: string }[] = [];
  for (const c of changes) {
    if (c.kind !== 'alter') continue;
    if (c.before.model !== c.after.model) models.push([c.before.model, c.after.model]);
    const renamed: [string, string][] = [];
    for (const col of c.columns) {
      if (col.kind === 'drop')
        dropped.push(...namesInEvents(col.column).map((field) => ({ model: c.after.model, field })));
      if (col.kind !== 'change') continue;
      const { before, after } = col;
      // An event names a field by its name; a link by its relationship's (a document's path for it).
      if (before.name !== after.name) renamed.push([before.name, after.name]);
      const link = before.documentPath !== before.name && before.documentPath !== '_id';
      if (link && before.documentPath !== after.documentPath) renamed.push([before.documentPath, after.documentPath]);
    }
    renamed.push(...linkRenames(c.before, c.after));
    fields.push(...renamesInOrder(renamed).map(([from, to]) => ({ model: c.after.model, from, to })));
  }
  // Two models that swap names would otherwise both end up with one of them.
  return { models: renamesInOrder(models), fields, dropped };
}

/** The names a column's value goes by in an event: its field's, and a link's relationship's (its document path). */
function namesInEvents(column: StoredColumn): string[] {
  const link = column.documentPath !== column.name && column.documentPath !== '_id';
  return link ? [column.name, column.documentPath] : [column.name];
}

/** The statements that rename them in `svc_events` (and a model in `svc_deliveries`). */
export function eventSql(renames: EventRenames, dialect: Dialect): string[] {
  return [
    ...renames.models.flatMap(([from, to]) => modelSql(from, to, dialect)),
    ...renames.dropped.flatMap(({ model, field }) => droppedSql(model, field, dialect)),
    ...renames.fields.flatMap(({ model, from, to }) => fieldSql(model, from, to, dialect)),
  ];
}

/** A dropped field out of each retained event of its model: its object, as it was, and `changed`. */
function droppedSql(model: string, field: string, dialect: Dialect): string[] {
  const of = `model = ${text(model)}`;
  if (dialect === 'sqlite') {
    const paths = ['object', 'previous'].map((part) => text(`$.${part}."${field}"`));
    const held = paths.map((path) => `json_type(data, ${path}) is not null`).join(' or ');
    const names = `(select json_group_array(value order by key) from json_each(data, '$.changed') where value <> ${text(field)})`;
    const listed = `exists (select 1 from json_each(data, '$.changed') where value = ${text(field)})`;
    return [
      `update svc_events set data = json_remove(data, ${paths.join(', ')}) where ${of} and (${held});`,
      `update svc_events set data = json_set(data, '$.changed', json(${names})) where ${of} and ${listed};`,
    ];
  }
  const parts = ['object', 'row', 'links', 'previous'];
  const removed = parts.map((part) => ` #- ${text(`{${part},${field}}`)}`).join('');
  const held = parts.map((part) => `jsonb_exists(data -> '${part}', ${text(field)})`).join(' or ');
  const names = `coalesce((select jsonb_agg(name order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i) where name <> to_jsonb(${text(field)}::text)), '[]'::jsonb)`;
  return [
    `update svc_events set data = data${removed} where ${of} and (${held});`,
    `update svc_events set data = jsonb_set(data, '{changed}', ${names}) where ${of} and jsonb_exists(data -> 'changed', ${text(field)});`,
  ];
}

function modelSql(from: string, to: string, dialect: Dialect): string[] {
  const typed = `${text(to)} || substr(type, ${from.length + 1})`;
  const old = `substr(type, 1, ${from.length + 1}) = ${text(`${from}.`)}`;
  const tagged =
    dialect === 'sqlite'
      ? `json_set(data, '$.object._type', ${text(to)})`
      : `jsonb_set(data, '{object,_type}', to_jsonb(${text(to)}::text))`;
  return [
    `update svc_events set model = ${text(to)}, type = ${typed}, data = ${tagged} where model = ${text(from)};`,
    `update svc_deliveries set type = ${typed}, object = ${text(to)} || substr(object, ${from.length + 1}) where ${old};`,
  ];
}

/**
 * An event holds its object (`{ pk, object }`), and for a model with `_event_previous` the object
 * as it was and the names of the fields that changed (`previous`, `changed`); on PostgreSQL, one
 * appended in its write's own statement holds the row as stored and the keys of its links instead
 * (`{ pk, row, links }`, made an object when read: lib/sql/recorded-writes.ts), by the names of
 * their columns and relationships.
 */
function fieldSql(model: string, from: string, to: string, dialect: Dialect): string[] {
  const of = `model = ${text(model)}`;
  if (dialect === 'sqlite') {
    // The object, the object as it was (`_event_previous`), and the name among those `changed`.
    const renamed = ['object', 'previous'].map((part) => {
      const [was, is] = [text(`$.${part}."${from}"`), text(`$.${part}."${to}"`)];
      return `update svc_events set data = json_set(json_remove(data, ${was}), ${is}, data -> ${was}) where ${of} and json_type(data, ${was}) is not null;`;
    });
    const names = `(select json_group_array(case when value = ${text(from)} then ${text(to)} else value end order by key) from json_each(data, '$.changed'))`;
    const listed = `exists (select 1 from json_each(data, '$.changed') where value = ${text(from)})`;
    return [
      ...renamed,
      `update svc_events set data = json_set(data, '$.changed', json(${names})) where ${of} and ${listed};`,
    ];
  }
  const renamed = ['object', 'row', 'links', 'previous'].map((part) => {
    const [was, is] = [text(`{${part},${from}}`), text(`{${part},${to}}`)];
    return `update svc_events set data = jsonb_set(data #- ${was}, ${is}, data #> ${was}) where ${of} and jsonb_exists(data -> '${part}', ${text(from)});`;
  });
  const names = `(select jsonb_agg(case when name = to_jsonb(${text(from)}::text) then to_jsonb(${text(to)}::text) else name end order by i) from jsonb_array_elements(data -> 'changed') with ordinality as listed(name, i))`;
  return [
    ...renamed,
    `update svc_events set data = jsonb_set(data, '{changed}', ${names}) where ${of} and jsonb_exists(data -> 'changed', ${text(from)});`,
  ];
}

/** The same as MongoDB steps. */
export function eventSteps(renames: EventRenames): MongoStep[] {
  return [
    ...renames.models.map(([from, to]): MongoStep => ({ op: 'renameEventModel', from, to })),
    ...renames.dropped.map(({ model, field }): MongoStep => ({ op: 'dropEventField', model, field })),
    ...renames.fields.map(({ model, from, to }): MongoStep => ({ op: 'renameEventField', model, from, to })),
  ];
}

/** A SQL string literal (model and field names are identifiers; quoted all the same). */
function text(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
