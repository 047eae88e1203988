/**
 * The effective permission matrix of an API: for every route and method, what each
 * kind of caller gets when auth is on. `svcgen inspect --acl` prints it and the generated project's
 * `test/acl.test.ts` checks the running service against it. It follows the runtime's rules
 * (lib/auth/acl.ts): first matching line decides, item rules then collection rules, no match
 * denies, routes without an x-ACL are for `g:admin` only. Below a parent the caller may not view
 * (or a parent's parent), what is not refused before anything is read is that parent's 404 where
 * its rules read it (a principal), else its own 401 or 403; a create that makes the new object a
 * parent's one-to-one partner also needs `update` on that parent.
 *
 * The callers: `anonymous`; `member`, a logged-in user in the groups a new user gets (the user
 * model's `groups` default, `user` unless the schema says); `owner`, a member for whom
 * every `{{dynamic}}` principal of the route stands (it returns its line, applied to them); and
 * `admin`, a user in group `admin`.
 */
import type { Acl, AclEntry, Model, Operation, Permission, Route, RouteParent, ServiceIR } from '../ir/types.js';
import { itemsAbove } from '../ir/parents.js';
import { defaultGroups } from '../ir/users.js';
import { decidingLines, modelRules } from '../ir/model-route.js';
import { listedFor } from '../ir/privacy.js';
import { fixedRule } from '../ir/write-rules.js';

export const CALLERS = ['anonymous', 'member', 'owner', 'admin'] as const;
export type CallerKind = (typeof CALLERS)[number];

/** 'allow', or the status a refused caller gets (404: below a parent they may not view). */
export type Outcome = 'allow' | 401 | 403 | 404;

/** One caller's answer: allowed, or refused (by `line`; `status` when it is not the usual 401/403). */
interface Decision {
  readonly allowed: boolean;
  readonly status?: 404;
  readonly line: string | null;
}

export interface MatrixRow {
  readonly route: Route;
  readonly operation: Operation;
  /** Which rules decide: those of the item (then the collection), or of the collection. */
  readonly scope: 'item' | 'collection';
  readonly outcomes: Readonly<Record<CallerKind, Outcome>>;
  /** The line that decided, per caller (null: none matched). */
  readonly lines: Readonly<Record<CallerKind, string | null>>;
  /**
   * The groups the x-ACLs name (`g:kitchen`; not admin's, nor a new user's) whose members are let
   * in: a member in that group too, for whom no `{{principal}}` stands. The columns say nothing
   * of them, and a route taken from such a group would go unseen by `svcgen diff`.
   */
  readonly groupsAllowed: readonly string[];
  /**
   * For an anonymous caller refused by the rules: the `{{principal}}` of an allow line the rules
   * ask before they refuse, which may let them in (one that grants `everyone` for a published
   * object: the matrix's principals stand for a member alone). Null otherwise.
   */
  readonly anonymousUnless: string | null;
  /**
   * The `{{principals}}` whose allow lines the rules reach for this permission, where the owner
   * column is let in: who "owner" stands for, principal by principal (a campaign's GM may delete
   * a character, its player may not).
   */
  readonly principals: readonly string[];
}

/** User ids of the callers in the matrix (and in the generated test). */
export const CALLER_IDS: Readonly<Record<CallerKind, string | null>> = {
  anonymous: null,
  member: 'member',
  owner: 'owner',
  admin: 'admin',
};
/** The groups of each caller: a member has those a new user gets (the user model's `groups` default). */
type Groups = Readonly<Record<CallerKind, readonly string[]>>;

function callerGroups(ir: ServiceIR): Groups {
  const newcomer = newUserGroups(ir);
  return { anonymous: [], member: newcomer, owner: newcomer, admin: ['admin'] };
}

/**
 * The groups a registered user starts in: the user model's literal `groups` default (svcgen's own
 * `groups` field has `["user"]`); none where the schema's field has no default, as registration
 * then gives none.
 */
export function newUserGroups(ir: ServiceIR): readonly string[] {
  return defaultGroups(ir) ?? [];
}

/** `newUserGroups` as a list in prose: `"a", "b"`, or `none`. */
export function newUserGroupsText(ir: ServiceIR): string {
  const groups = newUserGroups(ir);
  return groups.length ? groups.map((g) => JSON.stringify(g)).join(', ') : 'none';
}

const ADMIN_ONLY: Acl = {
  name: '(none: g:admin only)',
  collection: [
    {
      action: 'allow',
      principal: { kind: 'group', group: 'admin' },
      permissions: ['view', 'create', 'update', 'delete', 'options'],
      text: 'allow g:admin all',
    },
  ],
  item: [],
};

/**
 * The groups the x-ACLs and the models' `_group_fields` name but admin and those a new user is in,
 * in the order they are first named (a group that sees a field is let in to its field's route).
 */
export function namedGroups(ir: ServiceIR): string[] {
  const own = new Set(['admin', ...newUserGroups(ir)]);
  const named = ir.acls.flatMap((acl) =>
    [...acl.collection, ...acl.item].flatMap((e) => (e.principal.kind === 'group' ? [e.principal.group] : [])),
  );
  const seeing = ir.models.flatMap((model) => model.groupFields.map((fields) => fields.group));
  return [...new Set([...named, ...seeing])].filter((group) => !own.has(group));
}

export function aclMatrix(ir: ServiceIR): MatrixRow[] {
  const acls = new Map(ir.acls.map((a) => [a.name, a]));
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const groups = callerGroups(ir);
  const named = namedGroups(ir);
  const rows: MatrixRow[] = [];
  for (const route of ir.routes) {
    const acl = (route.acl && acls.get(route.acl)) || ADMIN_ONLY;
    const above = rulesAbove(ir, route);
    for (const operation of route.operations) {
      if (operation.method === 'HEAD') continue; // as GET
      const scope = usesItemRules(route, operation, acl) ? 'item' : 'collection';
      // A create whose object becomes the parent's one-to-one partner changes the parent too.
      const linking = operation.action === 'create' && takesParentsPartner(ir, route) ? (above.at(-1) ?? null) : null;
      // Decided before anything is read: collection rules (but those below a parent that call user
      // functions, which are given the parent: runtime RouteContext.authorizeCollection), and item
      // rules that call no user function.
      const early = scope === 'collection' ? !(route.parent && collectionCallsUserCode(acl)) : !callsUserCode(acl);
      const decided = (caller: CallerKind, groups: Groups): Decision => {
        const decision = decide(acl, scope, caller, operation.permission, groups);
        if (early && !decision.allowed) return decision;
        // A link the route finds its objects by, hidden from the caller: refused before the parent is read.
        const unread = caller === 'admin' ? undefined : unreadableLink(ir, route, caller);
        if (unread) return { allowed: false, line: `(field privacy: ${unread})` };
        // Below a parent the caller may not view: that parent's 404, as for one that does not
        // exist, where its rules read it (a principal); else its own 401 or 403, whatever it is.
        for (const rules of above) {
          const seen = decide(rules.acl, rules.scope, caller, 'view', groups);
          if (seen.allowed) continue;
          const line = `(the parent is hidden: ${seen.line ?? 'no line'})`;
          const byObject = rules.scope === 'item' && callsUserCode(rules.acl);
          return byObject ? { allowed: false, status: 404, line } : { allowed: false, line };
        }
        if (decision.allowed && linking) {
          // The new object becomes the parent's one partner: changing the parent, by its own rules.
          // No route updates the parent's model: only admins change it (../ir/model-route.ts `updatable`).
          const update = linking.updatable
            ? decide(linking.update.acl, linking.update.scope, caller, 'update', groups)
            : decide(ADMIN_ONLY, 'item', caller, 'update', groups);
          if (!update.allowed) return { allowed: false, line: `(linking to the parent: ${update.line ?? 'no line'})` };
        }
        const field = route.attribute;
        if (!decision.allowed || field === null || caller === 'admin') return decision;
        // A dict or list field is read and written like any field: only by those who may see it
        // (their groups' `_group_fields` among them), and, read-only, written by admins alone; so is
        // a write-once one, whose attribute route changes an object that exists.
        const model = models.get(route.model)!;
        const attribute = model.fields.find((f) => f.name === field);
        const fixed = attribute && fixedRule(attribute);
        if (operation.permission !== 'view' && fixed) return { allowed: false, line: `(${fixed}: ${field})` };
        const writesGroups = model.isAuthModel && field === 'groups' && operation.action === 'create';
        const ok = !writesGroups && seesField(model, caller, field, groups[caller]);
        return ok ? decision : { allowed: false, line: `(field privacy: ${field})` };
      };
      const by = Object.fromEntries(CALLERS.map((caller) => [caller, decided(caller, groups)])) as Record<
        CallerKind,
        Decision
      >;
      const { anonymous, member, owner } = by;
      // Where a principal lets its owner in at all (not where field privacy refuses even them).
      const anonymousUnless =
        owner.allowed && !anonymous.allowed && anonymous.status === undefined && !anonymous.line?.startsWith('(')
          ? (principalsBefore(acl, scope, operation.permission, (entry) => entry.text === anonymous.line)[0] ?? null)
          : null;
      // A member in one of the named groups too: let in where the group is.
      const groupsAllowed = named.filter(
        (group) => decided('member', { ...groups, member: [group, ...groups.member] }).allowed,
      );
      rows.push({
        route,
        operation,
        scope,
        outcomes: Object.fromEntries(
          CALLERS.map((c) => [c, by[c].allowed ? 'allow' : (by[c].status ?? (c === 'anonymous' ? 401 : 403))]),
        ) as Record<CallerKind, Outcome>,
        lines: Object.fromEntries(CALLERS.map((c) => [c, by[c].line])) as Record<CallerKind, string | null>,
        groupsAllowed,
        anonymousUnless,
        // Where they make the difference: the owner let in, a member not.
        principals:
          owner.allowed && !member.allowed
            ? // Those a line for everyone does not come before.
              principalsBefore(acl, scope, operation.permission, (entry) => entry.principal.kind === 'everyone')
            : [],
      });
    }
  }
  return rows;
}

/**
 * The rules that decide on the items a nested route lies below, outermost first, as the runtime asks
 * before it reads or writes below them (RouteContext.parentKey, createdLink): those of each item
 * model's route (../ir/model-route.ts), admins only without an x-ACL. A dict or list field's own item
 * is not among them (an attribute route is decided on that item).
 */
function rulesAbove(
  ir: ServiceIR,
  route: Route,
): {
  acl: Acl;
  scope: 'item' | 'collection';
  updatable: boolean;
  update: { acl: Acl; scope: 'item' | 'collection' };
}[] {
  const aclOf = (name: string | null) => (name && ir.acls.find((a) => a.name === name)) || ADMIN_ONLY;
  return itemsAbove(route).flatMap((parent) => {
    const model = ir.models.find((m) => m.name === parent.model);
    const rules = model && modelRules(ir, model);
    if (!rules) return [];
    // Changing the parent is decided by the rules of the route that changes it (../ir/model-route.ts).
    const changing = rules.updateRules ?? rules;
    return [
      {
        acl: aclOf(rules.acl),
        scope: rules.kind,
        updatable: rules.updatable,
        update: { acl: aclOf(changing.acl), scope: changing.kind },
      },
    ];
  });
}

/**
 * The first link a nested route follows (its own objects' link to the parent, then each parent's
 * to its own) that `caller` may not read by field privacy, as `Model.link`: the runtime refuses
 * such a route, whose answers would tell what the field hides (RouteContext `#checkLinkReadable`).
 * A link is read where its name or its foreign key's is among the caller's fields.
 */
function unreadableLink(ir: ServiceIR, route: Route, caller: CallerKind): string | undefined {
  const links: { model: string; parent: RouteParent }[] = [];
  if (route.parent && route.kind !== 'attribute') links.push({ model: route.model, parent: route.parent });
  for (let above = route.parent; above?.parent; above = above.parent)
    links.push({ model: above.model, parent: above.parent });
  for (const { model: name, parent } of links) {
    const model = ir.models.find((m) => m.name === name);
    const owner = ir.models.find((m) => m.name === parent.model);
    const link = owner?.relationships.find((r) => r.name === parent.field)?.inverse;
    if (!model || !link) continue;
    const key = model.relationships.find((r) => r.name === link)?.foreignKey;
    const kept = key?.model === model.name && seesField(model, caller, key.field);
    if (!seesField(model, caller, link) && !kept) return `${name}.${link}`;
  }
  return undefined;
}

/**
 * Whether the route's object is its parent's one-to-one partner (`/books/{id}/featured_note`): a
 * create then takes the parent's only partner, and the runtime asks for `update` on the parent
 * (runtime/src/lib/http/relinks.ts `linkTarget`). A link to the parent's to-many side changes
 * nothing of the parent.
 */
function takesParentsPartner(ir: ServiceIR, route: Route): boolean {
  if (!route.parent || route.kind === 'attribute') return false;
  const model = ir.models.find((m) => m.name === route.parent!.model);
  return model?.relationships.find((r) => r.name === route.parent!.field)?.cardinality === 'one';
}

/** Whether some collection rule calls a user function, which a nested route gives the parent. */
function collectionCallsUserCode(acl: Acl): boolean {
  return acl.collection.some((e) => e.principal.kind === 'dynamic');
}

/** Whether some item rule calls a user function (a `{{dynamic}}` principal), which needs the object. */
function callsUserCode(acl: Acl): boolean {
  return acl.item.some((e) => e.principal.kind === 'dynamic');
}

/**
 * Item, singular and attribute routes act on one object, except creating the singular one, and
 * OPTIONS on a singular route, which may have no object yet: it uses the collection rules when the
 * item rules call user functions (runtime/src/lib/http/actions.ts `options`).
 */
function usesItemRules(route: Route, operation: Operation, acl: Acl): boolean {
  if (route.kind === 'collection') return false;
  if (route.kind === 'singular' && operation.method === 'OPTIONS') return !callsUserCode(acl);
  return !(route.kind === 'singular' && operation.action === 'create');
}

function decide(
  acl: Acl,
  scope: 'item' | 'collection',
  caller: CallerKind,
  permission: Permission,
  groups: Groups,
): { allowed: boolean; line: string | null } {
  const hit = linesNaming(acl, scope, permission).find((entry) => matches(entry, caller, groups));
  return hit ? { allowed: hit.action === 'allow', line: hit.text } : { allowed: false, line: null };
}

/** The lines the rules read for `permission`, in order: the item rules, then the collection rules (item scope). */
function linesNaming(acl: Acl, scope: 'item' | 'collection', permission: Permission): AclEntry[] {
  return decidingLines(acl, scope).filter((entry) => entry.permissions.includes(permission));
}

/**
 * The principals of the `allow {{principal}}` lines naming `permission` that the rules read
 * before the first line `stops` (if any), in order, each once.
 */
function principalsBefore(
  acl: Acl,
  scope: 'item' | 'collection',
  permission: Permission,
  stops: (entry: AclEntry) => boolean,
): string[] {
  const names: string[] = [];
  for (const entry of linesNaming(acl, scope, permission)) {
    if (stops(entry)) break;
    const name = entry.principal.kind === 'dynamic' ? `{{${entry.principal.name}}}` : undefined;
    if (name && entry.action === 'allow' && !names.includes(name)) names.push(name);
  }
  return names;
}

function matches(entry: AclEntry, caller: CallerKind, groups: Groups): boolean {
  const p = entry.principal;
  const id = CALLER_IDS[caller];
  switch (p.kind) {
    case 'everyone':
      return true;
    case 'authenticated':
      return id !== null;
    case 'group':
      return groups[caller].includes(p.group);
    case 'user':
      return id === p.id;
    case 'dynamic':
      return caller === 'owner';
  }
}

/** What a caller of the matrix sees by the privacy lists (admins are let in before this is asked). */
function seesField(model: Model, caller: CallerKind, field: string, groups: readonly string[] = []): boolean {
  if (caller === 'anonymous') return listedFor(model, 'anonymous', field);
  return listedFor(model, 'member', field) || groups.some((group) => listedFor(model, { group }, field));
}

/** The matrix as text, one row per route and method. */
export function printMatrix(ir: ServiceIR, rows: readonly MatrixRow[]): string {
  // The groups the x-ACLs name, where any is: those let in, per row.
  const grouped = rows.some((r) => r.groupsAllowed.length) || namedGroups(ir).length > 0;
  const byPrincipal = rows.some((r) => r.principals.length);
  const table = [
    ['method', 'route', 'x-ACL', ...CALLERS, ...(grouped ? ['groups'] : []), ...(byPrincipal ? ['owner by'] : [])],
    ...rows.map((r) => [
      r.operation.method,
      `${ir.basePath}${r.route.ramlPath}`,
      r.route.acl ?? '(none: admins)',
      ...CALLERS.map((c) =>
        r.outcomes[c] === 'allow' ? 'allow' : `${r.outcomes[c]}${c === 'anonymous' && r.anonymousUnless ? '*' : ''}`,
      ),
      ...(grouped ? [r.groupsAllowed.map((g) => `g:${g}`).join(' ') || '-'] : []),
      ...(byPrincipal ? [r.principals.join(' ') || '-'] : []),
    ]),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  return [
    `Who may use each route of ${ir.title} when auth = true (allow, or the status of a refusal).`,
    `member: a logged-in user in the groups a new user gets (${newUserGroupsText(ir)}); owner: a member for whom the route's {{dynamic}} principals stand; admin: group "admin".${grouped ? ` groups: the other groups the x-ACLs name whose members are let in, as members in that group besides those a new user gets${newUserGroups(ir).length ? ` (a user an admin gave that group alone, without ${newUserGroupsText(ir)}, gets only what the lines naming it give)` : ''}.` : ''}${byPrincipal ? ' owner by: the principals whose lines let the owner in, each for the callers it grants to.' : ''}`,
    '',
    lines[0]!,
    ...lines.slice(1),
    '',
    ...(rows.some((r) => Object.values(r.outcomes).includes(404))
      ? [
          '404: the route lies below a parent the caller may not view by its rules that read it (a {{principal}}), answered as one that does not exist.',
        ]
      : []),
    ...unlessNote(rows),
    ...ownRecordNote(ir),
    ...listNote(ir),
  ].join('\n');
}

/**
 * `401*`: the rules ask a principal before they refuse an anonymous caller, and what it grants is
 * its code's to say: one may grant `everyone` (a published object), which the owner column, a
 * member, does not show.
 */
function unlessNote(rows: readonly MatrixRow[]): string[] {
  const principals = [...new Set(rows.flatMap((r) => (r.anonymousUnless ? [r.anonymousUnless] : [])))];
  if (!principals.length) return [];
  return [
    `401*: refused unless ${principals.join(', ')} ${principals.length > 1 ? 'let' : 'lets'} anonymous callers in: the rules ask ${principals.length > 1 ? 'them' : 'it'} first, and a principal that grants everyone (a published object) does (the owner column is a member it grants to).`,
  ];
}

/**
 * The columns' owner is a member for whom principals stand, on someone else's record. A user's own
 * record is read and written by field privacy of its own (runtime auth/policy.ts `ownRecord`): all
 * of it but hidden fields and `groups`, so a field route of the user model that a member is refused
 * for its field may still be theirs on their own record.
 */
function ownRecordNote(ir: ServiceIR): string[] {
  const user = ir.models.find((m) => m.name === ir.auth?.userModel);
  const refusedField = ir.routes.some(
    (r) => r.kind === 'attribute' && r.model === user?.name && !seesField(user, 'member', r.attribute!),
  );
  return user && refusedField
    ? [
        `On their own ${user.name} record a user reads every field but hidden ones, and writes them all but groups: there, the field routes refused above for field privacy are theirs.`,
      ]
    : [];
}

/**
 * What a GET of a collection lists, beyond who may send it: the objects the caller may view by the
 * item rules (the runtime's `selectable`, lib/auth/acl.ts).
 */
function listNote(ir: ServiceIR): string[] {
  const dynamicView = ir.acls.some((acl) =>
    acl.item.some((e) => e.principal.kind === 'dynamic' && e.permissions.includes('view')),
  );
  return [
    'A GET of a collection lists only the objects the caller may view by its item rules (an item its own GET',
    'refuses is not in the page, the total, the count or a search): a line of a group, a user, authenticated or',
    'everyone decides for every object.',
    ...(dynamicView
      ? [
          "A {{dynamic}} line decides in the database by its principal's `where` (src/custom/principals/); a principal",
          'without one leaves the objects from its line on to the collection rules, as Ramses did.',
        ]
      : []),
    '',
  ];
}
