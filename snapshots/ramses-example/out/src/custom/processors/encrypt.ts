// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The encrypt field processor.
import type { EncryptArgs } from '../../events.js';

/**
 * The `encrypt` field processor, for:
 *   User.password
 *
 * Runs before a create, update, replace or bulk update that writes the field, after the event
 * handlers and the processors listed before it. Returns the value to write; `instance` is the
 * object being updated (undefined on create, and on a bulk update, where it runs once for all the
 * objects the change selects), `event` the event of the action.
 */
export function encrypt({ new_value }: EncryptArgs): EncryptArgs['new_value'] {
  return new_value;
}
