/**
 * Deletes that what they take along refuses. A delete takes with it the objects a relationship
 * says so of (`ondelete: CASCADE`), and only when the caller may delete each of those too
 * (runtime/src/lib/http/cascades.ts). Where a member may delete a model's objects but only admins
 * may delete the objects it takes (no line of their x-ACL gives anyone else delete, or no route
 * deletes them), the member's delete is refused as soon as there is one: a probe's household
 * owners could delete no household that had an activity log, while `inspect --acl` said "allow".
 * checks.ts (SVC2103) says so.
 */
import { modelRules } from '../ir/model-route.js';
import type { Acl, AclEntry, Model, Relationship, Route, ServiceIR } from '../ir/types.js';

export interface AdminOnlyCascade {
  /** The model whose delete cascades, its link to the objects it takes, and their model. */
  readonly model: Model;
  readonly link: Relationship;
  readonly target: Model;
  /** An x-ACL line that lets someone but admins delete `model`'s objects. */
  readonly deleter: AclEntry;
}

export function adminOnlyCascades(ir: ServiceIR): AdminOnlyCascade[] {
  if (!ir.auth) return [];
  const found: AdminOnlyCascade[] = [];
  for (const model of ir.models) {
    const deleter = ir.routes
      .filter((r) => r.model === model.name && r.operations.some((o) => o.permission === 'delete'))
      .flatMap((r) => nonAdminDeletes(entriesOf(ir, r.acl, r.kind === 'collection' ? 'collection' : 'item')))[0];
    if (!deleter) continue;
    for (const link of model.relationships) {
      if (link.onDelete !== 'cascade' && link.documentOnDelete !== 'cascade') continue;
      const target = ir.models.find((m) => m.name === link.target);
      if (target && onlyAdminsDelete(ir, target)) found.push({ model, link, target, deleter });
    }
  }
  return found;
}

/** Whether no x-ACL line lets anyone but admins delete `model`'s objects where they are deleted. */
function onlyAdminsDelete(ir: ServiceIR, model: Model): boolean {
  const rules = modelRules(ir, model);
  if (!rules?.deletable) return true;
  const { kind, acl } = rules.deleteRules ?? rules;
  return nonAdminDeletes(entriesOf(ir, acl, kind)).length === 0;
}

/** The lines that decide on a route: an item's, then its collection's; a collection's own. */
function entriesOf(ir: ServiceIR, name: Route['acl'], kind: 'item' | 'collection'): readonly AclEntry[] {
  const acl: Acl | undefined = ir.acls.find((a) => a.name === name);
  if (!acl) return [];
  return kind === 'item' ? [...acl.item, ...acl.collection] : acl.collection;
}

function nonAdminDeletes(entries: readonly AclEntry[]): AclEntry[] {
  return entries.filter(
    (e) =>
      e.action === 'allow' &&
      e.permissions.includes('delete') &&
      !(e.principal.kind === 'group' && e.principal.group === 'admin'),
  );
}
