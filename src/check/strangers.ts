/**
 * Privacy lists that show a stranger more than a member. Without `_public_fields`, anonymous
 * callers see every field (the contract: an absent list is all fields), also those `_auth_fields`
 * hides from members and `_group_fields` shows a group alone: a vets-only note was served to
 * anyone once an x-ACL let anonymous callers read the records. Said where an x-ACL lets them view
 * the model's objects by an `everyone` line (a `{{principal}}` that grants `everyone` for some
 * objects is not seen here: most grant a member).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import { decidingLines } from '../ir/model-route.js';
import { listedFor } from '../ir/privacy.js';
import type { Acl, AclEntry, Model, Route, ServiceIR } from '../ir/types.js';

export function checkStrangersSeeMore(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  for (const model of ir.models) {
    if (model.publicFields !== null || model.internal) continue;
    const unseen = fieldsMembersMiss(model);
    if (unseen.length === 0) continue;
    const route = ir.routes.find((r) => r.model === model.name && r.kind !== 'attribute' && anonymousMayView(ir, r));
    if (!route) continue;
    const names = unseen.map((name) => `"${name}"`).join(', ');
    diagnostics.report(
      'SVC2092',
      `${model.name} has no _public_fields, so anonymous callers see every field, ${names} too, which members are not shown, and the x-ACL of ${route.path} lets them view it`,
      {
        span: sources.models.get(model.name),
        hint: `list what anonymous callers see: "_public_fields": ${JSON.stringify(shownToMembers(model))} (or [] for none)`,
      },
    );
  }
}

/** The fields anonymous callers see that a member outside every group does not (a password is shown to no one). */
function fieldsMembersMiss(model: Model): string[] {
  return model.fields
    .map((f) => f.name)
    .filter((name) => listedFor(model, 'anonymous', name) && !listedFor(model, 'member', name))
    .filter((name) => !(model.isAuthModel && name === 'password'));
}

function shownToMembers(model: Model): string[] {
  return model.fields.map((f) => f.name).filter((name) => listedFor(model, 'member', name));
}

/**
 * Whether the rules of `route` let an anonymous caller `view`: the first line that names `view`
 * for `everyone` allows it, and no `{{principal}}` line before it could have decided otherwise
 * for them. Item rules first (a list shows what they let view), then the collection rules.
 */
function anonymousMayView(ir: ServiceIR, route: Route): boolean {
  const acl: Acl | undefined = route.acl === null ? undefined : ir.acls.find((a) => a.name === route.acl);
  if (!acl) return false;
  const lines: readonly AclEntry[] = decidingLines(acl, route.kind === 'collection' ? 'collection' : 'item');
  for (const line of lines) {
    if (!line.permissions.includes('view')) continue;
    if (line.principal.kind === 'everyone') return line.action === 'allow';
  }
  return false;
}
