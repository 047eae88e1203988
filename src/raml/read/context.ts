/**
 * Shared helpers of the reader: shape checks, scalar conversions and unknown-key reporting,
 * each reporting a located diagnostic and returning `undefined` when the value is unusable.
 */
import type { DiagnosticCode } from '../../diagnostics/codes.js';
import type { DiagnosticBag, DiagnosticInit } from '../../diagnostics/diagnostic.js';
import { span, type Span } from '../../diagnostics/source.js';
import {
  isAlreadyReported,
  isMap,
  isNull,
  isScalar,
  isSeq,
  toPlain,
  type YEntry,
  type YMap,
  type YNode,
  type YScalar,
} from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';
import { isOptionalKey, requiredKey } from '../merge.js';
import type { SchemaDeclaration } from '../model.js';

export interface ReadContext {
  readonly diagnostics: DiagnosticBag;
  /** Reading a resource type or trait declaration: `<<params>>` and `key?` are allowed. */
  readonly template: boolean;
  readonly schemas: ReadonlyMap<string, SchemaDeclaration>;
  readonly securitySchemes: ReadonlySet<string>;
}

export function report(ctx: ReadContext, code: DiagnosticCode, message: string, init: DiagnosticInit): void {
  ctx.diagnostics.report(code, message, init);
}

/** From the start of the key to the end of the value: where "this property is wrong" points. */
export function entrySpan(e: YEntry): Span {
  return span(
    e.key.span.source,
    e.key.span.start,
    e.value.span.source === e.key.span.source ? Math.max(e.key.span.end, e.value.span.end) : e.key.span.end,
  );
}

export function hasParameters(text: string): boolean {
  return text.includes('<<');
}

/** A template value that is (or contains) a `<<parameter>>`: kept as written, not checked. */
export function isParameterized(ctx: ReadContext, node: YNode): boolean {
  return ctx.template && isScalar(node) && typeof node.value === 'string' && hasParameters(node.text);
}

const PATH_LIKE = /^[\w.~-]*(?:\/[\w.~-]+)*\.(?:raml|ya?ml|json|xsd|xml|md|txt)$/i;

/** A string that looks like a file path: probably a forgotten `!include`. */
export function looksLikePath(node: YNode): boolean {
  return isScalar(node) && node.style !== 'include' && typeof node.value === 'string' && PATH_LIKE.test(node.text);
}

/**
 * The mapping at `e` (a null value is an empty mapping), or undefined after reporting the wrong
 * shape. A string that looks like a file name is reported as a missing `!include`.
 */
export function mapValue(ctx: ReadContext, e: YEntry, what: string): YMap | undefined {
  const node = e.value;
  if (isAlreadyReported(node)) return undefined;
  if (isMap(node)) return node;
  if (isNull(node)) return { kind: 'map', entries: [], span: node.span };
  if (looksLikePath(node)) {
    report(
      ctx,
      'SVC1016',
      `"${e.key.text}" must be ${what}; "${(node as YScalar).text}" looks like a file name without !include`,
      {
        span: entrySpan(e),
        hint: `write \`${e.key.text}: !include ${(node as YScalar).text}\``,
      },
    );
    return undefined;
  }
  report(ctx, 'SVC1103', `"${e.key.text}" must be ${what}, not ${describe(node)}`, { span: entrySpan(e) });
  return undefined;
}

export function describe(node: YNode): string {
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (node.value === null) return 'empty';
  return typeof node.value === 'string' ? 'a string' : `the ${typeof node.value} ${node.text}`;
}

/** Text of a scalar property; null means absent. Numbers and booleans are read as written. */
export function stringValue(ctx: ReadContext, e: YEntry): string | undefined {
  const node = e.value;
  if (isScalar(node)) return node.value === null ? undefined : node.text;
  report(ctx, 'SVC1103', `"${e.key.text}" must be a string, not ${describe(node)}`, { span: entrySpan(e) });
  return undefined;
}

/**
 * Text of a property that needs a value: `key:` with nothing after it is null in YAML, which
 * RAML 0.8 does not accept for it (the reference parsers say "value is not provided").
 */
export function requiredStringValue(ctx: ReadContext, e: YEntry, hint: string): string | undefined {
  if (isNull(e.value) && !isAlreadyReported(e.value)) {
    report(ctx, 'SVC1121', `"${e.key.text}" has no value`, { span: entrySpan(e), hint });
    return undefined;
  }
  return stringValue(ctx, e);
}

/**
 * A boolean; quoted `"true"` and `"false"` too: RAML 0.8 §required says the value "must be
 * either 'true' … or 'false'", and both reference parsers read the quoted forms so.
 */
export function booleanValue(ctx: ReadContext, e: YEntry): boolean | undefined {
  const node = e.value;
  if (isScalar(node) && typeof node.value === 'boolean') return node.value;
  if (isScalar(node) && node.style === 'quoted' && (node.text === 'true' || node.text === 'false'))
    return node.text === 'true';
  if (isScalar(node) && node.value === null) return undefined;
  report(ctx, 'SVC1105', `"${e.key.text}" must be true or false, not ${describe(node)}`, { span: entrySpan(e) });
  return undefined;
}

/** A number; a quoted number (`"5"`) too, as both reference parsers read it. */
export function numberValue(ctx: ReadContext, e: YEntry): number | undefined {
  const node = e.value;
  if (isScalar(node) && typeof node.value === 'number' && Number.isFinite(node.value)) return node.value;
  if (isScalar(node) && node.style === 'quoted' && /^-?\d+(\.\d+)?$/.test(node.text)) return Number(node.text);
  if (isScalar(node) && node.value === null) return undefined;
  // `.inf`, `.nan`: numbers to YAML, none a bound can be ("must be a number, not the number .inf").
  const infinite = isScalar(node) && typeof node.value === 'number';
  report(
    ctx,
    'SVC1105',
    `"${e.key.text}" must be ${infinite ? 'a finite number' : 'a number'}, not ${describe(node)}`,
    { span: entrySpan(e) },
  );
  return undefined;
}

/**
 * Visits the entries of a mapping, dispatching known keys to `handlers` and reporting the rest.
 * In templates, `<<param>>` keys and values that are parameters are kept as extras, and optional
 * `key?` forms of non-scalar properties are accepted.
 */
export function readEntries(
  ctx: ReadContext,
  map: YMap,
  where: string,
  handlers: Readonly<Record<string, (e: YEntry) => void>>,
  extras?: Map<string, unknown>,
): void {
  for (const e of map.entries) {
    if (isAlreadyReported(e.value)) continue; // its include error says it all
    const key = e.key.text;
    const name = ctx.template && isOptionalKey(key) ? requiredKey(key) : key;
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    if (handler && ctx.template && isOptionalKey(key) && isScalarProperty(name)) {
      reportOptionalScalar(ctx, e);
      continue;
    }
    if (
      ctx.template &&
      extras &&
      (hasParameters(key) || (handler && isParameterized(ctx, e.value) && !SCALAR_PROPERTIES.has(name)))
    ) {
      extras.set(name, toPlain(e.value));
      continue;
    }
    if (handler) {
      handler(e);
      continue;
    }
    const belongs = PLACE_OF[key];
    report(
      ctx,
      'SVC1102',
      belongs ? `"${key}" cannot appear in ${where}: ${belongs}` : `unknown property "${key}" in ${where}`,
      {
        span: e.key.span,
        hint:
          outOfLevel(key) ??
          didYouMean(key, Object.keys(handlers)) ??
          `allowed here: ${Object.keys(handlers).join(', ')}`,
      },
    );
  }
}

const METHODS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace']);

/**
 * A method or a resource where neither can be: most often one indented a level too far (`post:`
 * under `get:`), which a new user was told only what the method allows.
 */
function outOfLevel(key: string): string | undefined {
  if (METHODS.has(key))
    return `indented too far? "${key}" is a method of a resource: write it at the column of the resource's other methods`;
  if (key.startsWith('/'))
    return `indented too far? "${key}" is a resource: write it at the column of its parent's methods, or of the resources at its level`;
  return undefined;
}

const AT_ROOT = 'it is a property of the API root';

/** Where a RAML 0.8 property belongs, for one that is written at a place that does not allow it. */
const PLACE_OF: Readonly<Record<string, string>> = {
  usage:
    'only resource types and traits have a usage; "neither resources nor methods allow a property named usage" (RAML 0.8 §Usage)',
  type: 'only resources and resource types have a type',
  is: 'only resources, methods, resource types and traits apply traits with "is"',
  uriParameters: 'URI parameters are declared on the resource whose URI has them',
  displayName: 'only resources, resource types, traits and named parameters have a displayName',
  title: AT_ROOT,
  version: AT_ROOT,
  baseUri: AT_ROOT,
  mediaType: AT_ROOT,
  schemas: AT_ROOT,
  documentation: AT_ROOT,
  traits: AT_ROOT,
  resourceTypes: AT_ROOT,
  securitySchemes: AT_ROOT,
  body: "a body is a method's (or a response's): indent it under post:, put: or patch:",
  responses: "responses are a method's: indent them under the method (get:, post:, …)",
  queryParameters: "query parameters are a method's: indent them under the method (get:, …)",
};

/** `traits`, `resourceTypes` and `securitySchemes`: a list of {name: definition} (or empty). */
export function checkDeclarationList(ctx: ReadContext, e: YEntry): void {
  if (isSeq(e.value)) {
    for (const item of e.value.items) {
      if (item.kind !== 'map' && !isAlreadyReported(item))
        report(
          ctx,
          'SVC1103',
          `each item of "${e.key.text}" must be a mapping {name: definition}, not ${describe(item)}`,
          { span: item.span },
        );
    }
    return;
  }
  if (e.value.kind === 'scalar' && e.value.value === null) return;
  reportNotAList(ctx, e, '{name: definition}');
}

/**
 * A declaration list written as a mapping is reported at its first name, which is the line to
 * change (`- name:`); any other value at the property.
 */
export function reportNotAList(ctx: ReadContext, e: YEntry, item: string): void {
  const first = isMap(e.value) ? e.value.entries[0] : undefined;
  report(ctx, 'SVC1103', `"${e.key.text}" must be a list of ${item}, not ${describe(e.value)}`, {
    span: first ? first.key.span : entrySpan(e),
    hint: first ? `make each declaration an item of the list: \`- ${first.key.text}:\`` : undefined,
  });
}

/**
 * Properties whose value is one scalar. RAML 0.8 §Optional Properties: "using the optional
 * marker ("?") in a scalar property such as usage or displayName MUST be rejected".
 */
const SCALAR_VALUED: ReadonlySet<string> = new Set([
  'description',
  'displayName',
  'usage',
  'example',
  'schema',
  'title',
  'content',
  'type',
  'default',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'required',
  'repeat',
]);

export function isScalarProperty(name: string): boolean {
  return SCALAR_VALUED.has(name);
}

/** The message of SVC1112, shared with the expander (which checks inline templates as it applies them). */
export function reportOptionalScalar(ctx: Pick<ReadContext, 'diagnostics'>, e: YEntry): void {
  ctx.diagnostics.report('SVC1112', `"${e.key.text}" is a scalar property and cannot be optional`, {
    span: e.key.span,
    hint: `write "${requiredKey(e.key.text)}" without "?"`,
  });
}

/** Properties whose parameterized value is just text (so it stays on the object, substituted later). */
const SCALAR_PROPERTIES: ReadonlySet<string> = new Set([
  'description',
  'displayName',
  'usage',
  'example',
  'schema',
  'title',
  'content',
]);

export function plainOrUndefined(node: YNode): unknown {
  return isNull(node) ? undefined : toPlain(node);
}
