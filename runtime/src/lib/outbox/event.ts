/**
 * Events as the outbox stores them and subscribers get them: the object as an admin reads it
 * (secrets and `_hidden_fields` left out, relationships as keys), made in the write's
 * transaction from what the write returned.
 */
import { randomUUID } from 'node:crypto';
import type { Model, ModelRegistry } from '../model.js';
import { text } from '../text.js';
import type { EventAction, EventData, NewEvent, ServiceEvent } from './types.js';

type Rec = Record<string, unknown>;

/**
 * The event of one changed object (`record`: after the change; for a delete, before it), and, given
 * `before` (the object as it was, for a model with `eventPrevious`), its `previous` and `changed`.
 */
export function newEvent(
  models: ModelRegistry,
  model: Model,
  action: EventAction,
  record: Rec,
  before?: Rec,
): NewEvent {
  const object = eventObject(models, model, record);
  const event = { model: model.name, action, pk: text(record[model.primaryKey]), object };
  if (!before) return event;
  const previous = eventObject(models, model, before);
  return { ...event, previous, changed: changedFields(previous, object) };
}

/** The fields of `object` whose values are not those of `previous` (as JSON: lists and dicts by content). */
function changedFields(previous: Rec, object: Rec): string[] {
  const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return Object.keys(object).filter((name) => !name.startsWith('_') && !same(previous[name], object[name]));
}

/** The object as an admin reads it, but with relationships as keys (an event names, never embeds). */
export function eventObject(models: ModelRegistry, model: Model, record: Rec): Rec {
  const hidden = model.hiddenFields;
  const out: Rec = {};
  for (const field of model.fields) {
    const name = field.name;
    if (field.secret || !(name in record) || hidden.includes(name)) continue;
    const value = record[name];
    out[name] = field.type === 'relationship' ? keysOf(value, relatedKey(models, model, name)) : value;
  }
  out['_type'] = model.name;
  out['_pk'] = text(record[model.primaryKey]);
  return out;
}

/** The key field of a relationship's objects, to read it from embedded ones. */
function relatedKey(models: ModelRegistry, model: Model, relation: string): string {
  const target = model.relation(relation)?.target;
  return (target && models.get(target)?.primaryKey) || 'id';
}

function keysOf(value: unknown, key: string): unknown {
  const keyOf = (v: unknown) => (v !== null && typeof v === 'object' ? (v as Rec)[key] : v);
  return Array.isArray(value) ? value.map(keyOf) : keyOf(value);
}

/** What an appended event is given besides its seq. */
export function eventIdentity(): { id: string; time: string } {
  return { id: randomUUID(), time: eventTime() };
}

let lastMs = NaN;
let lastTime = '';

/**
 * An event's time: now, ISO 8601 in UTC. Written once per millisecond: the writes of one turn, a
 * group commit's, share it (`toISOString` was ~1 % of a PATCH's CPU).
 */
export function eventTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = new Date(now).toISOString();
  }
  return lastTime;
}

export function eventType(event: Pick<NewEvent, 'model' | 'action'>): string {
  return `${event.model}.${event.action}`;
}

/** An event as stored rows give it back (`data` as JSON text on SQLite, parsed on PostgreSQL). */
export function storedEvent(row: {
  seq: unknown;
  id: unknown;
  type: unknown;
  time: unknown;
  data: unknown;
}): ServiceEvent {
  return {
    id: String(row.id),
    seq: Number(row.seq),
    type: String(row.type),
    time: String(row.time),
    data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as ServiceEvent['data'],
  };
}

/** An event's `data`: its key and object, and its previous state where it has one. */
export function eventDataOf(event: NewEvent): EventData {
  const { pk, object, previous, changed } = event;
  return previous ? { pk, object, previous, changed: changed ?? [] } : { pk, object };
}

/** The JSON of an event's `data`. */
export function eventData(event: NewEvent): string {
  return JSON.stringify(eventDataOf(event));
}
