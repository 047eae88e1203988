/**
 * Who sees a field in answers, by the privacy lists (runtime lib/auth/policy.ts `fieldsFor`):
 * anonymous callers `_public_fields`, logged-in ones `_auth_fields` (absent: all) and, in a group,
 * its `_group_fields` too; no one but admins `_hidden_fields`. The ACL matrix, the OpenAPI
 * document and the checks ask it here.
 */
import { holdsKey } from './links.js';
import type { Model } from './types.js';

/** The callers privacy lists tell apart (a group: the members in it); admins see every field. */
export type ListedAudience = 'anonymous' | 'member' | { readonly group: string };

/** Whether `model`'s own lists show its field `name` to `who`. */
export function listedFor(model: Model, who: ListedAudience, name: string): boolean {
  if (model.hiddenFields.includes(name)) return false;
  const listed = (list: readonly string[] | null) => list === null || list.includes(name);
  if (who === 'anonymous') return listed(model.publicFields);
  if (listed(model.authFields)) return true;
  return typeof who === 'object' && model.groupFields.some((g) => g.group === who.group && g.fields.includes(name));
}

/**
 * Whether every caller who reads an object of `model` is shown its field `name` (with no `_fields`):
 * anonymous and logged-in callers alike, so admins and every group too. Then the client's types
 * say the field is always there, and the OpenAPI document names no audience for it.
 */
export function seenByEveryone(models: readonly Model[], model: Model, name: string): boolean {
  return (['anonymous', 'member'] as const).every(
    (who) => listedFor(model, who, name) && !hiddenByTheOtherSide(models, model, who, name),
  );
}

/**
 * Whether some caller who reads an object of `model` is not shown all of it: the users' model
 * (their passwords), or a privacy list that leaves a field out for anonymous or logged-in callers.
 */
export function withholdsFields(model: Model): boolean {
  return (
    model.isAuthModel ||
    model.fields.some((f) => !listedFor(model, 'anonymous', f.name) || !listedFor(model, 'member', f.name))
  );
}

/** Every group a `_group_fields` names, in the order of the models. */
export function groupsWithFields(models: readonly Model[]): string[] {
  return [...new Set(models.flatMap((m) => m.groupFields.map((g) => g.group)))];
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
