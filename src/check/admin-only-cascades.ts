/**
 * Deletes that what they take along refuses. A delete takes with it the objects a link says so of
 * (the foreign key's `ondelete: CASCADE`), or unlinks them (`NULLIFY`), and only when the caller may
 * delete each of those, or change it (runtime/src/lib/http/cascades.ts). Where a member may delete a
 * model's objects but only admins may delete (or change) the objects a delete takes along (no line
 * of their x-ACL gives anyone else that, or no route does it), the member's delete is refused as
 * soon as there is one: a probe's household owners could delete no household that had an activity
 * log, while `inspect --acl` said "allow". checks.ts (SVC2103) says so.
 */
import { decidingLines, modelRules, type RouteRules } from '../ir/model-route.js';
import type { Acl, AclEntry, Model, Permission, Relationship, Route, ServiceIR } from '../ir/types.js';

export interface AdminOnlyCascade {
  /** The model whose delete takes objects along, its link to them, and their model. */
  readonly model: Model;
  readonly link: Relationship;
  readonly target: Model;
  /** What the delete does to them: deletes them (CASCADE) or changes their link (NULLIFY). */
  readonly act: 'delete' | 'update';
  /** An x-ACL line that lets someone but admins delete `model`'s objects. */
  readonly deleter: AclEntry;
}

export function adminOnlyCascades(ir: ServiceIR): AdminOnlyCascade[] {
  if (!ir.auth) return [];
  const found: AdminOnlyCascade[] = [];
  for (const model of ir.models) {
    const deleter = ir.routes
      .filter((r) => r.model === model.name && r.operations.some((o) => o.permission === 'delete'))
      .flatMap((r) => grants(entriesOf(ir, r.acl, r.kind === 'collection' ? 'collection' : 'item'), 'delete'))[0];
    if (!deleter) continue;
    for (const link of model.relationships) {
      // A key this model holds (a booking's sitter) goes with its row: the delete changes nothing of
      // the object it names. (Its `onDelete` is the other side's rule; a probe's RESTRICT was said NULLIFY.)
      if (link.foreignKey.model === model.name) continue;
      // The foreign key's rule: what the runtime does (Ramses' own ondelete is not followed: SVC2069).
      const act = link.onDelete === 'cascade' ? 'delete' : link.onDelete === 'nullify' ? 'update' : undefined;
      const target = ir.models.find((m) => m.name === link.target);
      if (act && target && onlyAdmins(ir, target, act)) found.push({ model, link, target, act, deleter });
    }
  }
  return found;
}

/** Whether no x-ACL line lets anyone but admins `act` on `model`'s objects where that is done. */
function onlyAdmins(ir: ServiceIR, model: Model, act: 'delete' | 'update'): boolean {
  const rules = modelRules(ir, model);
  if (!rules || !(act === 'delete' ? rules.deletable : rules.updatable)) return true;
  const { kind, acl }: RouteRules = (act === 'delete' ? rules.deleteRules : rules.updateRules) ?? rules;
  return grants(entriesOf(ir, acl, kind), act).length === 0;
}

/** The lines that decide under the rules of `name` (none: no x-ACL, admins only). */
function entriesOf(ir: ServiceIR, name: Route['acl'], kind: RouteRules['kind']): readonly AclEntry[] {
  const acl: Acl | undefined = ir.acls.find((a) => a.name === name);
  return acl ? decidingLines(acl, kind) : [];
}

/** The lines that allow `permission` to someone but admins. */
function grants(entries: readonly AclEntry[], permission: Permission): AclEntry[] {
  return entries.filter(
    (e) =>
      e.action === 'allow' &&
      e.permissions.includes(permission) &&
      !(e.principal.kind === 'group' && e.principal.group === 'admin'),
  );
}
