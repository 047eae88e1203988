/**
 * `GET {base}/_events`: the outbox as a change feed (Server-Sent Events, ./sse.ts). `id:` is the
 * event's seq, `event:` its type, `data:` its JSON. A client that reconnects with `Last-Event-ID`
 * (or `?last_event_id=`) gets every retained event after it, then the live ones: each connection
 * reads the outbox from its own last seq, so there is no gap and no duplicate between the two.
 * An id older than what is retained (or unknown) gets `event: reset`: reload, then follow.
 *
 * Every event goes only to a caller whose ACL lets them view its object (the object's own item
 * ACL, as its GET would decide, then and now), with the fields their privacy level reads. The
 * caller is identified again before each batch: a logout, a new password, a deletion or an
 * expired ticket ends the stream; a promotion or demotion applies to what follows. What happened
 * before the caller's account existed is judged as for a member with their groups whom no object
 * names: a user who registers a deleted user's name is not sent that user's past as their own; and
 * as for the caller too, whose denies (a block) hold on that past as on the rest.
 */
import { setImmediate } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asItWas, Deletions } from './as-it-was.js';
import type { FeedLimits } from '../config.js';
import { badRequest, HttpError } from '../errors.js';
import type { EventLog, ServiceEvent } from '../outbox/types.js';
import { eventTypeProblem, matchesEvent, type EventCatalog } from '../webhooks/settings.js';
import { modelRoute } from '../http/policy.js';
import { clientOf } from '../http/client-address.js';
import { completeRoute } from '../http/routing.js';
import { hideRefusedLinks } from '../http/hidden-links.js';
import { keysOf } from '../http/relinks.js';
import { linkKeys } from '../http/serialize.js';
// `app.services` (the Fastify instance's decoration), for any program that compiles this file.
import type {} from '../http/services.js';
import { isDatabaseUnavailable } from '../database.js';
import type { Model } from '../model.js';
import { text } from '../text.js';
import { EventStream, lastEventId } from './sse.js';

/** How often connections look for events written by other instances. */
const POLL_MS = 500;
/** Events read per query. */
const PAGE = 500;
/** Seconds a client refused one more feed is told to wait. */
const RETRY_AFTER_S = 5;

type Rec = Record<string, unknown>;

/** One open feed: it reads on from `cursor` when woken. */
interface Listener {
  cursor: number;
  reading: boolean;
  again: boolean;
  pump(): void;
  /** Ends the stream (the service is shutting down: the client resumes elsewhere by Last-Event-ID). */
  close(): void;
}

/** Wakes every open feed when there may be new events (a local write, or the poll). */
export class FeedHub {
  readonly listeners = new Set<Listener>();
  #timer: NodeJS.Timeout | undefined;
  #numbering: Promise<void> | undefined;
  #again = false;

  /** Reads of the log in flight, by cursor: feeds woken together at one cursor share one read. */
  readonly #reading = new Map<number, Promise<ServiceEvent[]>>();
  /** Open feeds by client: `user:<key>`, `address:<ip>`. */
  readonly #open = new Map<string, number>();

  constructor(
    readonly log: EventLog,
    readonly limits: FeedLimits = { perUser: 0, perAddress: 0 },
  ) {}

  /**
   * Counts one more feed for the client (its user, when logged in, and its address), or throws
   * 429 when one of them has as many open as its limit allows. Returns what ends the count
   * (once, however often it is called).
   */
  admit(user: string | undefined, address: string): () => void {
    const counted: [string, number, string][] = [[`address:${address}`, this.limits.perAddress, 'your address']];
    if (user !== undefined) counted.unshift([`user:${user}`, this.limits.perUser, 'you']);
    for (const [client, limit, who] of counted)
      if (limit > 0 && (this.#open.get(client) ?? 0) >= limit)
        throw new HttpError(
          429,
          `${who} already ${who === 'you' ? 'have' : 'has'} ${limit} change feeds open, as many as this service allows: close one first (?types= follows several types in one feed)`,
          undefined,
          // A place is free as soon as one closes; clients that retry by themselves wait this long.
          { 'retry-after': String(RETRY_AFTER_S) },
        );
    for (const [client] of counted) this.#open.set(client, (this.#open.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [client] of counted) {
        const left = (this.#open.get(client) ?? 1) - 1;
        if (left > 0) this.#open.set(client, left);
        else this.#open.delete(client);
      }
    };
  }

  /**
   * `log.after(cursor, PAGE)`, shared by the feeds that ask for the same cursor while it is being
   * read: a write wakes every open feed, and most follow at the latest seq (a thousand idle feeds
   * were a thousand reads per write).
   */
  after(cursor: number): Promise<ServiceEvent[]> {
    let read = this.#reading.get(cursor);
    if (!read) {
      read = this.log.after(cursor, PAGE).finally(() => this.#reading.delete(cursor));
      this.#reading.set(cursor, read);
    }
    return read;
  }

  start(): void {
    this.#timer = setInterval(() => this.wake(), POLL_MS).unref();
  }

  /** Ends every open feed: a server does not finish closing while one is open. */
  stop(): void {
    clearInterval(this.#timer);
    for (const listener of this.listeners) listener.close();
    this.listeners.clear();
  }

  /**
   * With feeds open: numbers what has committed (PostgreSQL; elsewhere nothing to do), then lets
   * each feed read on. Wakes while numbering run it once more after, not once each.
   */
  wake(): void {
    if (this.listeners.size === 0) return;
    if (this.#numbering) {
      this.#again = true;
      return;
    }
    this.#numbering = this.log
      .sequence()
      .catch(() => 0) // the feeds read what is numbered; the poll tries again
      .then(() => {
        for (const listener of this.listeners) listener.pump();
      })
      .finally(() => {
        this.#numbering = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }
}

export function changeFeed(app: FastifyInstance, hub: FeedHub, catalog: EventCatalog): void {
  app.get('/_events', async (request, reply) => {
    const query = request.query as Rec;
    const unknown = Object.keys(query).filter((name) => !FEED_PARAMETERS.has(name));
    if (unknown.length)
      throw badRequest(
        `the change feed takes only types and last_event_id, not ${unknown.join(', ')}`,
        unknown.map((field) => ({ field, message: 'is not a parameter of the change feed' })),
      );
    const from = lastEventId(request.headers, query);
    if (from === 'invalid')
      throw badRequest('Last-Event-ID must be the id (a whole number) of an event this feed sent', [
        { field: 'Last-Event-ID', message: 'invalid' },
      ]);
    const types = typesOf(query['types'], catalog);
    // HEAD: the answer's headers, and no stream that would never end.
    if (request.method === 'HEAD')
      return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-store').send();
    const release = hub.admit(app.services.policy.ownRecord(request)?.pk, clientOf(request));
    try {
      await openFeed(app, hub, request, reply, from, types, release);
    } catch (error) {
      release();
      throw error;
    }
  });
  completeRoute(app, '/_events', ['GET']);
}

/** What `?` of the feed may name; any other parameter is a 400, not a filter silently left out. */
const FEED_PARAMETERS = new Set(['types', 'last_event_id']);

/**
 * The types `?types=` names; a 400 for one that no event can have (a typo would be a feed that
 * never sends anything): not `*`, `<Model>.*` or `<Model>.<action>`, or naming no model.
 */
function typesOf(value: unknown, catalog: EventCatalog): readonly string[] {
  const text = Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '*';
  const types = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  for (const t of types) {
    const problem = eventTypeProblem(t, catalog);
    if (problem) throw badRequest(`types: "${t}" ${problem}`, [{ field: 'types', message: problem }]);
  }
  return types.length ? types : ['*'];
}

async function openFeed(
  app: FastifyInstance,
  hub: FeedHub,
  request: FastifyRequest,
  reply: FastifyReply,
  from: number | undefined,
  types: readonly string[],
  release: () => void,
): Promise<void> {
  const log = hub.log;
  const latest = await log.latest();
  const oldest = await log.oldest();
  // Events after `from` were pruned (or `from` is from another database): the client must reload.
  const reset = from !== undefined && (from > latest || (oldest !== undefined ? from < oldest - 1 : from < latest));
  // Taken over from Fastify, the answer keeps the headers its hooks set so far (CORS's).
  const headers = Object.fromEntries(
    Object.entries(reply.getHeaders()).filter(
      (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
    ),
  );
  reply.hijack();
  const stream = new EventStream(reply.raw);
  stream.open({ ...headers, 'x-content-type-options': 'nosniff' });
  if (reset)
    stream.send({
      event: 'reset',
      id: latest,
      data: JSON.stringify({
        reason:
          from > latest
            ? `Last-Event-ID ${from} is newer than any event here (the newest is ${latest}): it is from another database, or one restored from a backup; reload, then follow`
            : 'the events after Last-Event-ID are no longer retained: reload, then follow',
      }),
    });
  const visible = viewer(app);
  const joined = joining(app, hub.log, request);
  const listener: Listener = {
    cursor: from === undefined || reset ? latest : from,
    reading: false,
    again: false,
    pump() {
      if (this.reading) {
        this.again = true;
        return;
      }
      this.reading = true;
      void readOn(this).finally(() => (this.reading = false));
    },
    close: () => stream.close('the service is shutting down: reconnect with Last-Event-ID'),
  };
  const slice = new Slice();
  const readOn = async (self: Listener) => {
    try {
      do {
        self.again = false;
        for (;;) {
          const events = await hub.after(self.cursor);
          visible.page();
          // Sent only while the caller still is who they were (logged in, not deleted), with the
          // rights they have now: a logout or a demotion reaches open feeds too.
          if (events.length && !(await app.services.policy.stillIdentified(request, reply))) {
            stream.close('your session ended: log in again, then reconnect with Last-Event-ID');
            return;
          }
          // Before the caller's account existed, nothing was theirs, whatever its key says.
          const since = events.length ? await joined(self.cursor) : undefined;
          const newcomer = since === undefined ? request : app.services.policy.asNewcomer(request);
          for (const event of events) {
            await slice.share();
            if (stream.closed) return;
            self.cursor = event.seq;
            visible.saw(event);
            if (!matchesEvent(types, event.type)) continue;
            // Before their account: what a newcomer may view (not what names them), and what they may
            // (a deny of theirs, a block, holds on the past too).
            const before = since !== undefined && event.seq < since;
            const shown = await judged(request, () => visible(event, before ? newcomer : request));
            if (shown && before && !(await judged(request, () => visible(event, request)))) continue;
            if (shown) stream.send({ id: event.seq, event: event.type, data: JSON.stringify(shown) });
          }
          if (events.length < PAGE) break;
          // A replay of many pages waits for the client to take each one: only a client that
          // reads too slowly is cut off (./sse.ts), not one that is sent a lot at once.
          await stream.drained();
        }
      } while (self.again && !stream.closed);
    } catch (error) {
      request.log.warn({ err: error }, 'change feed: the outbox could not be read; the client may resume');
      stream.close('the service could not read the events: reconnect with Last-Event-ID');
    }
  };
  hub.listeners.add(listener);
  stream.onClose(() => {
    hub.listeners.delete(listener);
    release();
  });
  listener.pump();
}

/**
 * A replay's share of the event loop. On SQLite every read it awaits is answered at once (the
 * driver is synchronous), so a replay of a week of events held the whole service until it was
 * done: a probe's anonymous feeds kept `/health` waiting 45 s. After `SLICE_MS` of judging events
 * it lets every other request (and feed) have its turn.
 */
class Slice {
  #since = performance.now();

  async share(): Promise<void> {
    if (performance.now() - this.#since < SLICE_MS) return;
    await setImmediate();
    this.#since = performance.now();
  }
}

/** How long a replay judges events before others have their turn (Slice). */
const SLICE_MS = 5;

/**
 * Where the caller's account began (the seq of their record's creation), asked after a page of
 * events was read from `cursor`: events before it are judged as a newcomer's (`Policy.asNewcomer`).
 * Undefined when it began before `cursor`, or the caller is anonymous; asked again while it is
 * appended but not numbered yet (`Infinity`, PostgreSQL), then settled.
 */
function joining(
  app: FastifyInstance,
  log: EventLog,
  request: FastifyRequest,
): (cursor: number) => Promise<number | undefined> {
  const own = app.services.policy.ownRecord(request);
  let settled = own === null;
  let since: number | undefined;
  return async (cursor) => {
    if (settled || !own) return since;
    since = await log.createdAfter(own.model, own.pk, cursor);
    settled = since !== Infinity;
    return since;
  };
}

/**
 * The event as this caller may see it, or null when they may not view its object: as it was then
 * (the event's; its `previous` only to one who may view that too), and as it is now when the
 * decision depends on the object (a `{{principal}}`):
 * a note given to someone else, a project made private, takes its history along. Of an object
 * that no longer exists, only its deletion is sent. `page()` forgets the objects read for the last
 * page of events (one read per object and page).
 */
function viewer(app: FastifyInstance): ((
  event: ServiceEvent,
  request: FastifyRequest,
) => Promise<ServiceEvent | null>) & {
  page(): void;
  saw(event: ServiceEvent): void;
} {
  const { policy, db } = app.services;
  let now = new Map<string, Promise<Rec | null>>();
  let deletions = new Deletions();
  const current = (model: Model, key: unknown): Promise<Rec | null> => {
    const id = `${model.name}:${text(key)}`;
    const found =
      now.get(id) ??
      db.repository(model.name).findUnique({ where: { [model.primaryKey]: key }, include: linkKeys(model) });
    now.set(id, found);
    return found;
  };
  const view = async (event: ServiceEvent, request: FastifyRequest): Promise<ServiceEvent | null> => {
    const model = db.models.get(event.type.slice(0, event.type.lastIndexOf('.')));
    if (!model) return null;
    const object = event.data.object;
    const route = modelRoute(model);
    if (!(await policy.may(request, 'view', route, object))) {
      // The deletion of an object whose rules read another that went with it (a cascade's): judged
      // with that other as it was.
      const gone =
        event.type.endsWith('.delete') &&
        policy.needsObject(route) &&
        (await current(model, object[model.primaryKey])) === null;
      const judge = () => policy.may(request, 'view', route, object);
      if (!gone || !(await asItWas(request, db, db.outbox.log, deletions, event, judge))) return null;
    }
    if (policy.needsObject(route)) {
      const state = await current(model, object[model.primaryKey]);
      // Gone: only its deletion is news (decided by the object as it last was); what came
      // before it would show, to a caller who never saw it, what it was before it was hidden.
      if (state === null) {
        if (!event.type.endsWith('.delete')) return null;
      } else if (!(await policy.may(request, 'view', route, state))) return null;
    }
    const fields = policy.visibleFields(request, model, object);
    const linksElsewhere = model.relations.some((r) => !r.local);
    if (fields === null && !event.data.previous && !linksElsewhere) return event;
    // Of the links kept in other objects' rows, those the caller may view, as a GET shows them.
    const {
      object: shownObject,
      previous,
      changed,
    } = linksElsewhere ? await withViewableLinks(model, event, request) : event.data;
    const sees = (name: string, also: ReadonlySet<string> | null = null) =>
      name === '_type' ||
      name === '_pk' ||
      ((fields === null || fields.has(name)) && (also === null || also.has(name)));
    const shown = (of: Rec, also: ReadonlySet<string> | null = null): Rec => {
      const out: Rec = {};
      for (const [name, value] of Object.entries(of)) if (sees(name, also)) out[name] = value;
      return out;
    };
    // What the object was, only to a caller who may view it as it was (an object moved into their
    // company would show whose it was), and of the fields they may read both then and now.
    const asWas = event.data.previous;
    const was = asWas && (await policy.may(request, 'view', route, asWas)) ? previous : undefined;
    const then = was ? policy.visibleFields(request, model, asWas) : null;
    const seenChanged = (changed ?? []).filter((f) => sees(f, then));
    // A change of nothing they may read is no news to them: sent, it would tell when a hidden field
    // (a salary), a hidden link or a password (never in `changed`: `changed: []`) changed.
    if (was && event.data.changed !== undefined && seenChanged.length === 0) return null;
    const before = was ? { previous: shown(was, then), changed: seenChanged } : {};
    return { ...event, data: { pk: event.data.pk, object: shown(shownObject), ...before } };
  };
  /**
   * The event's object and previous value with only the links the caller may view (hidden-links.ts),
   * and, of its changed fields, not such a link that changed only where they may not look.
   */
  const withViewableLinks = async (model: Model, event: ServiceEvent, request: FastifyRequest) => {
    const object = { ...event.data.object };
    const previous = event.data.previous && { ...event.data.previous };
    await hideRefusedLinks(policy, request, db, model, previous ? [object, previous] : [object]);
    const hiddenMove = (name: string) =>
      previous !== undefined && model.relation(name)?.local === false && sameKeys(object[name], previous[name]);
    return { object, previous, changed: event.data.changed?.filter((name) => !hiddenMove(name)) };
  };
  return Object.assign(view, {
    page: () => {
      now = new Map();
      deletions = new Deletions();
    },
    saw: (event: ServiceEvent) => deletions.saw(event),
  });
}

/** Whether two link values (a key, a list of keys, or null) name the same objects. */
function sameKeys(a: unknown, b: unknown): boolean {
  const keys = (v: unknown) => JSON.stringify(keysOf(v).map(text).sort());
  return keys(a) === keys(b);
}

/**
 * What `visible` decides of one event, or null (not sent) where deciding it failed for another reason
 * than the database (an ACL principal that throws on what it reads: a probe's, handed a newcomer's
 * key, sent PostgreSQL a value it refused, and every replay stopped at that event, for good). A
 * database that does not answer ends the stream, which the client resumes from where it was.
 */
async function judged<T>(request: FastifyRequest, decide: () => Promise<T | null>): Promise<T | null> {
  try {
    return await decide();
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    request.log.warn(
      { err: error },
      'change feed: an event could not be judged for this caller; it is not sent to them',
    );
    return null;
  }
}
