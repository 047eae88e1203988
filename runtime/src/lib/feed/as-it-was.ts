/**
 * The database as an event's deleted object last knew it, for the code that judges who may see
 * its deletion. An ACL principal that reads another object (a line item's order, by its key) finds
 * nothing once that object is gone: a cascade deletes the order and its lines at once, and the
 * deletion of each line reached no member who had seen it, only admins (a probe's customer kept a
 * line of a deleted order for ever). Here a read by primary key that finds nothing gives the object
 * as its own `delete` event had it, when that event came shortly before (within `WITHIN` events:
 * a cascade appends its events right after its root's). Every other read is the database's: a
 * rule that reads a list (a project's memberships) still finds the deleted ones gone.
 */
import type { FastifyRequest } from 'fastify';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import { withRequestDatabase } from '../events.js';
import type { Model } from '../model.js';
import type { EventLog, ServiceEvent } from '../outbox/types.js';
import { text } from '../text.js';

type Rec = Record<string, unknown>;

/**
 * How far back, in events, a deleted object's own deletion is looked for: a range of the seq's
 * index, read only when a rule's read by key finds nothing (a cascade of more descendants than
 * this sends the last ones' deletions to admins alone, as before). The deletion found need not be
 * of the same transaction: on SQLite and PostgreSQL a foreign key keeps a link from outliving what
 * it names (a cascade deletes both, SET NULL empties the link), so a rule reads a deleted object
 * by a link of the object judged only when the two went together.
 */
export const WITHIN = 2_000;

/**
 * The objects known deleted, per page of events judged, by `model:key`: the newest deletion of each
 * before the event being judged. The judge passes every event in seq order and tells each delete
 * (`saw`), so a deletion found for an earlier event is still the newest for a later one, or the
 * later deletion was seen since; one looked up in the log is looked up once per object and page.
 */
export class Deletions {
  readonly #known = new Map<string, { readonly seq: number; readonly object: Rec }>();

  /** An event the judge passed, whether it is sent to this caller or not. */
  saw(event: ServiceEvent): void {
    if (!event.type.endsWith('.delete')) return;
    this.#known.set(`${event.type.slice(0, -'.delete'.length)}:${event.data.pk}`, {
      seq: event.seq,
      object: event.data.object,
    });
  }

  /** The object `key` of `model` as its newest deletion within `WITHIN` events before `seq` had it. */
  async before(log: EventLog, model: Model, key: unknown, seq: number): Promise<Rec | undefined> {
    const pk = text(key);
    const id = `${model.name}:${pk}`;
    const known = this.#known.get(id);
    if (known && known.seq < seq) return seq - known.seq <= WITHIN ? known.object : undefined;
    const gone = await log.deletedBefore(model.name, pk, seq, WITHIN);
    if (gone) this.#known.set(id, { seq: gone.seq, object: gone.data.object });
    return gone?.data.object;
  }
}

/** `judge` run with `databaseOf(request)` seeing the objects deleted shortly before `event` as they were. */
export function asItWas<T>(
  request: FastifyRequest,
  db: ServiceDatabase,
  log: EventLog,
  deletions: Deletions,
  event: ServiceEvent,
  judge: () => Promise<T>,
): Promise<T> {
  const deleted = (model: Model, key: unknown) => deletions.before(log, model, key, event.seq);
  return withRequestDatabase(request, overlay(db, deleted), judge);
}

function overlay(db: ServiceDatabase, deleted: (model: Model, key: unknown) => Promise<Rec | undefined>) {
  const wrapped = new Map<EngineRepository, EngineRepository>();
  const wrap = (repository: EngineRepository) => {
    let out = wrapped.get(repository);
    if (!out) wrapped.set(repository, (out = withDeleted(repository, deleted)));
    return out;
  };
  return new Proxy(db, {
    get(target, name, receiver) {
      if (name === 'repository') return (model: string) => wrap(target.repository(model));
      const value: unknown = Reflect.get(target, name, receiver);
      return isRepository(value) ? wrap(value) : value;
    },
  });
}

function isRepository(value: unknown): value is EngineRepository {
  return typeof value === 'object' && value !== null && 'model' in value && 'findUnique' in value;
}

/** `repository` whose findUnique and findFirst by its primary key alone give a deleted object as it was. */
function withDeleted(
  repository: EngineRepository,
  deleted: (model: Model, key: unknown) => Promise<Rec | undefined>,
): EngineRepository {
  const model = repository.model;
  const read =
    (find: (args: never) => Promise<unknown>) =>
    async (args: { where?: Rec; select?: Rec } = {}): Promise<unknown> => {
      const found = await find(args as never);
      const key = keyAlone(model, args.where);
      if (found !== null || key === undefined) return found;
      const was = await deleted(model, key);
      return was === undefined ? null : selected(was, args.select);
    };
  return new Proxy(repository, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if ((name === 'findUnique' || name === 'findFirst') && typeof value === 'function')
        return read((value as (args: never) => Promise<unknown>).bind(target));
      return value;
    },
  });
}

/** The key a condition names when it is the primary key's equality alone (`{ id: 3 }`, `{ id: { equals: 3 } }`). */
function keyAlone(model: Model, where: Rec | undefined): unknown {
  if (!where) return undefined;
  const names = Object.keys(where);
  if (names.length !== 1 || names[0] !== model.primaryKey) return undefined;
  const value = where[model.primaryKey];
  const key =
    typeof value === 'object' && value !== null && Object.keys(value).length === 1 && 'equals' in value
      ? (value as Rec)['equals']
      : value;
  return typeof key === 'string' || typeof key === 'number' ? key : undefined;
}

function selected(object: Rec, select: Rec | undefined): Rec {
  if (!select) return { ...object };
  const out: Rec = {};
  for (const [name, wanted] of Object.entries(select)) if (wanted && name in object) out[name] = object[name];
  return out;
}
