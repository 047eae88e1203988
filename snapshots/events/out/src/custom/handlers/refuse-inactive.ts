// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The refuse_inactive event handler.
import type { RefuseInactiveEvent } from '../../events.js';

/**
 * The `refuse_inactive` event handler, for:
 *   User: before_login
 *
 * `event.fields` holds the fields the request writes (`const title = event.fields.title;
 * if (!title) return;` then `title.new_value`: `'title' in event.fields` does not narrow its type),
 * `event.instance` the object of an item action as it was before it, read before anything was locked
 * (a guard that decides by its state locks and reads it again: the README's "lockForUpdate"; in after
 * events too: the object as written is `event.object`), `event.where` what a change of many selects, `event.response` the response (after events),
 * `event.view.request` the request (`request.user` is the caller: null when anonymous, and
 * whenever auth = false, as in the generated tests), and `event.db` the
 * repositories of every model in this request's transaction. `event.setFieldValue(name, value)`
 * changes what is written (before events) or the response (after events): a value the change
 * decides (a ride's cost when it closes) is a before handler's to set, which is written, answered
 * and in the change's event; an after handler's is in the answer alone. Throw an HttpError
 * (from '../../lib/errors.js') to refuse the request: everything it did is rolled back.
 * What a handler writes through `event.db` is no event (no webhook, no change feed); through
 * `recorded(event.db)` (from '../../lib/outbox/recorded.js') each write appends its events.
 * `event.signal` is aborted when the request's time is up (http.handler_timeout): pass it to what
 * the handler waits for (`fetch(url, { signal: event.signal })`). The service waits no longer
 * then: it answers 503 and rolls the transaction back, and what the handler does with `event.db`
 * after that fails. A call to another service belongs in an after handler only if the request must
 * fail with it; one that must follow the committed change is a webhook or a subscriber (the README's
 * "Events and webhooks").
 */
export async function refuseInactive(event: RefuseInactiveEvent): Promise<void> {}
