/**
 * The JSON Schema keywords of a property that the generated service checks values against
 * (`pattern`, `minLength`, `items`, …), as read from the schema: a `$ref` is followed when it
 * points into the same schema (`#/definitions/name`) and reported otherwise, never dropped
 * silently; a `pattern` that is not a regular expression or could take exponential time is an
 * error (lib/http/app.ts bounds the text any pattern sees, too).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { isMap, isScalar, isSeq, toPlain, type YMap, type YNode } from '../../load/ynode.js';
import type { Literal } from '../types.js';
import { patternProblem } from './pattern-safety.js';

/** JSON Schema keywords of a property that the service checks values against (beside `_db_settings`). */
export const VALIDATION_KEYWORDS: ReadonlySet<string> = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'items',
  'minProperties',
  'maxProperties',
  // A dict's shape (its keys' schemas, those it must have, what other keys it takes).
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
]);

/** Keywords whose value is a schema, or a map or list of schemas: every keyword in them is validation. */
const SUBSCHEMA_KEYWORDS = new Set([
  'items',
  'properties',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
]);

export interface ValidationContext {
  readonly diagnostics: DiagnosticBag;
  /** The property, for messages: `Post.title`. */
  readonly where: string;
  /** The schema's root, where local `$ref`s point. */
  readonly root: YMap | undefined;
}

/** The validation keywords of a property (a map), with local `$ref`s followed. */
export function validationKeywords(ctx: ValidationContext, property: YMap): Record<string, Literal> {
  const out: Record<string, Literal> = {};
  for (const schema of [...referenced(ctx, property), property]) {
    for (const e of schema.entries) {
      if (!VALIDATION_KEYWORDS.has(e.key.text)) continue;
      // Draft 3's `"required": true` on the property is the field's own (fields.ts), not a dict's keys.
      if (e.key.text === 'required' && !isSeq(e.value)) continue;
      if (e.key.text === 'pattern') checkPattern(ctx, e.value);
      out[e.key.text] = SUBSCHEMA_KEYWORDS.has(e.key.text)
        ? items({ ...ctx, where: `${ctx.where} ${e.key.text}` }, e.value)
        : (toPlain(e.value) as Literal);
    }
  }
  return out;
}

/**
 * A subschema (`items`, a dict's `properties`…) as the validator gets it: every keyword (a
 * subschema is all validation), with each `$ref` in it followed or reported and each `pattern`
 * checked, however deep.
 */
function items(ctx: ValidationContext, node: YNode): Literal {
  if (isSeq(node)) return node.items.map((item) => items(ctx, item));
  if (!isMap(node)) return toPlain(node) as Literal;
  const out: Record<string, Literal> = {};
  for (const schema of [...referenced(ctx, node), node]) {
    for (const e of schema.entries) {
      if (e.key.text === '$ref') continue;
      if (e.key.text === 'pattern') checkPattern(ctx, e.value);
      out[e.key.text] = items(ctx, e.value);
    }
  }
  return out;
}

/** The schema a property's `$ref` names, when it is local and plain; reported otherwise. */
function referenced(ctx: ValidationContext, property: YMap): YMap[] {
  const ref = property.entries.find((e) => e.key.text === '$ref');
  if (!ref) return [];
  const target =
    isScalar(ref.value) && typeof ref.value.value === 'string' ? resolve(ctx.root, ref.value.value) : undefined;
  if (target && !target.entries.some((e) => e.key.text === '$ref')) return [target];
  ctx.diagnostics.report(
    'SVC2029',
    `${ctx.where}: svcgen cannot follow "$ref" ${isScalar(ref.value) ? JSON.stringify(ref.value.text) : ''}, so the constraints of the schema it names are not checked`,
    {
      span: ref.value.span,
      hint: 'write the constraints on the property itself, or point $ref at "#/definitions/<name>" in the same file (no further $ref there)',
    },
  );
  return [];
}

/** A JSON pointer into the same document (`#/definitions/name`). */
function resolve(root: YMap | undefined, ref: string): YMap | undefined {
  if (!root || !ref.startsWith('#/')) return undefined;
  let node: YNode | undefined = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isMap(node) ? node.entries.find((e) => e.key.text === key)?.value : undefined;
  }
  return isMap(node) ? node : undefined;
}

function checkPattern(ctx: ValidationContext, node: YNode): void {
  if (!isScalar(node) || typeof node.value !== 'string') {
    ctx.diagnostics.report('SVC2028', `${ctx.where}: "pattern" must be a regular expression in a string`, {
      span: node.span,
    });
    return;
  }
  const problem = patternProblem(node.value);
  if (!problem) return;
  ctx.diagnostics.report('SVC2028', `${ctx.where}: the pattern ${JSON.stringify(node.value)} ${problem.message}`, {
    span: node.span,
    hint: problem.slow
      ? 'one client could keep the server busy for minutes with one string: make each repeated part unambiguous, e.g. ^[a-z]+(-[a-z]+)*$ instead of ^([a-z]+-?)+$'
      : 'write it as a JavaScript regular expression (the service checks values with the u flag)',
  });
}
