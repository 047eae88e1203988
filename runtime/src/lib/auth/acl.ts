/**
 * Access control lists: `allow|deny <principal> <permissions>` rules, read in order;
 * the first rule that matches one of the caller's principals decides, and when none does the
 * request is denied. Item routes read the item rules, then the collection rules. A `{{name}}`
 * principal is a user-owned function that returns rules for this request and object.
 */
import type { FastifyRequest } from 'fastify';
import type { Where } from '../repository.js';
import type { RequestBy } from '../events.js';
import { loginForm } from './logins.js';

export type Permission = 'view' | 'create' | 'update' | 'delete' | 'options';
export const ALL_PERMISSIONS: readonly Permission[] = ['view', 'create', 'update', 'delete', 'options'];

/** Who a rule is for. A user is named by their primary key. */
export type Principal = 'everyone' | 'authenticated' | { readonly group: string } | { readonly user: string | number };

/** A rule as a dynamic principal returns it. */
export interface AclEntry {
  readonly action: 'allow' | 'deny';
  readonly principal: Principal;
  readonly permissions: readonly Permission[] | 'all';
}

/** What a dynamic principal returns: rules, one rule, or nothing (the line then matches no one). */
export type AclResult = readonly AclEntry[] | AclEntry | null | undefined | false;

/** The line of the ACL that names the dynamic principal: its action and permissions. */
export interface AclRule {
  readonly action: 'allow' | 'deny';
  readonly permissions: readonly Permission[];
  /**
   * The model whose objects the line decides on (`'Venue'`): one principal may stand in the x-ACLs
   * of several models, and its `where` names fields of the one asked about.
   */
  readonly model: string;
  /**
   * Below a parent (a nested route's collection rules: a create or a list of `/users/{username}/profile`,
   * `/spaces/{id}/pages`), the parent the URL names, as its model's type has it (links as keys),
   * once the caller may view it; for a write that links an object below a parent another way
   * (http/relinks.ts), that parent (the written object as it will be, when the link is its backref).
   * Undefined elsewhere.
   */
  readonly parent?: Readonly<Record<string, unknown>>;
  /** The model of `parent` (`'Lab'`), where there is one: a principal used below several models tells them apart. */
  readonly parentModel?: string;
}

/**
 * `{{name}}` in an x-ACL: called with the request (`request.user` is the caller, or null), the
 * object (item rules; undefined for collection rules) and the line it stands in.
 */
export interface DynamicPrincipal<T = Record<string, unknown>, U = Record<string, unknown>> {
  (request: RequestBy<U>, object: T | undefined, rule: AclRule): AclResult | Promise<AclResult>;
  /**
   * Optional, for item rules: the objects the function gives the caller the line's rule on, as a
   * condition the database applies (`{ owner: request.user?.username ?? null }`), or `true` (every
   * object) or `false` (none). Lists, counts and searches then leave out the objects the caller may
   * not view, and `total` stays exact. It must agree with the function: an object it selects is one
   * the function gives the caller `grant(rule, …)` on. Without it, lists show what the collection
   * rules allow once the item rules reach this line.
   */
  where?: (request: RequestBy<U>, rule: AclRule) => PrincipalWhere<T> | Promise<PrincipalWhere<T>>;
}

/** What a principal's `where` gives: a condition on the objects, or all (`true`) or none (`false`). */
export type PrincipalWhere<T> = Where<T> | boolean;

/** A dynamic principal as an ACL line holds it, whatever its object type. */
export interface DynamicLine {
  readonly dynamic: string;
  readonly call: DynamicPrincipal<never>;
  /** Where the user writes it (`src/custom/principals/item-owner.ts`), for messages. */
  readonly file?: string;
}

/**
 * `{{name}}` of the ACLs: `call` typed by the objects of the ACLs that name it and by the caller
 * (src/auth.ts): `U`, the signed-in user, as stubs type it; or `M`, the user model, as stubs made
 * before that type did (they are the user's, and still build).
 */
export function dynamicPrincipal<T, U = Record<string, unknown>, M = U>(
  name: string,
  call: DynamicPrincipal<T, U> | DynamicPrincipal<T, M>,
  file?: string,
): DynamicLine {
  return { dynamic: name, call: call as unknown as DynamicPrincipal<never>, ...(file === undefined ? {} : { file }) };
}

/** One line of an x-ACL, as generated from the RAML (its model and parent are the request's, known when it is read). */
export interface AclLine extends Omit<AclRule, 'model' | 'parent' | 'parentModel'> {
  readonly principal: Principal | DynamicLine;
  /** The line as written, for messages. */
  readonly text: string;
}

export interface Acl {
  readonly collection: readonly AclLine[];
  readonly item: readonly AclLine[];
}

/** The principals of a request. */
export interface Caller {
  /** The user's primary key as text, or null when anonymous. */
  readonly id: string | null;
  readonly groups: ReadonlySet<string>;
}

export const ANONYMOUS: Caller = { id: null, groups: new Set() };

/** The rule `rule` applied to `principal`: what a dynamic principal usually returns. */
export function grant(rule: AclRule, principal: Principal): AclEntry {
  return { action: rule.action, principal, permissions: rule.permissions };
}

export const user = (id: string | number): Principal => ({ user: id });
export const group = (name: string): Principal => ({ group: name });

/** An ACL that allows `g:admin` everything and nobody anything else: resources without an x-ACL. */
export const ADMIN_ONLY: Acl = {
  collection: [
    { action: 'allow', principal: { group: 'admin' }, permissions: ALL_PERMISSIONS, text: 'allow g:admin all' },
  ],
  item: [],
};

export interface Decision {
  readonly allowed: boolean;
  /** The line that decided, or null when none matched. */
  readonly line: string | null;
}

/**
 * The decision for `permission`. `object` given: the item rules with that object, then the
 * collection rules; otherwise the collection rules.
 */
export async function decide(
  acl: Acl,
  caller: Caller,
  permission: Permission,
  request: FastifyRequest,
  model: string,
  object?: Record<string, unknown>,
  parent?: { readonly object: Record<string, unknown>; readonly model: string | undefined },
): Promise<Decision> {
  const asked = parent ? { model, parent: parent.object, parentModel: parent.model } : { model, parent: undefined };
  if (object !== undefined) {
    const item = await firstMatch(acl.item, caller, permission, request, asked, object);
    if (item) return item;
  }
  return (
    (await firstMatch(acl.collection, caller, permission, request, asked, undefined)) ?? {
      allowed: false,
      line: null,
    }
  );
}

/** Whether the collection rules call a user function, which may decide by the parent (`AclRule.parent`). */
export function collectionCallsUserCode(acl: Acl): boolean {
  return acl.collection.some((line) => isDynamic(line.principal));
}

/** Whether the item rules call no user function, so the decision does not depend on the object. */
export function decidesWithoutObject(acl: Acl): boolean {
  return acl.item.every((line) => !isDynamic(line.principal));
}

export function isDynamic(principal: AclLine['principal']): principal is DynamicLine {
  return typeof principal === 'object' && 'dynamic' in principal;
}

/** Which objects of a list a caller may see: all, none, or those a condition selects. */
export type Selection = boolean | Where<Record<string, unknown>>;

/**
 * The objects of a collection the caller may `permission` (view) by the item rules, as one
 * condition for the database: the rules read in order, as `decide` reads them for one object. A
 * line of a fixed principal (a group, `authenticated`, a user) decides every object it reaches;
 * a `{{principal}}` line decides the objects its `where` selects; objects no line decides fall
 * back to the collection rules, which let the caller list (`decide` ran them first). A
 * `{{principal}}` without `where` cannot be decided in the database: from its line on, objects
 * are shown as the collection rules allow (as Ramses lists did).
 */
export async function selectable(
  acl: Acl,
  caller: Caller,
  permission: Permission,
  request: FastifyRequest,
  model: string,
): Promise<Selection> {
  return (await reachableSelection(acl, caller, permission, request, model, true))!;
}

/**
 * `selectable` for objects met away from their routes (keys in another object's links), where
 * nothing asked the collection rules first: `listable` is what they answer. Null when a
 * `{{principal}}` without `where` decides some objects and the collection rules would not show
 * them: each must then be decided alone.
 */
export async function reachableSelection(
  acl: Acl,
  caller: Caller,
  permission: Permission,
  request: FastifyRequest,
  model: string,
  listable: boolean,
): Promise<Selection | null> {
  let allowed: Selection = false; // decided by an allow line so far
  let decided: Selection = false; // decided by any line so far
  let denied: Selection = false; // decided by a deny line so far
  for (const line of acl.item) {
    if (!line.permissions.includes(permission)) continue;
    const principal = line.principal;
    if (!isDynamic(principal)) {
      if (!matches(principal, caller)) continue;
      return line.action === 'allow' ? except(denied) : allowed;
    }
    const where = principal.call.where;
    if (!where) return listable ? except(denied) : null;
    const selected = await where(request, { action: line.action, permissions: line.permissions, model });
    const fresh = both(selected, except(decided));
    if (line.action === 'allow') allowed = either(allowed, fresh);
    else denied = either(denied, fresh);
    decided = either(decided, selected);
  }
  // The objects no line decides: the collection rules'.
  return listable ? except(denied) : allowed;
}

function either(a: Selection, b: Selection): Selection {
  if (a === true || b === true) return true;
  if (a === false) return b;
  if (b === false) return a;
  return { OR: [a, b] };
}

function both(a: Selection, b: Selection): Selection {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return { AND: [a, b] };
}

/** The objects `a` does not select (those it is unknown for, a comparison with a null, included). */
function except(a: Selection): Selection {
  return typeof a === 'boolean' ? !a : { EXCEPT: a };
}

async function firstMatch(
  lines: readonly AclLine[],
  caller: Caller,
  permission: Permission,
  request: FastifyRequest,
  asked: {
    readonly model: string;
    readonly parent: Record<string, unknown> | undefined;
    readonly parentModel?: string | undefined;
  },
  object: Record<string, unknown> | undefined,
): Promise<Decision | undefined> {
  for (const line of lines) {
    const principal = line.principal;
    const entries: readonly (AclEntry & { text?: string })[] = isDynamic(principal)
      ? expand(
          await principal.call(request, object as never, {
            ...asked,
            action: line.action,
            permissions: line.permissions,
          }),
        )
      : [{ ...line, principal }];
    for (const entry of entries) {
      const permissions = entry.permissions === 'all' ? ALL_PERMISSIONS : entry.permissions;
      if (permissions.includes(permission) && matches(entry.principal, caller)) {
        return { allowed: entry.action === 'allow', line: line.text };
      }
    }
  }
  return undefined;
}

function expand(result: AclResult): readonly AclEntry[] {
  if (!result) return [];
  return Array.isArray(result) ? result : [result as AclEntry];
}

export function matches(principal: Principal, caller: Caller): boolean {
  if (principal === 'everyone') return true;
  if (principal === 'authenticated') return caller.id !== null;
  if ('group' in principal) return caller.id !== null && caller.groups.has(principal.group);
  return caller.id !== null && caller.id === String(principal.user);
}

/**
 * The dynamic principals whose function is still the stub svcgen wrote (its body only
 * `return undefined`): the ACL lines that name them match no one, which a service ported from
 * Ramses should hear of at start-up. Judged by the function's source text, so it only warns.
 */
/**
 * The user ids the x-ACLs grant to by name (`allow alice view`), as logins are compared: no one
 * may register as one of them, or the first stranger to take the name would hold what the API
 * gives its user (an admin creates them).
 */
export function namedUsers(acls: Readonly<Record<string, Acl>>): ReadonlySet<string> {
  const named = new Set<string>();
  for (const acl of Object.values(acls))
    for (const { principal } of [...acl.collection, ...acl.item])
      if (typeof principal === 'object' && 'user' in principal) named.add(loginForm(String(principal.user)));
  return named;
}

export function unwrittenPrincipals(acls: Readonly<Record<string, Acl>>): DynamicLine[] {
  const found = new Map<string, DynamicLine>();
  for (const acl of Object.values(acls)) {
    for (const { principal } of [...acl.collection, ...acl.item]) {
      if (isDynamic(principal) && STUB_BODY.test(principal.call.toString())) found.set(principal.dynamic, principal);
    }
  }
  return [...found.values()].sort((a, b) => (a.dynamic < b.dynamic ? -1 : 1));
}

const STUB_BODY = /\)\s*(?::[^{]*)?\{\s*return(?:\s+undefined)?;?\s*\}\s*$/;
