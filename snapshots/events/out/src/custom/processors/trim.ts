// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The trim field processor.
import type { TrimArgs } from '../../events.js';

/**
 * The `trim` field processor, for:
 *   Task.title
 *   User.display_name
 *
 * Runs before a create, update, replace or bulk update that writes the field, after the event
 * handlers and the processors listed before it. Returns the value to write; `instance` is the
 * object being updated (undefined on create, and on a bulk update, where it runs once for all the
 * objects the change selects), `event` the event of the action.
 */
export function trim({ new_value }: TrimArgs): TrimArgs['new_value'] {
  return new_value;
}
