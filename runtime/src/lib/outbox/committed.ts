/**
 * In-process subscribers: user code (src/custom/events/<model>.ts) that runs after a change is
 * committed, outside the request, with the webhooks' guarantees — at least once, in seq order for
 * the events of one object, retried with backoff when it throws, dead after
 * `webhooks.max_attempts` (listed, and retried by hand, at `{base}/_webhooks/local.<Model>`).
 * A handler that must not act twice keys its work on `event.id`.
 */
import type { Outcome } from '../webhooks/types.js';
import type { Target } from '../webhooks/dispatcher.js';
import type { ServiceEvent } from './types.js';

/** A handler: the event, and what it may use (`context.db`: the service's repositories). */
type Handler<E, C> = (event: E, context: C) => void | Promise<void>;

/** What a model's stub is given: `on('Story.create', async (event, { db }) => …)`, once per type or more. */
export type Subscribe<E extends { readonly type: string }, C = unknown> = <T extends E['type']>(
  type: T,
  handler: Handler<E & { readonly type: T }, C>,
) => void;

/** A model's stub: it subscribes its handlers with `on`. */
export type Subscriber<E extends { readonly type: string }, C = unknown> = (on: Subscribe<E, C>) => void;

/**
 * The delivery targets of the subscribers, one per model that has any (`local.<Model>`). Each
 * stub is typed by its own model's events (`(on: never) => void` takes any of them); each handler
 * is given `context` with its event (src/subscribers.ts: the service's database).
 */
export function committedTargets(
  subscribers: Readonly<Record<string, (on: never) => void>>,
  context: unknown,
): Target[] {
  return Object.entries(subscribers).flatMap(([model, stub]) => {
    const handlers = new Map<string, Handler<ServiceEvent, unknown>[]>();
    const subscribe = stub as Subscriber<ServiceEvent>;
    subscribe((type, handler) => {
      if (!type.startsWith(`${model}.`)) throw new Error(`src/custom/events: ${model} cannot subscribe to ${type}`);
      handlers.set(type, [...(handlers.get(type) ?? []), handler as Handler<ServiceEvent, unknown>]);
    });
    if (handlers.size === 0) return [];
    return [
      {
        name: `local.${model}`,
        matches: (type: string) => handlers.has(type),
        deliver: (event: ServiceEvent) => run(handlers.get(event.type) ?? [], event, context),
      },
    ];
  });
}

/** The handlers of one event, in the order they subscribed; a throw fails the delivery (all run again). */
async function run(
  handlers: readonly Handler<ServiceEvent, unknown>[],
  event: ServiceEvent,
  context: unknown,
): Promise<Outcome> {
  try {
    for (const handler of handlers) await handler(event, context);
    return { ok: true, status: 200 };
  } catch (error) {
    return { ok: false, status: null, error: error instanceof Error ? error.message : String(error) };
  }
}
