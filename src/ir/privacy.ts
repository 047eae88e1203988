/**
 * Who sees a field in answers, by the privacy lists (runtime lib/auth/policy.ts `fieldsFor`):
 * anonymous callers `_public_fields`, logged-in ones `_auth_fields` (absent: all), no one but
 * admins `_hidden_fields`. The ACL matrix, the OpenAPI document and the checks ask it here.
 */
import { holdsKey } from './links.js';
import type { Model } from './types.js';

/** The callers privacy lists tell apart; admins see every field. */
export type ListedAudience = 'anonymous' | 'member';

/** Whether `model`'s own lists show its field `name` to `who`. */
export function listedFor(model: Model, who: ListedAudience, name: string): boolean {
  const listed = who === 'anonymous' ? model.publicFields : model.authFields;
  return (listed === null || listed.includes(name)) && !model.hiddenFields.includes(name);
}

/**
 * Whether `name` is a link kept in the other model's rows (a speaker's `proposals`) whose link
 * back that model hides from `who` (each proposal's `speaker`): then it shows them nothing, since
 * its keys would tell them what that link does.
 */
export function hiddenByTheOtherSide(
  models: readonly Model[],
  model: Model,
  who: ListedAudience,
  name: string,
): boolean {
  const backref = model.relationships.find((r) => r.name === name && !holdsKey(model, r));
  const target = backref && models.find((m) => m.name === backref.target);
  return backref !== undefined && target !== undefined && !listedFor(target, who, backref.inverse);
}
