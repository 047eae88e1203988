// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The lowercase field processor.
import type { LowercaseArgs } from '../../events.js';

/**
 * The `lowercase` field processor, for:
 *   User.username
 *   User.email
 *
 * Runs before a create, update, replace or bulk update that writes the field, after the event
 * handlers and the processors listed before it. Returns the value to write; `instance` is the
 * object being updated (undefined on create, and on a bulk update, where it runs once for all the
 * objects the change selects), `event` the event of the action.
 */
export function lowercase({ new_value }: LowercaseArgs): LowercaseArgs['new_value'] {
  return new_value;
}
