/**
 * The outbox's routes and its delivery loop (lib/outbox/, lib/webhooks/, lib/feed/):
 *
 * - `GET {base}/_events`: the change feed (Server-Sent Events), each event sent only to callers
 *   who may view its object, with the fields they may read (lib/feed/feed.ts);
 * - the operators' routes, for admins (with auth on): `GET {base}/_webhooks`,
 *   `GET {base}/_webhooks/{name}/deliveries`, `POST {base}/_webhooks/{name}/deliveries/{seq}/retry`,
 *   `POST {base}/_webhooks/{name}/retry-dead`.
 *
 * The delivery loop starts when the app is ready and stops when it closes; every write this
 * process answers wakes it (and the feed), so deliveries start within milliseconds.
 */
import type { FastifyInstance, FastifyRequest, onResponseHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { FeedLimits } from '../config.js';
import type { ServiceDatabase } from '../database.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import { changeFeed, FeedHub } from '../feed/feed.js';
import { Dispatcher, webhookTargets, type Target } from '../webhooks/dispatcher.js';
import type { Delivery, DeliveryStatus, WebhookSettings } from '../webhooks/types.js';
import type { EventCatalog } from '../webhooks/settings.js';
import { completeRoute, hooksOf, methodsOf, WRITE_METHODS as WRITES } from './routing.js';
import { requestOrigin, requestTarget } from './serialize.js';
import { noQuery } from './schemas.js';

export interface OutboxOptions {
  readonly db: ServiceDatabase;
  readonly settings: WebhookSettings;
  /** The in-process subscribers (`onCommitted`), one target per model that has any. */
  readonly local?: readonly Target[];
  /** Change feeds one client may keep open (none: no limit). */
  readonly feedLimits?: FeedLimits;
  /** The events the service sends, which a feed's `?types=` may name. */
  readonly catalog: EventCatalog;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

export const outbox = fp<OutboxOptions>(
  async (app, { db, settings, local = [], feedLimits, catalog }) => {
    const targets = settings.dispatch ? [...webhookTargets(settings), ...local] : [];
    const dispatcher = new Dispatcher(db, settings, targets, app.log);
    const hub = new FeedHub(db.outbox.log, feedLimits);
    app.addHook('onReady', () => {
      dispatcher.start();
      hub.start();
    });
    // Before the server closes: it waits for open connections, and a feed stays open.
    app.addHook('preClose', (done) => {
      hub.stop();
      done();
    });
    app.addHook('onClose', () => dispatcher.stop());
    // A write answered: its events are committed (or it wrote none): deliver them now. A hook of
    // the routes that write, made after this plugin (all of the API's but auth's, whose events the
    // loop finds on its next look): reads run no hook for it.
    const written: onResponseHookHandler = (request, _reply, done) => {
      if (WRITES.has(request.method)) {
        dispatcher.committed();
        hub.wake();
      }
      done();
    };
    app.addHook('onRoute', (route) => {
      if (methodsOf(route).some((method) => WRITES.has(method)))
        route.onResponse = [...hooksOf(route.onResponse), written];
    });
    changeFeed(app, hub, catalog);
    operatorRoutes(app, db, settings, local, () => dispatcher.wake());
  },
  { name: 'outbox', fastify: '5.x', dependencies: ['services'] },
);

function operatorRoutes(
  app: FastifyInstance,
  db: ServiceDatabase,
  settings: WebhookSettings,
  local: readonly Target[],
  wake: () => void,
): void {
  const store = db.outbox.deliveries;
  const names = new Set([...settings.subscriptions.map((s) => s.name), ...local.map((t) => t.name)]);
  const operator = async (request: FastifyRequest, what: string) => {
    const policy = app.services.policy;
    // An ACL of null is for admins only (everyone, with auth off).
    if (!(await policy.may(request, 'view', { kind: 'collection', acl: null }))) throw policy.refusal(request, what);
  };
  const subscription = (request: FastifyRequest): string => {
    const name = (request.params as { name: string }).name;
    if (!names.has(name)) throw notFound(`no webhook subscription ${name}`);
    return name;
  };

  // No route of the operator's takes a query parameter but the deliveries list (its own check).
  app.get('/_webhooks', { schema: { querystring: noQuery } }, async (request) => {
    await operator(request, 'read the webhooks');
    const data = [];
    for (const name of names) {
      const found = settings.subscriptions.find((s) => s.name === name);
      const counts = await store.counts(name);
      data.push({
        name,
        url: found?.url ?? null,
        events: found?.events ?? null,
        pending: counts.pending,
        delivered: counts.delivered,
        dead: counts.dead,
        last_error: counts.lastError,
      });
    }
    return { data, dispatch: settings.dispatch };
  });
  completeRoute(app, '/_webhooks', ['GET']);

  app.get('/_webhooks/:name/deliveries', async (request) => {
    await operator(request, 'read the webhooks');
    const name = subscription(request);
    const query = request.query as Record<string, string | undefined>;
    // A parameter the list does not take would be a list that silently ignores it.
    const unknown = Object.keys(query).filter((key) => !LIST_PARAMETERS.has(key));
    if (unknown.length)
      throw badRequest(
        `the deliveries list takes only ${[...LIST_PARAMETERS].join(', ')}, not ${unknown.join(', ')}`,
        unknown.map((field) => ({ field, message: 'is not a parameter of the deliveries list' })),
      );
    const status = query['status'];
    if (status !== undefined && !STATUSES.includes(status as DeliveryStatus))
      throw badRequest(`status must be one of ${STATUSES.join(', ')}`, [{ field: 'status', message: 'unknown' }]);
    const limit = whole(query['_limit'], 20, 1, 1000, '_limit');
    const after =
      query['_after'] === undefined ? undefined : whole(query['_after'], 0, 0, Number.MAX_SAFE_INTEGER, '_after');
    const rows = await store.list(name, status as DeliveryStatus | undefined, {
      limit: limit + 1,
      ...(after === undefined ? {} : { after }),
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page.map(shown),
      ...(rows.length > limit && last ? { next: nextUrl(request, last.seq) } : {}),
    };
  });
  completeRoute(app, '/_webhooks/:name/deliveries', ['GET']);

  app.post('/_webhooks/:name/deliveries/:seq/retry', { schema: { querystring: noQuery } }, async (request) => {
    await operator(request, 'retry webhook deliveries');
    const name = subscription(request);
    const seq = whole((request.params as { seq: string }).seq, 0, 1, Number.MAX_SAFE_INTEGER, 'seq');
    // An event pruned since (events.retention) cannot be sent again: its delivery is left as it is,
    // not made dead, which would also keep every later event from being pruned.
    const missing = notFound(`webhook ${name} has no delivery of event #${seq}`);
    if ((await db.outbox.log.bySeq([seq])).length === 0) {
      const [delivery] = await store.list(name, undefined, { after: seq - 1, limit: 1 });
      if (delivery?.seq !== seq) throw missing;
      throw new HttpError(409, `event #${seq} is no longer retained (events.retention): it cannot be sent again`);
    }
    if (!(await store.retry(name, seq, Date.now()))) throw missing;
    wake();
    return { retried: 1 };
  });
  completeRoute(app, '/_webhooks/:name/deliveries/:seq/retry', ['POST']);

  app.post('/_webhooks/:name/retry-dead', { schema: { querystring: noQuery } }, async (request) => {
    await operator(request, 'retry webhook deliveries');
    const name = subscription(request);
    const retried = await store.retryDead(name, Date.now());
    wake();
    return { retried };
  });
  completeRoute(app, '/_webhooks/:name/retry-dead', ['POST']);
}

function shown(d: Delivery) {
  return {
    seq: d.seq,
    event_id: d.eventId,
    type: d.type,
    object: d.object,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? new Date(d.nextAt).toISOString() : null,
    last_status: d.lastStatus,
    last_error: d.lastError,
    done_at: d.doneAt === null ? null : new Date(d.doneAt).toISOString(),
  };
}

/** What `GET /_webhooks/{name}/deliveries` takes. */
const LIST_PARAMETERS: ReadonlySet<string> = new Set(['status', '_limit', '_after']);

function whole(text: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (text === undefined || text === '') return fallback;
  // Digits only: Number() also reads `0x10`, `1e3` and ` 7`, which no client means as a seq.
  const n = typeof text === 'string' && /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw badRequest(`${name} must be a whole number from ${min} to ${max}`, [{ field: name, message: 'invalid' }]);
  return n;
}

function nextUrl(request: FastifyRequest, seq: number): string {
  const url = new URL(requestTarget(request), requestOrigin(request));
  url.searchParams.set('_after', String(seq));
  return url.href;
}
