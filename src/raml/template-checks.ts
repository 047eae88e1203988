/**
 * Checks of resource types and traits where they are declared, applied or not (RAML 0.8
 * §Resource Types and Traits): a template that no resource uses yet is still part of the API,
 * and both reference parsers reject its mistakes. The shape of each property is checked by the
 * reader (in template mode); here are the checks that need the template as a whole:
 *
 * - `x?` and `x` in one mapping are the same property (SVC1005);
 * - every `<<…>>` names a parameter and uses a known function (SVC1209, SVC1207);
 * - resource types do not inherit from each other in a cycle (SVC1203).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { get, isAlreadyReported, isMap, isScalar, type YMap, type YNode } from '../load/ynode.js';
import type { Declaration, Declarations } from './expand.js';
import { requiredKey } from './merge.js';
import { checkReferences } from './parameters.js';

/** Checks every declared template; returns the resource types that are part of a cycle. */
export function checkDeclaredTemplates(declarations: Declarations, diagnostics: DiagnosticBag): Set<string> {
  for (const table of [declarations.traits, declarations.resourceTypes]) {
    for (const declaration of table.values()) checkTemplateNode(declaration.body, diagnostics);
  }
  return reportTypeCycles(declarations.resourceTypes, diagnostics);
}

/** The checks of one template (or part of one), at every level below `node`. */
export function checkTemplateNode(node: YNode, diagnostics: DiagnosticBag): void {
  if (isAlreadyReported(node)) return;
  switch (node.kind) {
    case 'scalar':
      if (typeof node.value === 'string') checkReferences(node.text, node.span, diagnostics);
      return;
    case 'seq':
      for (const item of node.items) checkTemplateNode(item, diagnostics);
      return;
    case 'map':
      checkOptionalRepeats(node, diagnostics);
      for (const e of node.entries) {
        checkReferences(e.key.text, e.key.span, diagnostics);
        checkTemplateNode(e.value, diagnostics);
      }
  }
}

/**
 * RAML 0.8 §Optional Properties: `x?` is property `x`, applied only if the target has it; so
 * `x?` beside `x` is the same property twice (an identical key twice is reported by the YAML
 * reader already). Reported at the second, like any repeated key.
 */
export function checkOptionalRepeats(map: YMap, diagnostics: DiagnosticBag): void {
  const first = new Map<string, string>();
  for (const e of map.entries) {
    const name = requiredKey(e.key.text);
    const earlier = first.get(name);
    if (earlier === undefined) {
      first.set(name, e.key.text);
      continue;
    }
    if (earlier === e.key.text) continue;
    diagnostics.report('SVC1005', `"${e.key.text}" repeats "${earlier}": an optional property and the property itself are the same property`, {
      span: e.key.span,
      hint: `keep one of them: "${name}?" applies only where the resource or method has "${name}", "${name}" applies everywhere`,
    });
  }
}

/**
 * Resource types whose `type:` chain comes back to itself. Reported once per cycle, at the
 * first of its types in declaration order (where raml-1-parser reports it too).
 */
function reportTypeCycles(types: ReadonlyMap<string, Declaration>, diagnostics: DiagnosticBag): Set<string> {
  const cyclic = new Set<string>();
  for (const declaration of types.values()) {
    if (cyclic.has(declaration.name)) continue;
    const chain = chainFrom(declaration.name, types);
    if (chain[chain.length - 1] !== declaration.name || chain.length < 2) continue;
    for (const name of chain) cyclic.add(name);
    diagnostics.report('SVC1203', `resource types inherit in a cycle: ${chain.join(' → ')}`, {
      span: declaration.nameNode.span,
      hint: 'a resource type cannot be its own ancestor: remove one `type:` of the cycle',
    });
  }
  return cyclic;
}

/** The names along `type:` from `start`, ending at the first repeat (or where the chain ends). */
function chainFrom(start: string, types: ReadonlyMap<string, Declaration>): string[] {
  const chain = [start];
  for (let parent = parentName(types.get(start)!.body, types); parent !== undefined; parent = parentName(types.get(parent)!.body, types)) {
    chain.push(parent);
    if (chain.indexOf(parent) !== chain.length - 1) break;
  }
  return chain;
}

/** The declared resource type a type inherits from: `type: name` or `type: {name: {…}}`. */
function parentName(body: YNode, types: ReadonlyMap<string, Declaration>): string | undefined {
  if (!isMap(body)) return undefined;
  const ref = get(body, 'type');
  const name = isScalar(ref) ? ref.text : isMap(ref) && ref.entries.length === 1 ? ref.entries[0]!.key.text : undefined;
  return name !== undefined && types.has(name) ? name : undefined;
}
