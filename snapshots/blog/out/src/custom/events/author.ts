// Created by svcgen from api.raml; this file is yours: svcgen never changes it. What runs after a change of an Author is committed.
import type { Subscriptions } from '../../committed.js';

/**
 * What runs after a change of an Author is committed: outside the request (the caller already has
 * the answer), at least once, in commit order for the changes of one object, retried with backoff
 * when a handler throws, and dead after `webhooks.max_attempts` (see `{base}/_webhooks/local.Author`).
 * A handler that must not act twice keys its work on `event.id`. It is given the service's database
 * too (`db`: the repositories; what it writes there is no event).
 *
 *   on('Author.create', async (event, { db }) => {
 *     console.log(event.data.pk, event.data.object, await db.author.count());
 *   });
 *
 * Its updates say what changed, and from what (`_event_previous`):
 *
 *   on('Author.update', async (event) => {
 *     if (event.data.changed.includes('name')) console.log(event.data.previous, event.data.object);
 *   });
 */
export default function authorSubscriber(on: Subscriptions<'Author'>): void {}
