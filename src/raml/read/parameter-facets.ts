/**
 * RAML 0.8 §Named Parameters: which facets fit which type. `enum`, `pattern`, `minLength` and
 * `maxLength` are "applicable only to parameters of type string", `minimum` and `maximum` "only
 * to parameters of type number or integer", and `type: file` is "applicable only to Form
 * parameters". A facet the type ignores is a mistake the user should hear about (both reference
 * parsers reject it), not a constraint the generated service silently drops.
 */
import { isScalar, type YEntry, type YMap } from '../../load/ynode.js';
import { requiredKey } from '../merge.js';
import { hasParameters, report, type ReadContext } from './context.js';

const STRING_FACETS = ['enum', 'pattern', 'minLength', 'maxLength'] as const;
const NUMBER_FACETS = ['minimum', 'maximum'] as const;

/** The facets each parameter type accepts (string is the default type). */
const FACETS_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: STRING_FACETS,
  number: NUMBER_FACETS,
  integer: NUMBER_FACETS,
  date: [],
  boolean: [],
  file: [],
};

/** Reports the facets of `map` its type does not have, and `type: file` outside form parameters. */
export function checkFacets(ctx: ReadContext, name: string, map: YMap, inForm: boolean): void {
  const typeEntry = map.entries.find((e) => keyOf(ctx, e) === 'type');
  const type = typeEntry === undefined ? 'string' : typeText(typeEntry);
  // A type given by a `<<parameter>>` (or a wrong one, reported already) is unknown: nothing to check.
  if (type === undefined || !Object.hasOwn(FACETS_OF_TYPE, type)) return;
  if (type === 'file' && !inForm) {
    report(ctx, 'SVC1120', `parameter "${name}" has type file, which only form parameters can have`, {
      span: typeEntry!.value.span,
      hint: 'files are sent in a form body: declare the parameter under `body: { multipart/form-data: { formParameters: … } }`',
    });
  }
  const allowed = FACETS_OF_TYPE[type]!;
  for (const e of map.entries) {
    const facet = keyOf(ctx, e);
    if (allowed.includes(facet) || !isFacet(facet)) continue;
    report(ctx, 'SVC1119', `"${facet}" does not apply to parameter "${name}" of type ${type}`, {
      span: e.key.span,
      hint: `"${facet}" applies only to ${typesWith(facet)} parameters${typeEntry ? '' : ' (a parameter without `type` is a string)'}`,
    });
  }
}

function keyOf(ctx: ReadContext, e: YEntry): string {
  return ctx.template ? requiredKey(e.key.text) : e.key.text;
}

function typeText(e: YEntry): string | undefined {
  if (!isScalar(e.value) || typeof e.value.value !== 'string' || hasParameters(e.value.text)) return undefined;
  return e.value.text;
}

function isFacet(key: string): boolean {
  return (STRING_FACETS as readonly string[]).includes(key) || (NUMBER_FACETS as readonly string[]).includes(key);
}

function typesWith(facet: string): string {
  return (STRING_FACETS as readonly string[]).includes(facet) ? 'string' : 'number and integer';
}
