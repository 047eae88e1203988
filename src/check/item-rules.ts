/**
 * Item rules that the collection rules undo. Item routes fall back to the collection rules for a
 * caller no item line decides (as the contract says, and as Ramses did): so an item line that gives
 * a permission to a `{{principal}}` (`allow {{owner}} view, update`) restricts nothing when a
 * collection line gives it to every member (`allow authenticated view, update`): a member who is not
 * the owner reaches that line. A group's line does the same for its members (`allow g:student view`
 * beside `allow {{log_reader}} view`), where the item line names the permission. So does a
 * `{{principal}}` collection line (`allow {{volunteer}} view`) where the x-ACL guards a flat item
 * route (`/signups/{id}`): it is asked there without the object or a parent, so whomever it lets list
 * it lets at every object the item rules leave to it. checks.ts (SVC2081) says so where it happens;
 * acl/matrix.ts reads the rules the same way, for `inspect --acl`.
 */
import type { Acl, AclEntry, Permission, ServiceIR } from '../ir/types.js';
import { permissionTextOf } from '../ir/build/security.js';

/**
 * The permissions of item routes. `view` given by a collection's `allow everyone view` only where
 * the item line names `view` itself: `allow {{owner}} all` beside it is "everyone reads, the owner
 * does the rest"; `allow {{reader}} view` reads as "only readers read" (a probe's draft
 * advisories, read by everyone, anonymous callers too). ramses-example's `allow {{item_owner}}
 * view, update` beside `allow everyone view` is said too: its `view` gives nothing.
 */
const ITEM_PERMISSIONS: readonly Permission[] = ['view', 'update', 'delete'];

/**
 * Whether a line speaks of a member (logged in, in group `user` and in `group`, no admin) who is
 * not the object's owner, or of its owner: the one a `{{principal}}` stands for.
 */
function matches(entry: AclEntry, caller: 'member' | 'owner', group: string): boolean {
  const p = entry.principal;
  if (p.kind === 'dynamic') return caller === 'owner';
  if (p.kind === 'group') return p.group === 'user' || p.group === group;
  return p.kind === 'everyone' || p.kind === 'authenticated';
}

/**
 * The groups whose members are asked about: `user` (every registered member's), and each group a
 * collection line gives a permission to by name (`allow g:student view`: a student who owns
 * nothing falls back to it too). Not admins, nor a group given `all` (`allow g:editor all`): the
 * collection rules are meant to give those everything, on every object.
 */
function memberGroups(acl: Acl): string[] {
  const named = acl.collection.flatMap((e) =>
    e.principal.kind === 'group' && e.action === 'allow' && !names(e, 'all') ? [e.principal.group] : [],
  );
  return [...new Set(['user', ...named])].filter((group) => group !== 'admin');
}

export interface UndoneItemRule {
  readonly acl: Acl;
  /** What the item line gives and the collection line gives again, in ITEM_PERMISSIONS' order. */
  readonly permissions: readonly Permission[];
  /** The item line that gives the permission to its principal (the owner). */
  readonly itemLine: AclEntry;
  /** The collection line that gives it to every member besides, or to whom its `{{principal}}` grants without an object. */
  readonly collectionLine: AclEntry;
  /** The members it gives it to: `user` (every member), or the group the collection line names. */
  readonly group: string;
}

/** Each x-ACL guarding an item route whose item rules give a permission to a principal the collection rules then give to every member. */
export function undoneItemRules(ir: ServiceIR): UndoneItemRule[] {
  const onItems = new Set(ir.routes.filter((r) => r.kind !== 'collection' && r.acl !== null).map((r) => r.acl));
  // Below a parent the principal gets it as `rule.parent`, and may decide by it; on a flat item route, by nothing.
  const onFlatItems = new Set(
    ir.routes.filter((r) => r.kind === 'item' && !r.parent && r.acl !== null).map((r) => r.acl),
  );
  const found: (UndoneItemRule & { permissions: Permission[] })[] = [];
  for (const acl of ir.acls) {
    if (!onItems.has(acl.name)) continue;
    for (const group of memberGroups(acl))
      for (const permission of ITEM_PERMISSIONS) {
        const undone = undoneFor(acl, permission, group, onFlatItems.has(acl.name));
        if (!undone) continue;
        const same = found.find(
          (f) => f.acl === acl && f.itemLine === undone.itemLine && f.collectionLine === undone.collectionLine,
        );
        if (!same) found.push({ acl, permissions: [permission], ...undone });
        else if (!same.permissions.includes(permission)) same.permissions.push(permission);
      }
  }
  return found;
}

/** The item line a member of `group` who owns nothing gets past, and the collection line that gives them `permission`. */
function undoneFor(acl: Acl, permission: Permission, group: string, flatItems: boolean) {
  const first = (entries: readonly AclEntry[], caller: 'member' | 'owner') =>
    entries.find((e) => e.permissions.includes(permission) && matches(e, caller, group));
  const itemLine = first(acl.item, 'owner');
  if (itemLine?.action !== 'allow' || itemLine.principal.kind !== 'dynamic') return undefined;
  if (first(acl.item, 'member')) return undefined; // the item rules decide for these members too
  // A `{{principal}}` there is asked without the object: whom it lets list, it lets at every object.
  const collectionLine = acl.collection.find(
    (e) =>
      e.permissions.includes(permission) &&
      (matches(e, 'member', group) || (e.principal.kind === 'dynamic' && flatItems)),
  );
  if (collectionLine?.action !== 'allow') return undefined;
  if (permission === 'view' && collectionLine.principal.kind === 'everyone' && !names(itemLine, 'view'))
    return undefined;
  // A group's line undoes an item line only where that line names the permission itself (`allow
  // {{log_reader}} view`: "only readers read"); one that gets it by `all` (`allow {{owner}} all`
  // beside moderators' `view, delete`) leaves the rest to the collection's groups.
  if (group !== 'user' && collectionLine.principal.kind === 'group' && !names(itemLine, permission)) return undefined;
  return { itemLine, collectionLine, group };
}

/**
 * Whether a line names `permission` (or `all`) itself, not only by `all` (`allow {{owner}} all` beside a
 * collection's `allow everyone view` is "everyone reads, the owner does the rest", and says nothing of reading).
 */
function names(entry: AclEntry, permission: Permission | 'all'): boolean {
  return permissionTextOf(entry.text)
    .split(',')
    .some((p) => p.trim().toLowerCase() === permission);
}
