/**
 * The users' groups as the IR gives them: the user model's `groups` field, and the groups a
 * registered user starts in (its literal default). Read by the ACL matrix (its members) and by the
 * checks (a group named without `g:`), which may not import each other.
 */
import type { Field, ServiceIR } from './types.js';

/** The user model's `groups` field; undefined without auth. */
export function groupsField(ir: ServiceIR): Field | undefined {
  return ir.models.find((m) => m.name === ir.auth?.userModel)?.fields.find((f) => f.name === 'groups');
}

/** The groups a registered user starts in: the `groups` field's literal default, a list of names; undefined where it has none. */
export function defaultGroups(ir: ServiceIR): readonly string[] | undefined {
  const given = groupsField(ir)?.default;
  const value = given?.kind === 'literal' ? given.value : null;
  return Array.isArray(value) && value.every((g) => typeof g === 'string') ? value : undefined;
}
