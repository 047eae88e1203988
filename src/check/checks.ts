/**
 * Check stage: semantic checks over the finished IR that no single builder step could make,
 * reported at the places in the RAML and schemas that the user has to change.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import type { AclEntry, Field, Model, Permission, Principal, ServiceIR, UserFunction } from '../ir/types.js';
import type { Span } from '../diagnostics/source.js';
import { kebab } from '../ir/naming.js';
import { closest } from '../util/suggest.js';
import { withArticle } from '../util/article.js';
import { defaultGroups, groupsField } from '../ir/users.js';
import { undoneItemRules } from './item-rules.js';
import { skippedItemHandlers } from './bulk-handlers.js';
import { otherMethodHandlers } from './method-handlers.js';
import { cascadedHandlers } from './cascaded-handlers.js';
import { adminOnlyCascades } from './admin-only-cascades.js';
import { hiddenByTheOtherSide } from '../ir/privacy.js';
import { checkStrangersSeeMore } from './strangers.js';
import { checkGroupNames } from './group-names.js';
import { checkPrincipalNames } from './principal-names.js';
import { checkLinksShownBack } from './links-shown-back.js';
import { checkNestedOwnerLinks } from './nested-owner-links.js';
import { checkLooserNestedRoutes } from './looser-nested-routes.js';

export function checkIr(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  checkReservedRoutes(diagnostics, ir, sources);
  checkRoutesWithoutAcl(diagnostics, ir, sources);
  checkUnusedAcls(diagnostics, ir, sources);
  checkUserFunctionNames(diagnostics, ir, sources);
  checkModelTypeNames(diagnostics, ir, sources);
  checkReadOnlyRequired(diagnostics, ir, sources);
  checkWriteOnceOnUpdate(diagnostics, ir, sources);
  checkUndoneItemRules(diagnostics, ir, sources);
  checkObjectPrincipalsOnCollections(diagnostics, ir, sources);
  checkSkippedItemHandlers(diagnostics, ir, sources);
  checkOtherMethodHandlers(diagnostics, ir, sources);
  checkCascadedHandlers(diagnostics, ir, sources);
  checkAdminOnlyCascades(diagnostics, ir, sources);
  checkEmptyRanges(diagnostics, ir, sources);
  checkUserPrincipals(diagnostics, ir, sources);
  checkUserKeysHandedOut(diagnostics, ir, sources);
  checkUnreachableAclLines(diagnostics, ir, sources);
  checkBackrefsOfHiddenLinks(diagnostics, ir, sources);
  checkLinksShownBack(diagnostics, ir, sources);
  checkNestedOwnerLinks(diagnostics, ir, sources);
  checkLooserNestedRoutes(diagnostics, ir, sources);
  checkStrangersSeeMore(diagnostics, ir, sources);
  checkGroupNames(diagnostics, ir, sources);
  checkPrincipalNames(diagnostics, ir, sources);
}

/**
 * A link kept in the other model's rows (a user's `stories`) tells whose each of those objects
 * is: the service shows it only to whom the other side's link (each story's `owner`) is shown
 * (runtime lib/auth/policy.ts `fieldsFor`). A privacy list that names it for callers who may not
 * read the other side is not what they get.
 */
function checkBackrefsOfHiddenLinks(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  const audiences = [
    ['_public_fields', 'anonymous callers', 'anonymous', (m: Model) => m.publicFields],
    ['_auth_fields', 'members', 'member', (m: Model) => m.authFields],
  ] as const;
  for (const model of ir.models) {
    for (const link of model.relationships) {
      const target = ir.models.find((m) => m.name === link.target);
      if (!target || model.hiddenFields.includes(link.name)) continue;
      for (const [key, who, audience, listOf] of audiences) {
        // Said where the list names the link: where it lists all fields, nothing claims otherwise.
        if (!listOf(model)?.includes(link.name) || !hiddenByTheOtherSide(ir.models, model, audience, link.name))
          continue;
        diagnostics.report(
          'SVC2094',
          `${key} of ${model.name} shows "${link.name}" to ${who}, but ${target.name} hides "${link.inverse}" from them: they are not shown ${link.name}, whose keys would tell them the ${link.inverse} of each ${target.name}`,
          {
            span: sources.fields.get(`${model.name}.${link.name}`) ?? sources.models.get(model.name),
            hint: `show "${link.inverse}" of ${target.name} to ${who} too, or take "${link.name}" out of ${key} of ${model.name}`,
          },
        );
      }
    }
  }
}

/**
 * x-ACL lines the rules never read, or read too late. The rules stop at the first line that names
 * the permission and the caller: a line after one that names every caller it names (`everyone`
 * does all; `authenticated` every logged-in one; a group or user itself) is never reached for the
 * permissions that line gives. Said whole where no permission is left to it; for a `deny` also
 * where some are (`deny g:banned update` below `allow authenticated view, update` let a probe's
 * banned member change a tool: the deny gave way for update).
 */
function checkUnreachableAclLines(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const acl of ir.acls) {
    for (const [scope, lines] of [
      ['item', acl.item],
      ['collection', acl.collection],
    ] as const) {
      for (const [i, line] of lines.entries()) {
        const above = lines.slice(0, i).filter((earlier) => namesEveryoneOf(earlier.principal, line.principal));
        const by = line.permissions.map((p) => above.find((earlier) => earlier.permissions.includes(p)));
        const whole = by.every((earlier) => earlier !== undefined);
        // In part, only a deny that an allow above gives way for (one a deny above decides still refuses).
        const decided = line.permissions.filter((_, j) => by[j] !== undefined && (whole || by[j]?.action === 'allow'));
        const first = by.find((earlier) => earlier !== undefined && (whole || earlier.action === 'allow'));
        // A closing deny of everyone or every logged-in user (`deny everyone all`) decides what is left to it:
        // that lines above it decide some of its permissions is what it is for.
        const closing = line.principal.kind === 'everyone' || line.principal.kind === 'authenticated';
        if (!first || (!whole && (line.action !== 'deny' || closing))) continue;
        const span = sources.aclEntries.get(line) ?? sources.acls.get(acl.name);
        const whom = callersNamed(first.principal);
        if (whole)
          diagnostics.report(
            'SVC2093',
            `x-ACL "${acl.name}": "${line.text}" is never reached: "${first.text}" above it decides ${decided.join(', ')} for ${whom}`,
            {
              span,
              hint: `move it above "${first.text}", or delete it (the ${scope} rules stop at the first line that names the permission and the caller)`,
            },
          );
        else
          diagnostics.report(
            'SVC2093',
            `x-ACL "${acl.name}": "${line.text}" is not reached for ${decided.join(', ')}: "${first.text}" above it decides ${decided.length > 1 ? 'them' : 'it'} for ${whom}, so those it names are not refused ${decided.join(', ')}`,
            {
              span,
              hint: `move it above "${first.text}" (the ${scope} rules stop at the first line that names the permission and the caller)`,
            },
          );
      }
    }
  }
}

/** Whether every caller `later` names is named by `earlier` too (a function's grants are known only when it runs). */
function namesEveryoneOf(earlier: Principal, later: Principal): boolean {
  switch (earlier.kind) {
    case 'everyone':
      return true;
    case 'authenticated':
      // A function may grant anonymous callers too (`everyone`): not all of them are logged in.
      return later.kind === 'authenticated' || later.kind === 'group' || later.kind === 'user';
    case 'group':
      return later.kind === 'group' && later.group === earlier.group;
    case 'user':
      return later.kind === 'user' && later.id === earlier.id;
    case 'dynamic':
      return false;
  }
}

/** The callers a principal names, for a message. */
function callersNamed(principal: Principal): string {
  switch (principal.kind) {
    case 'everyone':
      return 'everyone';
    case 'authenticated':
      return 'every logged-in user';
    case 'group':
      return `everyone in g:${principal.group}`;
    case 'user':
      return `the user ${principal.id}`;
    case 'dynamic':
      return `those {{${principal.name}}} grants`;
  }
}

/**
 * A principal that is not a keyword, `g:<group>` or `{{function}}` is a user id. Written as a group
 * the API names elsewhere (`allow partner create` beside `g:partner`, or a group of the user
 * model's `groups`), or with a prefix (`group:partner`), it is a group with its `g:` forgotten:
 * it grants one user of that name instead (whom only an admin can create: the service refuses to
 * register the names an ACL grants to). So is one a slip from such a group (`allow organisers create`
 * beside the group `organiser`): its organisers got nothing, silently. `admin` and near-keywords are
 * SVC2032's where they are read.
 */
function checkUserPrincipals(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const entries = ir.acls.flatMap((acl) => [...acl.collection, ...acl.item]);
  const groups = new Set(entries.flatMap((e) => (e.principal.kind === 'group' ? [e.principal.group] : [])));
  for (const group of [...(groupsField(ir)?.choices ?? []), ...(defaultGroups(ir) ?? [])])
    if (typeof group === 'string') groups.add(group.toLowerCase());
  groups.delete('admin');
  for (const entry of entries) {
    if (entry.principal.kind !== 'user') continue;
    const id = entry.principal.id;
    const prefixed = id.includes(':') ? id.slice(id.lastIndexOf(':') + 1) : undefined;
    // A slip only of a name long enough to tell one (`bob` is one letter from a group `box`, and a user).
    const group = prefixed ?? (groups.has(id) ? id : id.length >= 5 ? closest(id, groups) : undefined);
    if (group === undefined || group === '') continue;
    const exact = group === (prefixed ?? id);
    diagnostics.report('SVC2032', `principal "${id}" means the user whose id is "${id}", not the group ${group}`, {
      span: sources.aclEntries.get(entry),
      hint: `${exact ? `write g:${group} for everyone in the group;` : `did you mean g:${group}?`} a principal that is not a keyword, g:<group> or {{function}} is a user id`,
    });
  }
}

/**
 * A user principal is the user's key (as in Ramses). Where the user model's key is a number (an
 * `id_field`, or an `integer` the database numbers where a body leaves it out), a line naming one (`allow 7 view`) grants whoever comes to have
 * it: with registration open, the seventh stranger to register (a probe's did, and read and changed
 * an editor's submission). A line naming anything but a number matches no one there (`allow alice`).
 */
const NUMBER_KEYS: ReadonlySet<string> = new Set(['id_field', 'integer', 'big_integer', 'small_integer']);

function checkUserKeysHandedOut(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const user = ir.auth && ir.models.find((m) => m.name === ir.auth!.userModel);
  const key = user?.fields.find((f) => f.primaryKey);
  if (!user || !key) return;
  // `self` is the logged-in user's URL: no user is keyed or named so (the service refuses it).
  for (const acl of ir.acls)
    for (const entry of [...acl.collection, ...acl.item])
      if (entry.principal.kind === 'user' && entry.principal.id.toLowerCase() === 'self')
        diagnostics.report(
          'SVC2106',
          `x-ACL "${acl.name}": "${entry.text}" names the ${user.name} "self", which no user may be (/users/self is the logged-in user): the line matches no one`,
          {
            span: sources.aclEntries.get(entry) ?? sources.acls.get(acl.name),
            hint: `for what is each user's own, write a principal function that grants the user the object names ("${entry.action} {{owner}} ${entry.permissions.join(',')}"), or grant a group`,
          },
        );
  // Any whole-number key: an `integer` one is numbered by the database too where a body leaves it out,
  // and a registration may name it (a probe registered as 7).
  if (!NUMBER_KEYS.has(key.type)) return;
  for (const acl of ir.acls) {
    for (const entry of [...acl.collection, ...acl.item]) {
      if (entry.principal.kind !== 'user' || entry.principal.id.toLowerCase() === 'self') continue;
      const id = entry.principal.id;
      const span = sources.aclEntries.get(entry) ?? sources.acls.get(acl.name);
      if (/^[0-9]+$/.test(id))
        diagnostics.report(
          'SVC2105',
          `x-ACL "${acl.name}": "${entry.text}" grants the ${user.name} whose ${key.name} is ${id}, a number the database hands out (or a registration names): with registration open, whoever registers as it has what the line gives`,
          {
            span,
            hint: `grant a group instead ("${entry.action} g:<group> ${entry.permissions.join(',')}") and give that group to the user, or key ${user.name} by its username ("primary_key": true on username)`,
          },
        );
      else
        diagnostics.report(
          'SVC2106',
          `x-ACL "${acl.name}": "${entry.text}" names the ${user.name} whose ${key.name} is "${id}", but ${user.name}.${key.name} is a number: the line matches no one`,
          {
            span,
            hint: `a principal that is not a keyword, g:<group> or {{function}} is a user's key; grant a group instead ("${entry.action} g:<group> ${entry.permissions.join(',')}"), or key ${user.name} by its username`,
          },
        );
    }
  }
}

/**
 * Bounds of a field in the JSON Schema keywords, each as a pair that may leave no value (those of
 * `_db_settings`, `min_value` above `max_value`, are SVC2008's, where the field is read).
 */
const RANGES = [
  ['minimum', 'maximum', (f: Field) => [f.validation['minimum'], f.validation['maximum']]],
  ['minLength', 'maxLength', (f: Field) => [f.validation['minLength'], f.validation['maxLength']]],
  ['minItems', 'maxItems', (f: Field) => [f.validation['minItems'], f.validation['maxItems']]],
] as const;

/** A lower bound above the upper one: no value is ever accepted, which is a mistake, not a rule. */
function checkEmptyRanges(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const model of ir.models) {
    for (const field of model.fields) {
      for (const [low, high, bounds] of RANGES) {
        const [min, max] = bounds(field);
        if (typeof min !== 'number' || typeof max !== 'number' || min <= max) continue;
        diagnostics.report(
          'SVC2085',
          `${model.name}.${field.name} has ${low} ${min} above ${high} ${max}: no value fits`,
          {
            span: sources.fields.get(`${model.name}.${field.name}`) ?? sources.models.get(model.name),
            hint: `swap them, or correct the one that is wrong`,
          },
        );
      }
    }
  }
}

/** Item handlers a change of many objects does not run (bulk-handlers.ts): said once per route, action and phase. */
function checkSkippedItemHandlers(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const { model, route, bulk, methods: declared, phase, handlers } of skippedItemHandlers(ir)) {
    const methods = declared.join(' and ');
    const item = (bulk === 'update_many' ? ['update', 'replace'] : ['delete']).map((a) => `${phase}_${a}`).join(' or ');
    diagnostics.report(
      'SVC2083',
      `${methods} of ${route.ramlPath} ${declared.length > 1 ? 'change' : 'changes'} many ${model.name} objects at once and ${declared.length > 1 ? 'run' : 'runs'} none of its ${item} handlers (${handlers.join(', ')}): what they check or do for one object does not happen for many`,
      {
        span: sources.routes.get(route.path) ?? sources.models.get(model.name),
        hint: `list them under ${phase}_${bulk} too (called once for the whole change, without event.instance), or take ${methods.toLowerCase()} off ${route.ramlPath}`,
      },
    );
  }
}

/** Item handlers that a PUT (or a PATCH) of the same item does not run (method-handlers.ts). */
function checkOtherMethodHandlers(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const { model, route, method, action, other, phase, handlers } of otherMethodHandlers(ir)) {
    const listed = handlers.length > 1 ? 'them' : 'it';
    diagnostics.report(
      'SVC2111',
      `${method} of ${route.ramlPath} runs ${model.name}'s ${phase}_${action} handlers, not its ${phase}_${other} ${handlers.length > 1 ? 'ones' : 'one'} (${handlers.join(', ')}): what ${listed} ${handlers.length > 1 ? 'check or do' : 'checks or does'} for a ${other === 'update' ? 'PATCH' : 'PUT'} does not happen for a ${method}`,
      {
        span: sources.routes.get(route.path) ?? sources.models.get(model.name),
        hint: `list ${listed} under ${phase}_set (create, update and replace) or under ${phase}_${action} too, or take ${method.toLowerCase()} off ${route.ramlPath}`,
      },
    );
  }
}

/** Delete handlers a cascading delete does not run (cascaded-handlers.ts): said once per link. */
function checkCascadedHandlers(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const { model, link, target, handlers } of cascadedHandlers(ir)) {
    diagnostics.report(
      'SVC2095',
      `deleting ${withArticle(model.name)} deletes its ${link.name} (ondelete: CASCADE) without running the delete handlers of ${target.name} (${handlers.join(', ')}): what they do for one ${target.name} does not happen for those`,
      {
        span: sources.fields.get(`${model.name}.${link.name}`) ?? sources.models.get(model.name),
        hint: `do it for the objects it takes in an after_delete handler of ${model.name}, or in a subscriber of ${target.name}.delete (src/custom/events/: cascaded objects get their events), or make the link RESTRICT`,
      },
    );
  }
}

/** A delete that members may make, refused by the objects it takes along, which only admins may delete: once per link. */
function checkAdminOnlyCascades(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const { model, link, target, act, deleter } of adminOnlyCascades(ir)) {
    const what =
      act === 'delete' ? `deletes its ${link.name} (ondelete: CASCADE)` : `unlinks its ${link.name} (NULLIFY)`;
    diagnostics.report(
      'SVC2103',
      `deleting ${withArticle(model.name)} ${what}, which only admins may ${act === 'delete' ? 'delete' : 'change'}: "${deleter.text}" lets others delete ${withArticle(model.name)}, but each such delete is refused (403) once it has any ${target.name}`,
      {
        span: sources.fields.get(`${model.name}.${link.name}`) ?? sources.models.get(model.name),
        hint: `give those who delete ${withArticle(model.name)} ${act} on its ${target.name} objects too (a line of the x-ACL of ${target.name}'s routes, which then needs a route that does it), or make the link RESTRICT (they are deleted first, by whoever may)`,
      },
    );
  }
}

/** An item line the collection rules undo for every member, or a group's (item-rules.ts): said once per pair of lines. */
function checkUndoneItemRules(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const { acl, permissions, itemLine, collectionLine, group } of undoneItemRules(ir)) {
    const permission = permissions.join(', ');
    const there =
      collectionLine.principal.kind === 'dynamic'
        ? `"${collectionLine.text}" asks its principal without the object: whomever it grants there gets ${permission} on every object`
        : `"${collectionLine.text}" gives ${permission} on every object`;
    // Anonymous callers fall back to an `everyone` line too: only a deny of everyone stops them.
    const everyone = collectionLine.principal.kind === 'everyone';
    const who = everyone ? 'a caller (anonymous ones too)' : group === 'user' ? 'a member' : `a member of g:${group}`;
    diagnostics.report(
      'SVC2081',
      `x-ACL "${acl.name}": "${itemLine.text}" gives ${permission} to its principal only in name: ${who} it does not give it to falls back to the collection rules, where ${there}`,
      {
        span: sources.aclEntries.get(itemLine) ?? sources.acls.get(acl.name),
        hint: everyone
          ? `if only its principal is meant to, end the item rules with "deny everyone ${permission}" so that they decide alone; if everyone is, take ${permission} out of this line, where it gives nothing`
          : group !== 'user'
            ? `if g:${group} is meant to have ${permission} on every object, say so in the item rules ("allow g:${group} ${permission}"); if not, end them with "deny g:${group} ${permission}" so that they decide alone`
            : `end the item rules with "deny authenticated ${permission}" (or "deny everyone all") so that they decide alone, or take ${permission} out of the collection line`,
      },
    );
  }
}

/**
 * A collection line of a top-level collection route that gives a permission to a `{{principal}}`
 * the item lines use too (`allow {{owner}} view` beside the item's `allow {{owner}} view`): there it
 * is asked with neither an object nor a parent (a nested route gives the parent), so a principal
 * that decides by the object grants nothing, and the owners it was meant for are refused the list
 * (a probe's members got 403 for their own bookmarks, while `inspect --acl` said "owner: allow").
 */
function checkObjectPrincipalsOnCollections(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const acl of ir.acls) {
    // Where the x-ACL guards a nested collection or singular route too, its principal may decide by
    // the parent there (`rule.parent`), which a create through the top-level route that links one
    // gives it too, and grant nothing else there by design (a probe's club admins; a device's
    // pairing made at /devices/{id}/pairing or at /pairings naming the device). Only the create:
    // a list or a change of many at the top-level route has no parent either (a probe's gardeners,
    // refused their own loans, were told nothing because signups were nested too).
    const byParent = ir.routes.some(
      (r) => r.acl === acl.name && (r.kind === 'collection' || r.kind === 'singular') && r.parent,
    );
    const routes = ir.routes.filter((r) => r.acl === acl.name && r.kind === 'collection' && !r.parent);
    const served = new Set(
      routes.flatMap((r) => r.operations.map((o) => o.permission)).filter((p) => !byParent || p !== 'create'),
    );
    const onItems = new Set(acl.item.flatMap((e) => (e.principal.kind === 'dynamic' ? [e.principal.name] : [])));
    for (const line of acl.collection) {
      if (line.action !== 'allow' || line.principal.kind !== 'dynamic' || !onItems.has(line.principal.name)) continue;
      const permissions = line.permissions.filter((p) => served.has(p));
      if (!permissions.length) continue;
      const principal = `{{${line.principal.name}}}`;
      const where = routes.map((r) => r.ramlPath).join(', ');
      // Item rules that match no line fall back to the collection's: a member the principal does not
      // grant would read every object through the authenticated line the hint offers, unless the item
      // rules end with a deny (a probe's new user followed the hint, and every member read every pet).
      const unguarded = permissions.filter((p) => p !== 'create' && !itemRulesDenyMembers(acl.item, p));
      const guard = unguarded.length
        ? ` and end the item rules with "deny authenticated ${unguarded.join(',')}" (without it, a member ${principal} does not grant falls back to that collection line and reads every object)`
        : '';
      diagnostics.report(
        'SVC2086',
        `x-ACL "${acl.name}": "${line.text}" asks ${principal} without an object on ${where} (a collection has none): a principal that decides by the object, as the item lines use it, grants nothing there, and its callers are refused ${permissions.join(', ')}`,
        {
          span: sources.aclEntries.get(line) ?? sources.acls.get(acl.name),
          hint: `give ${permissions.join(', ')} on the collection to authenticated${guard}: then the item lines' ${principal}, with its where, keep each list to the caller's own objects; or let ${principal} grant when it is given no object (then say so at the end of the line: # svcgen: ignore SVC2086)${byParent ? `; where the line is meant for the nested routes the x-ACL also guards (${principal} deciding by the parent there) and ${where} is for admins alone, say that the same way` : ''}`,
        },
      );
    }
  }
}

/** Whether item rules end `permission` for every member: a deny of authenticated or everyone for it. */
function itemRulesDenyMembers(item: readonly AclEntry[], permission: Permission): boolean {
  return item.some(
    (e) =>
      e.action === 'deny' &&
      (e.principal.kind === 'authenticated' || e.principal.kind === 'everyone') &&
      e.permissions.includes(permission),
  );
}

/**
 * A read-only field that must have a value and has no default is the before handlers' to set on
 * create: with none, only an admin (who may send it) can create an object of its model.
 */
function checkReadOnlyRequired(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const model of ir.models) {
    // `before_set` handlers are bound to create too (ir/build/events.ts).
    const handled = model.eventHandlers.some((e) => e.phase === 'before' && e.action === 'create' && e.handlers.length);
    if (handled) continue;
    for (const field of model.fields) {
      // A required link is said once, on the relationship a body would name, not on its foreign key.
      if (!field.readOnly || !field.required || field.default !== null || field.generated) continue;
      if (field.type === 'foreign_key') continue;
      diagnostics.report(
        'SVC2080',
        `${model.name}.${field.name} is read-only and required, with no default and no before_create handler to set it: ${ir.auth ? 'only admins can' : 'no request can'} create ${model.name} objects`,
        {
          span: sources.fields.get(`${model.name}.${field.name}`) ?? sources.models.get(model.name),
          hint: 'give it a default, set it in a before_create handler (event.setFieldValue), or make it optional',
        },
      );
    }
  }
}

/**
 * `onupdate` is the service's own write of a field on every update, which a write-once field lets
 * it make: the field a create set is then changed by every member's update of anything else (a
 * probe's parcel `stamp`), which is not what `_write_once` says.
 */
function checkWriteOnceOnUpdate(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  for (const model of ir.models)
    for (const field of model.fields) {
      if (!field.writeOnce || field.onUpdate === null) continue;
      diagnostics.report(
        'SVC2117',
        `${model.name}.${field.name} is write-once, yet its "onupdate" changes it on every update`,
        {
          span: sources.fields.get(`${model.name}.${field.name}`) ?? sources.models.get(model.name),
          hint: 'drop "onupdate" to keep the value the create set, or "_write_once" if the service is to stamp it',
        },
      );
    }
}

/**
 * Type names the generated TypeScript gives its own things in modules that also name every model
 * (client/src/index.ts, src/committed.ts, the repositories), and cannot give another. A model of one
 * of these names would be declared twice there, and the project would not compile: each was found
 * so, by generating and compiling an API with a resource of that name. Elsewhere the project gives
 * way: src/db/index.ts and src/committed.ts import such a model under another name (`Config`,
 * `Promise`, `Database`, `ServiceEvent`), and the client renames its own helpers (`Page_`, `Filter_`,
 * `Key_`: src/plan/client/helper-names.ts); test/e2e/model-names.e2e.test.ts compiles them.
 */
const TAKEN_TYPE_NAMES: ReadonlyMap<string, string> = new Map([
  ['ReturnType', "TypeScript's ReturnType"],
  ['Exclude', "TypeScript's Exclude"],
  ['Engine', "the runtime's EngineRepository, as its repository type would be named"],
  ['EngineRepository', 'the repository every engine gives'],
  ['Model', "the runtime's ModelRepository, as its repository type would be named"],
  ['ModelRepository', 'the repository type of models with relationships kept in other rows'],
  ['CommittedEvent', 'the committed events'],
]);

/** The types every model has beside its own: `StoryCreate`, `StoryWhere`, … */
const DERIVED_TYPES = ['Create', 'Update', 'Where', 'Field', 'Repository', 'Committed', 'Event'];

/** A model whose name the generated TypeScript already gives something else would not compile. */
function checkModelTypeNames(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const derived = new Map(
    ir.models.flatMap((m) =>
      DERIVED_TYPES.map((suffix) => [`${m.name}${suffix}`, `the ${suffix} type of ${m.name}`] as const),
    ),
  );
  for (const model of ir.models) {
    const taken = TAKEN_TYPE_NAMES.get(model.name) ?? derived.get(model.name);
    if (!taken) continue;
    const route =
      ir.routes.find((r) => r.model === model.name && r.kind === 'collection') ??
      ir.routes.find((r) => r.model === model.name);
    diagnostics.report(
      'SVC2077',
      `the name of model ${model.name}${route ? ` (of ${route.ramlPath})` : ''} is taken in the generated TypeScript: it is ${taken}`,
      {
        span: (route && sources.routes.get(route.path)) ?? sources.models.get(model.name),
        hint: 'rename the resource (a model is named after its route: /web-pages is WebPage)',
      },
    );
  }
}

/** `set_owner` and `setOwner` would be one module and one function (one module per name). */
function checkUserFunctionNames(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const kinds: readonly [string, readonly UserFunction[], (f: UserFunction) => Span | undefined][] = [
    ['handler', ir.userCode.handlers, (f) => sources.handlers.find((h) => h.name === f.name)?.span],
    [
      'processor',
      ir.userCode.processors,
      (f) => f.usedBy.map((u) => sources.fields.get(`${u.model}.${u.field}`)).find(Boolean),
    ],
  ];
  for (const [kind, functions, spanOf] of kinds) {
    const byModule = new Map<string, string>();
    for (const f of functions) {
      const module = kebab(f.name);
      const other = byModule.get(module);
      if (other === undefined) {
        byModule.set(module, f.name);
        continue;
      }
      const span = spanOf(f);
      diagnostics.report('SVC2042', `${kind}s "${other}" and "${f.name}" would share the module ${module}.ts`, {
        ...(span ? { span } : {}),
        hint: `spell both the same way, e.g. "${other}"`,
      });
    }
  }
}

/** Paths the generated service serves itself (`{base}/health`, `{base}/openapi.json`), and what they are. */
const RESERVED_PATHS: readonly (readonly [string, string])[] = [
  ['/health', 'its health check'],
  ['/openapi.json', 'its OpenAPI document'],
  ['/docs', 'its API reference page'],
  ['/_events', 'its change feed'],
  ['/_webhooks', 'its webhook deliveries, for admins'],
];

/** With authentication, `{base}/auth/…` are its routes. */
const AUTH_PATH = ['/auth', 'its login, logout, registration and token routes'] as const;

function checkReservedRoutes(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const reservedPaths = ir.auth ? [...RESERVED_PATHS, AUTH_PATH] : RESERVED_PATHS;
  for (const route of ir.routes) {
    const reserved = reservedPaths.find(([p]) => route.path === p || route.path.startsWith(`${p}/`));
    if (!reserved) continue;
    diagnostics.report(
      'SVC2073',
      `${route.ramlPath} is taken: the service answers ${reserved[0]} itself (${reserved[1]})`,
      {
        span: sources.routes.get(route.path),
        hint: 'rename the resource',
      },
    );
  }
}

/** With auth, a route without x-ACL is for g:admin only — probably not what was meant. */
function checkRoutesWithoutAcl(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  const reported = new Set<string>();
  for (const route of ir.routes) {
    if (route.acl !== null || reported.has(route.ramlPath)) continue;
    reported.add(route.ramlPath);
    const names = ir.acls.map((a) => a.name);
    diagnostics.report('SVC2070', `${route.ramlPath} has no x-ACL, so with auth on only g:admin may use it`, {
      span: sources.routes.get(route.path),
      // One x-ACL is the one to name; of several, which fits is the author's call, not the alphabet's.
      hint:
        names.length === 1
          ? `add \`securedBy: [${names[0]}]\` to the resource`
          : names.length
            ? `add \`securedBy: [<x-ACL>]\` to the resource, with the x-ACL meant for it: ${names.join(', ')}`
            : "declare an x-ACL security scheme and add it to the resource's securedBy",
    });
  }
}

/**
 * What an unused x-ACL's `{{principals}}` become where no x-ACL in use names them too: stubs whose
 * objects are of no model (a record), where the code written for the model that was there no longer
 * builds (a new-user probe's `{{subscriber}}`, after its model was removed).
 */
function unguardedPrincipals(ir: ServiceIR, aclName: string, used: ReadonlySet<string | null>): string {
  const alone = ir.userCode.principals.filter(
    (p) => p.usedBy.some((u) => u.acl === aclName) && !p.usedBy.some((u) => u.acl !== undefined && used.has(u.acl)),
  );
  if (alone.length === 0) return '';
  const stubs = alone.map((p) => `src/custom/principals/${kebab(p.name)}.ts`).join(', ');
  return `, or delete it; until then ${stubs} ${alone.length > 1 ? 'take' : 'takes'} objects of no model (a record), and code written for a model's objects there does not build`;
}

function checkUnusedAcls(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  const used = new Set(ir.routes.map((r) => r.acl));
  for (const acl of ir.acls) {
    // Also used when it guards a resource that an error left without a route: that error is the news.
    if (used.has(acl.name) || sources.poisoned.hasAcl(acl.name)) continue;
    diagnostics.report('SVC2071', `x-ACL "${acl.name}" guards no route`, {
      span: sources.acls.get(acl.name),
      hint: `add it to a resource: securedBy: [${acl.name}]${unguardedPrincipals(ir, acl.name, used)}`,
    });
  }
  if (!ir.auth && ir.routes.some((r) => r.acl !== null)) {
    const first = ir.acls.find((a) => used.has(a.name));
    diagnostics.report(
      'SVC2072',
      'x-ACLs apply only with authentication, and no x-Ticket or x-ApiKey scheme is in the root securedBy',
      {
        span: first ? sources.acls.get(first.name) : undefined,
        hint: 'declare an x-Ticket scheme and add it to the root securedBy',
      },
    );
  }
}
