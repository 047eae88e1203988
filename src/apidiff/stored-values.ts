/**
 * A field narrowed under stored data: the migration changes no stored value, so objects written
 * before may hold what the field no longer allows (a choice taken away, a value over the new
 * maximum), which answers go on showing, outside the new contract (a brewery probe's old
 * "Barleywine" style, served after `style` became a choice list without it). Said once, when the
 * contract narrows, at the field (SVC3113).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { IrSources } from '../ir/sources.js';
import type { ServiceIR } from '../ir/types.js';
import { changedField, changeText, type ApiChange } from './change.js';
import { objectAt, type Json } from './document.js';

/**
 * Narrowings that stored values may not meet: of the answer, or of what a create or change takes
 * (a maximum is in the bodies alone). `is never null now` is SVC3108's, which the migration checks.
 */
function narrowsStoredValues(c: ApiChange): boolean {
  if (c.kind === 'response-narrowed') return c.message !== 'is never null now';
  return c.kind === 'constraint-tightened' || c.kind === 'enum-value-removed';
}

/**
 * `checked`: the fields (`Model.field`) whose migration converts every stored value to a narrower
 * type and checks it (a shorter `varchar`, a decimal made an integer; SVC3101 says so): it leaves
 * no value outside the field on SQLite and PostgreSQL, and SVC3101 says MongoDB keeps them.
 */
export function reportNarrowedStoredValues(
  changes: readonly ApiChange[],
  ir: ServiceIR,
  sources: IrSources | undefined,
  checked: ReadonlySet<string>,
  bag: DiagnosticBag,
): void {
  const said = new Set<string>();
  for (const c of changes) {
    // The model's answer and bodies: one warning per field.
    const changed = changedField(c, (name) => ir.models.some((m) => m.name === name));
    const model = ir.models.find((m) => m.name === changed?.model);
    const field = changed?.field ?? '';
    if (!model || !narrowsStoredValues(c) || !model.fields.some((f) => f.name === field)) continue;
    // The migration converts every stored value to the new type, and fails on one that does not fit.
    if (checked.has(`${model.name}.${field}`)) continue;
    if (said.has(`${model.name}.${field}`)) continue;
    said.add(`${model.name}.${field}`);
    bag.report(
      'SVC3113',
      `${model.name}.${field}: ${changeText(c)}: the objects stored before keep their values, which answers go on showing, outside what openapi.json now says`,
      {
        span: sources?.fields.get(`${model.name}.${field}`) ?? sources?.models.get(model.name),
        hint: `once the migration has run, find the objects whose ${field} the field no longer allows and change them (an admin, or a script of your own)${findThem(c, field)}`,
      },
    );
  }
}

/**
 * How a GET finds the objects a narrowing left outside it, where a filter can: a bound by the
 * comparison past it; a choice taken away, whose filter is refused, by the choices still allowed.
 */
function findThem(c: ApiChange, field: string): string {
  // A choice taken away, or a field that becomes a choice (a string before: any text is stored).
  if (c.kind === 'enum-value-removed' || c.message.startsWith('is now limited to'))
    return `: a filter by a value no longer allowed is refused, but ?${field}__ne=<every value still allowed, comma-separated> lists them (and those with none)`;
  const bound = /^(maximum|minimum) \S+ → (\S+)$/.exec(c.message);
  if (!bound) return '';
  return `: ?${field}__${bound[1] === 'maximum' ? 'gt' : 'lt'}=${bound[2]} lists them`;
}

/**
 * Of the fields (`Model.field`) renamed in this run, those whose new name a field of their model had
 * in the previous contract (`previous`; two fields swapped, an old name taken over): the contract's
 * diff compares such a field with that other field (schema-diff.ts `compareProperties`), not with
 * its old self. With no previous contract, every one of them.
 */
export function renamedOntoTakenNames(
  renamed: ReadonlySet<string>,
  ir: ServiceIR,
  previous: Json | undefined,
): Set<string> {
  const schemas = objectAt(objectAt(previous ?? {}, 'components'), 'schemas');
  return new Set(
    [...renamed].filter((named) => {
      const [modelName = '', field = ''] = named.split('.');
      const model = ir.models.find((m) => m.name === modelName);
      const before = [modelName, model?.renamedFrom ?? modelName].map((name) =>
        objectAt(objectAt(schemas, name), 'properties'),
      );
      return !previous || before.some((properties) => field in properties);
    }),
  );
}
