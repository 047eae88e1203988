/**
 * Who changes a field once its object is made (runtime lib/http/policy.ts `isFixed`): for a
 * read-only field and a write-once one, admins and the service's own code alone. The ACL matrix,
 * the OpenAPI document and the generated tests ask it here.
 */
import type { Field } from './types.js';

export type FixedRule = 'read-only' | 'write-once';

/** The rule that keeps clients from changing `field` once its object exists; null where there is none. */
export function fixedRule(field: Field): FixedRule | null {
  return field.readOnly ? 'read-only' : field.writeOnce ? 'write-once' : null;
}
