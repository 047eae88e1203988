/**
 * Expand stage: applies resource types and traits (RAML 0.8 §Resource Types and Traits) and the
 * default media type to every resource, producing a tree in which each resource and method
 * says everything about itself. Declarations are left in place (the TCK echoes them).
 *
 * Order, as raml-1-parser and the TCK have it: the resource type chain is resolved (child over
 * parent) and merged into the resource; then each method receives its traits in the order
 * method `is`, resource `is`, the type's method `is`, the type's `is`; leftover optional keys
 * are dropped. Traits and types never reach nested resources.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/source.js';
import { limits } from '../load/budget.js';
import {
  get,
  isAlreadyReported,
  isMap,
  isNull,
  isScalar,
  isSeq,
  type YEntry,
  type YMap,
  type YNode,
  type YScalar,
} from '../load/ynode.js';
import { didYouMean } from '../util/suggest.js';
import { BODY_PROPERTIES, isMethodName, isResourceKey } from './grammar.js';
import { dropOptionalKeys, isOptionalKey, mergeInto, requiredKey } from './merge.js';
import { isScalarProperty, reportOptionalScalar } from './read/context.js';
import type { Declaration, Declarations } from './declarations.js';
import { checkOptionalRepeats } from './template-checks.js';
import {
  ParameterUse,
  RESERVED_PARAMETERS,
  referencedNames,
  substituteScalar,
  type ParameterValues,
} from './parameters.js';

/** A use of a type or trait: a name with parameters, or an inline definition. */
interface TemplateRef {
  readonly name?: string;
  readonly nameNode: YNode;
  readonly params: ReadonlyMap<string, YScalar>;
  readonly paramKeys: ReadonlyMap<string, YScalar>;
  readonly inline?: YNode;
}

export function expandApi(root: YMap, declarations: Declarations, diagnostics: DiagnosticBag): YMap {
  const expander = new Expander(declarations, diagnostics, mediaTypeOf(root));
  return expander.expandRoot(root);
}

export function mediaTypeOf(root: YMap): string | undefined {
  const node = get(root, 'mediaType');
  return isScalar(node) && typeof node.value === 'string' ? node.text : undefined;
}

/** Reads `traits:` / `resourceTypes:` (a list of maps of name → definition) into a lookup. */
export function collectDeclarations(
  root: YMap,
  key: 'traits' | 'resourceTypes',
  diagnostics: DiagnosticBag,
): Map<string, Declaration> {
  const found = new Map<string, Declaration>();
  for (const { key: nameNode, value } of declarationEntries(get(root, key))) {
    const name = nameNode.text;
    const first = found.get(name);
    if (first) {
      diagnostics.report('SVC1210', `${key === 'traits' ? 'trait' : 'resource type'} "${name}" is declared twice`, {
        span: nameNode.span,
        related: { span: first.nameNode.span, message: 'first declared here' },
      });
      continue;
    }
    found.set(name, { name, nameNode, body: value });
  }
  return found;
}

/** The name/definition pairs of a declaration list, in order; shapes are checked by the reader. */
export function declarationEntries(node: YNode | undefined): YEntry[] {
  if (isMap(node)) return [...node.entries];
  if (!isSeq(node)) return [];
  return node.items.flatMap((item) => (isMap(item) ? item.entries : []));
}

class Expander {
  #budget = 0;
  #overBudget = false;
  readonly #nestedReported = new Set<string>();

  constructor(
    readonly declarations: Declarations,
    readonly diagnostics: DiagnosticBag,
    readonly mediaType: string | undefined,
  ) {}

  expandRoot(root: YMap): YMap {
    const entries = root.entries.map((e) =>
      isResourceKey(e.key.text) ? { key: e.key, value: this.expandResource(e.value, e.key.text, '') } : e,
    );
    return { kind: 'map', entries, span: root.span };
  }

  expandResource(node: YNode, relativeUri: string, parentPath: string): YNode {
    if (!isMap(node) && !isNull(node)) return node; // the reader reports the wrong shape
    const resourcePath = parentPath + relativeUri;
    const all = isMap(node) ? node.entries : [];
    const own: YMap = this.pivotResource({
      kind: 'map',
      entries: all.filter((e) => !isResourceKey(e.key.text)),
      span: node.span,
    });
    const reserved = new Map([
      ['resourcePath', resourcePath],
      ['resourcePathName', resourcePathName(resourcePath)],
    ]);
    this.reportOptionalKeys(own);
    const typeNode = get(own, 'type');
    const typeBody = typeNode && !isNull(typeNode) ? this.resolveType(typeNode, reserved, []) : undefined;
    let merged = typeBody ? (mergeInto(own, typeBody) as YMap) : own;
    merged = this.applyTraits(merged, own, typeBody, reserved);
    if (!merged.entries.some((e) => isMethodName(e.key.text))) this.checkUnappliedTraits(own, typeBody, reserved);
    merged = dropOptionalKeys(merged) as YMap;
    const nested = all
      .filter((e) => isResourceKey(e.key.text))
      .map((e) => ({ key: e.key, value: this.expandResource(e.value, e.key.text, resourcePath) }));
    if (nested.length === 0 && merged === own && node.kind === 'map' && all.length === own.entries.length) return node;
    return { kind: 'map', entries: [...merged.entries, ...nested], span: node.span };
  }

  applyTraits(resource: YMap, own: YMap, typeBody: YMap | undefined, reserved: ReadonlyMap<string, string>): YMap {
    const entries = resource.entries.map((e) => {
      if (!isMethodName(e.key.text)) return e;
      const method = e.key.text;
      const refs = [
        ...listItems(get(methodOf(own, method), 'is')),
        ...listItems(get(own, 'is')),
        ...listItems(get(methodOf(typeBody, method), 'is')),
        ...listItems(get(typeBody, 'is')),
      ];
      let value = e.value;
      const applied = new Set<string>();
      for (const ref of refs) {
        const key = JSON.stringify(plainRef(ref));
        if (applied.has(key)) continue;
        applied.add(key);
        const body = this.instantiateTrait(ref, new Map([...reserved, ['methodName', method]]));
        if (body) value = mergeInto(value, body);
      }
      return value === e.value ? e : { key: e.key, value };
    });
    return { kind: 'map', entries, span: resource.span };
  }

  /**
   * A resource without methods applies its traits to nothing, but they are still checked as if
   * applied (their parameters given, their functions known), as raml-1-parser does.
   */
  checkUnappliedTraits(own: YMap, typeBody: YMap | undefined, reserved: ReadonlyMap<string, string>): void {
    for (const ref of [...listItems(get(own, 'is')), ...listItems(get(typeBody, 'is'))]) {
      this.instantiateTrait(ref, reserved, new Set(['methodName']));
    }
  }

  /**
   * RAML 0.8 §Optional Properties: "a resource type or trait definition MAY append a question
   * mark". On a resource itself a `key?` would be dropped without a word, so it is reported.
   * `type` and `is` values are templates (or their parameters), checked when applied.
   */
  reportOptionalKeys(node: YNode): void {
    if (!isMap(node)) return;
    for (const e of node.entries) {
      if (isOptionalKey(e.key.text)) {
        this.diagnostics.report(
          'SVC1102',
          `unknown property "${e.key.text}": only resource types and traits can mark a property optional with "?"`,
          {
            span: e.key.span,
            hint: `write "${requiredKey(e.key.text)}" without "?"`,
          },
        );
      } else if (e.key.text !== 'type' && e.key.text !== 'is') {
        this.reportOptionalKeys(e.value);
      }
    }
  }

  /** A resource type with its parameters applied and its parent types merged in (child wins). */
  resolveType(refNode: YNode, reserved: ReadonlyMap<string, string>, chain: readonly string[]): YMap | undefined {
    const ref = this.parseRef(refNode, 'resource type');
    if (!ref) return undefined;
    let body: YNode;
    let name = '(inline)';
    if (ref.inline) {
      body = this.instantiate(ref.inline, ref, reserved, new Set(['methodName']), 'inline resource type');
    } else {
      name = ref.name!;
      const declaration = this.declarations.resourceTypes.get(name);
      if (!declaration) {
        this.diagnostics.report('SVC1201', `unknown resource type "${name}"`, {
          span: ref.nameNode.span,
          hint:
            didYouMean(name, this.declarations.resourceTypes.keys()) ??
            declaredHint(this.declarations.resourceTypes, 'resourceTypes'),
        });
        return undefined;
      }
      if (chain.includes(name)) {
        // A cycle through declared names was reported at the declaration; one through a
        // `type: <<parameter>>` shows only now.
        if (!this.declarations.cyclicTypes?.has(name)) {
          this.diagnostics.report('SVC1203', `resource types inherit in a cycle: ${[...chain, name].join(' → ')}`, {
            span: ref.nameNode.span,
          });
        }
        return undefined;
      }
      this.checkNoNestedResources(declaration);
      body = this.instantiate(declaration.body, ref, reserved, new Set(['methodName']), `resource type "${name}"`);
    }
    if (!isMap(body)) return isNull(body) ? emptyMap(body.span) : undefined;
    const parentRef = get(body, 'type');
    let own: YMap = this.pivotResource({
      kind: 'map',
      entries: body.entries.filter((e) => !['usage', 'type'].includes(e.key.text) && !isResourceKey(e.key.text)),
      span: body.span,
    });
    if (parentRef && !isNull(parentRef)) {
      const parent = this.resolveType(parentRef, reserved, [...chain, name]);
      if (parent) own = mergeInto(own, parent) as YMap;
    }
    return own;
  }

  instantiateTrait(
    refNode: YNode,
    reserved: ReadonlyMap<string, string>,
    passThrough: ReadonlySet<string> = new Set(),
  ): YMap | undefined {
    const ref = this.parseRef(refNode, 'trait');
    if (!ref) return undefined;
    let body: YNode;
    if (ref.inline) {
      body = this.instantiate(ref.inline, ref, reserved, passThrough, 'inline trait');
    } else {
      const declaration = this.declarations.traits.get(ref.name!);
      if (!declaration) {
        this.diagnostics.report('SVC1202', `unknown trait "${ref.name}"`, {
          span: ref.nameNode.span,
          hint:
            didYouMean(ref.name!, this.declarations.traits.keys()) ?? declaredHint(this.declarations.traits, 'traits'),
        });
        return undefined;
      }
      body = this.instantiate(declaration.body, ref, reserved, passThrough, `trait "${ref.name}"`);
    }
    if (!isMap(body)) return undefined;
    const kept = body.entries.filter((e) => e.key.text !== 'usage' && e.key.text !== 'displayName');
    return this.pivotMethod({ kind: 'map', entries: kept, span: body.span });
  }

  /** Reads `name`, `{name: {params}}` or an inline definition. */
  parseRef(node: YNode, kind: 'trait' | 'resource type'): TemplateRef | undefined {
    const table = kind === 'trait' ? this.declarations.traits : this.declarations.resourceTypes;
    if (isScalar(node)) {
      if (typeof node.value !== 'string' && typeof node.value !== 'number') return undefined;
      return { name: node.text, nameNode: node, params: new Map(), paramKeys: new Map() };
    }
    if (!isMap(node)) return undefined;
    const only = node.entries.length === 1 ? node.entries[0]! : undefined;
    if (!only || (!table.has(only.key.text) && !(isMap(only.value) || isNull(only.value)))) {
      return { nameNode: node, params: new Map(), paramKeys: new Map(), inline: node };
    }
    const params = new Map<string, YScalar>();
    const paramKeys = new Map<string, YScalar>();
    if (!isMap(only.value) && !isNull(only.value)) {
      this.diagnostics.report(
        'SVC1103',
        `the parameters of ${kind} "${only.key.text}" must be a mapping {name: value}, not a ${isSeq(only.value) ? 'list' : 'scalar'}`,
        {
          span: only.value.span,
          hint: `write \`${only.key.text}: { parameter: value }\``,
        },
      );
      return undefined;
    }
    if (isMap(only.value)) {
      for (const p of only.value.entries) {
        if (!isScalar(p.value)) {
          this.diagnostics.report('SVC1105', `the value of parameter "${p.key.text}" must be text`, {
            span: p.value.span,
          });
          continue;
        }
        // RAML 0.8 §Parameters: every parameter used MUST be given a value; `p:` alone is null.
        // It is still substituted (as empty text), so that it is not also reported as missing.
        if (p.value.value === null && !isAlreadyReported(p.value)) {
          this.diagnostics.report('SVC1121', `parameter "${p.key.text}" of ${kind} "${only.key.text}" has no value`, {
            span: p.key.span,
            hint: `give it a value: \`${p.key.text}: …\` (write \`${p.key.text}: ""\` for empty text)`,
          });
        }
        if ((RESERVED_PARAMETERS as readonly string[]).includes(p.key.text)) {
          this.diagnostics.report('SVC1206', `"${p.key.text}" is computed by RAML and cannot be given`, {
            span: p.key.span,
          });
          continue;
        }
        params.set(p.key.text, p.value);
        paramKeys.set(p.key.text, p.key);
      }
    }
    return { name: only.key.text, nameNode: only.key, params, paramKeys };
  }

  /** A fresh copy of a template with every `<<parameter>>` substituted. */
  instantiate(
    body: YNode,
    ref: TemplateRef,
    reserved: ReadonlyMap<string, string>,
    passThrough: ReadonlySet<string>,
    what: string,
  ): YNode {
    const values: ParameterValues = { given: ref.params, reserved, passThrough, what, appliedAt: ref.nameNode.span };
    const use = new ParameterUse(values, this.diagnostics);
    const copy = this.copy(body, use);
    // A template whose file could not be read (reported) says nothing of the parameters it uses.
    for (const [name, keyNode] of isAlreadyReported(body) ? [] : ref.paramKeys) {
      if (!use.used.has(name) && !mentions(body, name)) {
        this.diagnostics.report('SVC1205', `parameter "${name}" is not used by ${what}`, { span: keyNode.span });
      }
    }
    return copy;
  }

  copy(node: YNode, use: ParameterUse): YNode {
    if (!this.charge(node.span)) return node;
    switch (node.kind) {
      case 'scalar':
        return substituteScalar(node, use);
      case 'seq':
        return { kind: 'seq', items: node.items.map((item) => this.copy(item, use)), span: node.span };
      case 'map':
        checkOptionalRepeats(node, this.diagnostics);
        return {
          kind: 'map',
          span: node.span,
          entries: node.entries.map((e) => {
            this.checkOptionalScalar(e);
            return { key: substituteScalar(e.key, use), value: this.copy(e.value, use) };
          }),
        };
    }
  }

  /**
   * RAML 0.8 §Optional Properties: only non-scalar properties can be optional. Declared
   * templates are checked by the reader; this catches inline ones (`is: [{description?: x}]`).
   * An empty, mapping or list value may be a parameter or header named like a property (the
   * reader, which knows the place, tells them apart in declared templates).
   */
  checkOptionalScalar(e: YEntry): void {
    if (
      isOptionalKey(e.key.text) &&
      isScalarProperty(requiredKey(e.key.text)) &&
      isScalar(e.value) &&
      e.value.value !== null
    )
      reportOptionalScalar(this, e);
  }

  charge(at: Span): boolean {
    if (this.#overBudget) return false;
    if (++this.#budget <= limits.maxNodes) return true;
    this.#overBudget = true;
    this.diagnostics.report(
      'SVC1008',
      `applying resource types and traits creates more than ${limits.maxNodes.toLocaleString('en-US')} nodes`,
      { span: at },
    );
    return false;
  }

  checkNoNestedResources(declaration: Declaration): void {
    if (!isMap(declaration.body) || this.#nestedReported.has(declaration.name)) return;
    const nested = declaration.body.entries.find((e) => isResourceKey(e.key.text));
    if (!nested) return;
    this.#nestedReported.add(declaration.name);
    this.diagnostics.report(
      'SVC1208',
      `resource type "${declaration.name}" declares the nested resource ${nested.key.text}`,
      {
        span: nested.key.span,
        hint: 'declare nested resources on the resource itself',
      },
    );
  }

  pivotResource(resource: YMap): YMap {
    return pivotResourceBodies(resource, this.mediaType);
  }

  pivotMethod<T extends YNode>(method: T): T {
    return pivotMethodBodies(method, this.mediaType);
  }
}

// --- the default media type (RAML 0.8 §Default Media Type) ------------------------------------

/** Applies the default media type to the bodies of every method of a resource (or resource type). */
export function pivotResourceBodies(resource: YMap, mediaType: string | undefined): YMap {
  if (!mediaType) return resource;
  return mapEntries(resource, (e) =>
    isMethodName(requiredKey(e.key.text)) ? { key: e.key, value: pivotMethodBodies(e.value, mediaType) } : e,
  );
}

/** `body: {schema: …}` means `body: {<mediaType>: {schema: …}}`, in methods and in responses. */
export function pivotMethodBodies<T extends YNode>(method: T, mediaType: string | undefined): T {
  if (!mediaType || !isMap(method)) return method;
  return mapEntries(method, (e) => {
    const key = requiredKey(e.key.text);
    if (key === 'body') return { key: e.key, value: pivotBody(e.value, mediaType) };
    if (key === 'responses' && isMap(e.value)) {
      const responses = mapEntries(e.value, (r) =>
        isMap(r.value)
          ? {
              key: r.key,
              value: mapEntries(r.value, (b) =>
                requiredKey(b.key.text) === 'body' ? { key: b.key, value: pivotBody(b.value, mediaType) } : b,
              ),
            }
          : r,
      );
      return { key: e.key, value: responses };
    }
    return e;
  }) as T;
}

function pivotBody(body: YNode, mediaType: string): YNode {
  if (!isMap(body) || body.entries.length === 0) return body;
  if (!body.entries.every((e) => BODY_PROPERTIES.has(requiredKey(e.key.text)))) return body;
  const key: YScalar = { kind: 'scalar', value: mediaType, text: mediaType, style: 'plain', span: body.span };
  return { kind: 'map', entries: [{ key, value: body }], span: body.span };
}

function mapEntries(map: YMap, fn: (e: YEntry) => YEntry): YMap {
  let changed = false;
  const entries = map.entries.map((e) => {
    const next = fn(e);
    if (next !== e) changed = true;
    return next;
  });
  return changed ? { kind: 'map', entries, span: map.span } : map;
}

function methodOf(resource: YMap | undefined, method: string): YMap | undefined {
  const node = get(resource, method) ?? get(resource, `${method}?`);
  return isMap(node) ? node : undefined;
}

function listItems(node: YNode | undefined): readonly YNode[] {
  if (isSeq(node)) return node.items;
  return [];
}

function plainRef(node: YNode): unknown {
  if (isScalar(node)) return node.text;
  if (isMap(node)) return node.entries.map((e) => [e.key.text, plainRef(e.value)]);
  if (isSeq(node)) return node.items.map(plainRef);
  return null;
}

function emptyMap(at: Span): YMap {
  return { kind: 'map', entries: [], span: at };
}

/** RAML 0.8 §Parameters, as both reference parsers compute it: the rightmost segment without `{`. */
export function resourcePathName(resourcePath: string): string {
  const segments = resourcePath.split('/');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    if (!segment.includes('{')) return segment;
  }
  return '';
}

function mentions(node: YNode, name: string): boolean {
  switch (node.kind) {
    case 'scalar':
      return typeof node.value === 'string' && referencedNames(node.text).includes(name);
    case 'seq':
      return node.items.some((item) => mentions(item, name));
    case 'map':
      return node.entries.some((e) => referencedNames(e.key.text).includes(name) || mentions(e.value, name));
  }
}

function declaredHint(table: ReadonlyMap<string, Declaration>, key: string): string {
  const names = [...table.keys()];
  return names.length
    ? `declared in ${key}: ${names.slice(0, 8).join(', ')}`
    : `declare it under \`${key}:\` at the root of the API`;
}
