/**
 * A link list hidden while the link back is shown. A speaker's `proposals` is kept in the
 * proposals' rows (their `speaker`): a privacy list that keeps the list from members keeps
 * nothing from them while each proposal shows them its `speaker`, and `GET /proposals?speaker=4`
 * lists what the speaker's answer leaves out. The service shows what the lists say; this says
 * where they disagree (SVC2112). The other way round, the service hides the list itself (SVC2094,
 * runtime lib/auth/policy.ts `fieldsFor`); links kept in a table of their own are hidden on both
 * sides alike. Said only where an x-ACL lets those callers view the other model's objects by an
 * `everyone` (or, for members, `authenticated`) line: where only a `{{principal}}` does (a profile
 * its own user may read), each sees the link back on objects of their own.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import { holdsKey } from '../ir/links.js';
import { hiddenByTheOtherSide, listedFor, type ListedAudience } from '../ir/privacy.js';
import type { Model, ServiceIR } from '../ir/types.js';
import { AUDIENCES, viewsEvery } from './views-every.js';

export function checkLinksShownBack(diagnostics: DiagnosticBag, ir: ServiceIR, sources: IrSources): void {
  if (!ir.auth) return;
  for (const model of ir.models) {
    if (model.internal) continue;
    for (const link of model.relationships) {
      const target = ir.models.find((m) => m.name === link.target);
      // Only a list kept in the other model's rows, whose link back holds the key there.
      const back = target?.relationships.find((r) => r.name === link.inverse);
      if (!target || !back || holdsKey(model, link) || !holdsKey(target, back)) continue;
      const told = AUDIENCES.filter(
        ([audience]) =>
          !listedFor(model, audience, link.name) &&
          listedFor(target, audience, back.name) &&
          !hiddenByTheOtherSide(ir.models, target, audience, back.name) &&
          mayViewAny(ir, target, audience),
      ).map(([, who]) => who);
      if (told.length === 0) continue;
      const who = told.join(' and ');
      diagnostics.report(
        'SVC2112',
        `${model.name} hides "${link.name}" from ${who}, but ${target.name} shows them "${back.name}": each ${target.name}'s "${back.name}" tells them what "${link.name}" would, and a filter on it lists it`,
        {
          span: sources.fields.get(`${model.name}.${link.name}`) ?? sources.models.get(model.name),
          hint: `hide "${back.name}" of ${target.name} from ${who} too, or show them "${link.name}"`,
        },
      );
    }
  }
}

/** Whether the x-ACL of some route of `model` lets every caller of `audience` view its objects. */
function mayViewAny(ir: ServiceIR, model: Model, audience: ListedAudience): boolean {
  return ir.routes.some(
    (route) => route.model === model.name && route.kind !== 'attribute' && viewsEvery(ir, route, audience),
  );
}
