/**
 * A nested create that picks a read-only link. `POST /residents/{username}/requests` links each new
 * request to the resident its URL names, by the request's `owner`, which `"readOnly": true` keeps
 * members from writing anywhere else (a body, a PATCH, the resident's `requests`). Where the
 * route's x-ACL lets members create by a line that does not look at the parent (`allow
 * authenticated create`), any member chooses it all the same: a probe filed requests in other
 * residents' names. The x-ACL decides, as it says (the permission matrix and the generated
 * tests agree with it); this says where it and the schema disagree (SVC2113).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import type { AclEntry, Route, ServiceIR } from '../ir/types.js';

export function checkNestedOwnerLinks(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  for (const route of ir.routes) {
    if (route.kind !== 'collection' || !route.parent || !route.operations.some((o) => o.action === 'create')) continue;
    const model = ir.models.find((m) => m.name === route.model);
    const parent = ir.models.find((m) => m.name === route.parent!.model);
    const link = parent?.relationships.find((r) => r.name === route.parent!.field);
    const field = link && model?.fields.find((f) => f.name === link.inverse);
    if (!model || !parent || !link || !field?.readOnly) continue;
    const line = memberCreateLine(ir, route);
    if (!line) continue;
    // svcgen cannot read what a handler sets: where one runs before creates, it may be the one
    // that closes this, as the hint advises (a probe's did, and was told of a hole all the same).
    const handlers = model.eventHandlers
      .filter((e) => e.phase === 'before' && e.action === 'create')
      .flatMap((e) => e.handlers);
    const unless = handlers.length
      ? `, unless its before_create handler (${handlers.join(', ')}) sets "${field.name}"`
      : '';
    diagnostics.report(
      'SVC2113',
      `POST ${route.ramlPath} gives each new ${model.name} the ${parent.name} its URL names as "${field.name}", which is read-only, and its x-ACL lets members create below any ${parent.name} ("${line.text}"): they choose the ${field.name} the schema keeps from them${unless}`,
      {
        // At the link, in a schema: `_svcgen_ignore` there silences it where a handler sets the link.
        span: sources.fields.get(`${model.name}.${field.name}`) ?? sources.routes.get(route.path),
        hint: handlers.length
          ? `if ${handlers.join(', ')} sets "${field.name}" (a create below another ${parent.name} is then refused), say so with "_svcgen_ignore": ["SVC2113"] at the root of ${model.name}'s schema; else let the x-ACL decide creates by the parent (a {{principal}} line that reads rule.parent, before "${line.text}"), or take post off ${route.ramlPath}`
          : `let the x-ACL decide creates by the parent (a {{principal}} line that reads rule.parent, before "${line.text}"), or set "${field.name}" in a before_create handler (a create below another ${parent.name} is then refused), or take post off ${route.ramlPath}`,
      },
    );
  }
}

/** The collection line that first lets some members create whatever the parent: a fixed principal but admins. */
function memberCreateLine(ir: ServiceIR, route: Route): AclEntry | undefined {
  const acl = ir.acls.find((a) => a.name === route.acl);
  if (!acl) return undefined;
  for (const line of acl.collection) {
    if (!line.permissions.includes('create')) continue;
    const principal = line.principal;
    if (principal.kind === 'dynamic') return undefined;
    if (principal.kind === 'group' && principal.group === 'admin') continue;
    return line.action === 'allow' ? line : undefined;
  }
  return undefined;
}
