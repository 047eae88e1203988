/**
 * A nested route that shows what the objects' own route refuses. `/units/{id}/requests` guarded by
 * an x-ACL that lets everyone view lists, counts and searches the requests that `/requests/{id}`
 * keeps from all but their owner: each route is decided by its own x-ACL (as in Ramses), so a probe
 * read other residents' requests below a unit. Said (SVC2114) where the nested route lets every
 * member (or every anonymous caller) view by a fixed line and the objects' own item route does not.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import type { ServiceIR } from '../ir/types.js';
import { AUDIENCES, viewsEvery } from './views-every.js';

export function checkLooserNestedRoutes(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  for (const route of ir.routes) {
    if (
      !route.parent ||
      route.kind === 'attribute' ||
      !route.operations.some((o) => o.action === 'index' || o.action === 'show')
    )
      continue;
    const own = ir.routes.find((r) => r.model === route.model && r.kind === 'item' && !r.parent);
    if (!own || own.acl === route.acl) continue;
    // Said for the widest audience the nested route shows more: anonymous callers are members' worst case.
    const widened = AUDIENCES.find(([audience]) => viewsEvery(ir, route, audience) && !viewsEvery(ir, own, audience));
    if (!widened) continue;
    const who = widened[1];
    diagnostics.report(
      'SVC2114',
      `${route.ramlPath} lets ${who} view every ${route.model} below a ${route.parent.model} (its x-ACL ${route.acl}), which ${own.ramlPath} does not (${own.acl ?? 'admins only'}): the objects their own route keeps from ${who} are read, listed, counted and searched here`,
      {
        span: sources.routes.get(route.path),
        hint: `guard ${route.ramlPath} with the x-ACL of ${own.ramlPath}${own.acl ? ` (securedBy: [${own.acl}])` : ''}, or one that lets ${who} view no more`,
      },
    );
  }
}
