// Created by svcgen from api.raml; this file is yours: svcgen never changes it. The {{item_owner}} ACL principal.
import type { AclResult, AclRule, PrincipalWhere, RequestBy } from '../../lib/auth/index.js';
import type { SignedInUser } from '../../models/user.js';
import type { ItemOwnerObject } from '../../principals.js';

/**
 * The `{{item_owner}}` principal, in:
 *   item_owner_acl (item): allow {{item_owner}} view, update
 *
 * Called when a request is checked against that line: `request.user` is the caller (their
 * User as stored in its own row: its links kept in other models' rows are not read; null
 * when anonymous), `object` the object of an item route (undefined for collection rules),
 * `rule` the line's action and permissions, `rule.model` the model asked about and, below a parent
 * (a create or a list of a nested route, a write that links an object below one), `rule.parent`
 * that parent and `rule.parentModel` its model. Return the rules
 * it stands for, e.g. for the object's owner:
 *   return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
 * or, for anyone (logged in or not) where the object is public:
 *   return object?.published ? grant(rule, 'everyone') : undefined;
 * (`grant` and `user` come from '../../lib/auth/index.js'). Returning nothing: the line matches no one.
 * A field it decides by (`owner`) should be one the callers it grants may not write (`"readOnly": true`),
 * or may set only when they create the object (`"_write_once": true`): where the same x-ACL lets them
 * `update` the object and the field is writable, they can hand the object, and what only its owner
 * sees, to someone else.
 * The request may be another route's (a write that links to these objects, the change feed): decide
 * by `object`, `rule.parent` and `request.user`, never by the URL's parameters. It may be async
 * (`export async function …(…): Promise<AclResult>`) and
 * read other objects (a membership) with `databaseOf(request)` from '../../db/index.js'. What it
 * reads there is as it is now, also when the change feed judges a past event: a photo made in a
 * private album, then published with it, shows its earlier versions to whoever may view it now.
 * During a write it reads in the write's transaction: a read that fails fails the write (PostgreSQL).
 * Check a value before reading by it, rather than catch the error. The object a write judges is
 * read again under its row lock, so that a change of it meanwhile is judged; another object read
 * here (the pet a chip's owner is read from) is not locked: on PostgreSQL a write may land as that
 * one changes. Where that matters, lock it first, in a write (`await db.pet.lockForUpdate(key)`
 * with `db = databaseOf(request)`; outside a write it locks nothing).
 */
export function itemOwner(
  request: RequestBy<SignedInUser>,
  object: ItemOwnerObject | undefined,
  rule: AclRule,
): AclResult {
  return undefined;
}

/**
 * The objects `itemOwner` gives the caller the rule on, as a condition the database applies
 * to lists, counts and searches (so that they leave out what the caller may not view, and `total`
 * stays exact): `true` for every object, `false` for none. Keep it in step with the function, e.g.
 * for the owner:
 *   return request.user ? { owner: request.user.username } : false;
 * It may be async too (`async (…): Promise<PrincipalWhere<…>>`): for the members of a space, the spaces the caller is a member of, read once
 * with `databaseOf(request)`, as `{ space: { in: keys } }`.
 * `rule.model` names the model asked about.
 * Without it (delete it), lists show what the collection rules allow once they reach this line.
 */
itemOwner.where = (request: RequestBy<SignedInUser>, rule: AclRule): PrincipalWhere<ItemOwnerObject> => false;
