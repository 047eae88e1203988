/**
 * The events of changes made through the repositories, which make none: a script of the user's
 * (a nightly job that locks boxes) records what it changed, so that webhooks, subscribers and the
 * change feed see it as they see a route's change. In the transaction of `db` (a script opens one
 * with `db.transaction`), so that the change and its event are committed together.
 */
import type { ServiceDatabase } from '../database.js';
import { linkKeys } from '../http/serialize.js';
import { apiModelNames } from '../model.js';
import { newEvent } from './event.js';
import type { EventAction } from './types.js';

type Rec = Record<string, unknown>;

/**
 * Appends the event of `action` on the object `key` of `model`: as it is now (read here, with its
 * links' keys, as a route's event names them), or, for a delete, `before` (the object as it was).
 * For an update or a replace of a model with `_event_previous`, `before` is its `previous`.
 */
export async function recordChange(
  db: ServiceDatabase,
  model: string,
  action: EventAction,
  key: unknown,
  before?: object,
): Promise<void> {
  const spec = db.models.get(model);
  // svcgen's own models (credentials, the login brake's counts) are in no event.
  if (!spec || spec.internal)
    throw new Error(`recordChange: no model ${model} of the API (models: ${apiModelNames(db.models).join(', ')})`);
  if (action === 'delete') {
    if (!before) throw new Error(`recordChange: a delete of ${model} ${String(key)} needs the object as it was`);
    return db.appendEvents([newEvent(db.models, spec, 'delete', before as Rec)]);
  }
  const now = await db.repository(model).findUnique({ where: { [spec.primaryKey]: key }, include: linkKeys(spec) });
  if (!now) throw new Error(`recordChange: ${model} ${String(key)} not found`);
  const previous = spec.eventPrevious && (action === 'update' || action === 'replace') ? (before as Rec) : undefined;
  return db.appendEvents([newEvent(db.models, spec, action, now, previous)]);
}
