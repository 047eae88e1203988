/**
 * Checks of resource types and traits where they are declared, applied or not (RAML 0.8
 * §Resource Types and Traits): a template that no resource uses yet is still part of the API,
 * and both reference parsers reject its mistakes. The shape of each property is checked by the
 * reader (in template mode); here are the checks that need the template as a whole:
 *
 * - `x?` and `x` in one mapping are the same property (SVC1005);
 * - every `<<…>>` names a parameter and uses a known function (SVC1209, SVC1207);
 * - the types and traits a resource type uses are declared (SVC1201, SVC1202);
 * - resource types do not inherit from each other in a cycle (SVC1203).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { didYouMean } from '../util/suggest.js';
import {
  get,
  isAlreadyReported,
  isMap,
  isNull,
  isScalar,
  isSeq,
  type YMap,
  type YNode,
  type YScalar,
} from '../load/ynode.js';
import { isMethodName } from './grammar.js';
import type { Declaration, Declarations } from './declarations.js';
import { isOptionalKey, requiredKey } from './merge.js';
import { checkReferences } from './parameters.js';

/** Checks every declared template; returns the resource types that are part of a cycle. */
export function checkDeclaredTemplates(declarations: Declarations, diagnostics: DiagnosticBag): Set<string> {
  for (const table of [declarations.traits, declarations.resourceTypes]) {
    for (const declaration of table.values()) checkTemplateNode(declaration.body, diagnostics);
  }
  for (const declaration of declarations.resourceTypes.values())
    checkTypeReferences(declaration.body, declarations, diagnostics);
  return reportTypeCycles(declarations.resourceTypes, diagnostics);
}

/**
 * The resource type a resource type inherits from and the traits it applies (to itself or its
 * methods) must be declared. Same messages, at the same places, as when the type is applied.
 */
function checkTypeReferences(body: YNode, declarations: Declarations, diagnostics: DiagnosticBag): void {
  if (!isMap(body)) return;
  const parent = namedReference(get(body, 'type'), declarations.resourceTypes);
  if (parent && !declarations.resourceTypes.has(parent.text)) {
    diagnostics.report('SVC1201', `unknown resource type "${parent.text}"`, {
      span: parent.span,
      hint: didYouMean(parent.text, declarations.resourceTypes.keys()),
    });
  }
  const traitLists = [
    get(body, 'is'),
    get(body, 'is?'),
    ...body.entries
      .filter((e) => isMethodName(requiredKey(e.key.text)) && isMap(e.value))
      .map((e) => get(e.value as YMap, 'is')),
  ];
  for (const list of traitLists) {
    for (const item of isSeq(list) ? list.items : []) {
      const trait = namedReference(item, declarations.traits);
      if (trait && !declarations.traits.has(trait.text))
        diagnostics.report('SVC1202', `unknown trait "${trait.text}"`, {
          span: trait.span,
          hint: didYouMean(trait.text, declarations.traits.keys()),
        });
    }
  }
}

/**
 * The name in a use of a template, as the expander reads it: `name`, or `{name: {parameters}}`
 * (a one-key mapping whose key is declared, or whose value is a mapping or empty); not an inline
 * definition, nor a `<<parameter>>`.
 */
function namedReference(node: YNode | undefined, table: ReadonlyMap<string, Declaration>): YScalar | undefined {
  let name: YScalar | undefined;
  if (isScalar(node) && (typeof node.value === 'string' || typeof node.value === 'number')) name = node;
  else if (isMap(node) && node.entries.length === 1) {
    const only = node.entries[0]!;
    if (table.has(only.key.text) || isMap(only.value) || isNull(only.value)) name = only.key;
  }
  return name && !name.text.includes('<<') ? name : undefined;
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
  if (!map.entries.some((e) => isOptionalKey(e.key.text))) return; // the common case, kept cheap
  const first = new Map<string, YScalar>();
  for (const e of map.entries) {
    const name = requiredKey(e.key.text);
    const earlier = first.get(name);
    if (earlier === undefined) {
      first.set(name, e.key);
      continue;
    }
    if (earlier.text === e.key.text) continue;
    diagnostics.report(
      'SVC1005',
      `"${e.key.text}" repeats "${earlier.text}": an optional property and the property itself are the same property`,
      {
        span: e.key.span,
        related: { span: earlier.span, message: 'first written here' },
        hint: `keep one of them: "${name}?" applies only where the resource or method has "${name}", "${name}" applies everywhere`,
      },
    );
  }
}

/**
 * Resource types whose `type:` chain runs into a cycle. Reported once per cycle, at the first
 * declaration in order whose chain reaches it (where raml-1-parser reports it too), with the
 * whole chain: `top → a → b → a`.
 */
function reportTypeCycles(types: ReadonlyMap<string, Declaration>, diagnostics: DiagnosticBag): Set<string> {
  const cyclic = new Set<string>();
  for (const declaration of types.values()) {
    if (cyclic.has(declaration.name)) continue;
    const chain = chainFrom(declaration.name, types);
    const last = chain[chain.length - 1]!;
    if (chain.indexOf(last) === chain.length - 1) continue; // the chain ends: no cycle
    const reported = chain.some((name) => cyclic.has(name));
    for (const name of chain) cyclic.add(name);
    if (reported) continue; // it runs into a cycle already reported
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
  for (
    let parent = parentName(types.get(start)!.body, types);
    parent !== undefined;
    parent = parentName(types.get(parent)!.body, types)
  ) {
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
