/**
 * The JSON Schema keywords of a property that the generated service checks values against
 * (`pattern`, `minLength`, `items`, …), as read from the schema: a `$ref` is followed when it
 * points into the same schema (`#/definitions/name`) and reported otherwise, never dropped
 * silently; a `pattern` that is not a regular expression or could take exponential time is an
 * error (lib/http/app.ts bounds the text any pattern sees, too); a value the validator would not
 * take is an error, and a format it does not know a warning (keyword-values.ts).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { isMap, isScalar, isSeq, toPlain, type YEntry, type YMap, type YNode } from '../../load/ynode.js';
import type { Span } from '../../diagnostics/source.js';
import { closest } from '../../util/suggest.js';
import {
  CHECKED_FORMATS,
  COMBINING_KEYWORDS,
  isValidatorKeyword,
  nearKeyword,
  valueProblem,
} from './keyword-values.js';
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

export interface ValidationContext {
  readonly diagnostics: DiagnosticBag;
  /** The property, for messages: `Post.title`. */
  readonly where: string;
  /** The schema's root, where local `$ref`s point. */
  readonly root: YMap | undefined;
}

/**
 * The validation keywords of a property (a map), with local `$ref`s followed, each value of the
 * kind the validator takes (keyword-values.ts): another is an error, and is left out.
 */
export function validationKeywords(ctx: ValidationContext, property: YMap): Record<string, Literal> {
  const out: Record<string, Literal> = {};
  const spans = new Map<string, Span>();
  for (const schema of [...referenced(ctx, property), property]) {
    for (const e of schema.entries) {
      const key = e.key.text;
      if (COMBINING_KEYWORDS.has(key)) notApplied(ctx, e.key.span, key);
      if (!VALIDATION_KEYWORDS.has(key)) continue;
      // Draft 3's `"required": true` on the property is the field's own (fields.ts), not a dict's keys.
      if (key === 'required' && !isSeq(e.value)) continue;
      keep(ctx, out, spans, e);
    }
  }
  return withDraft4Bounds(ctx, out, spans);
}

/**
 * A subschema (`items`, a dict's `properties`…) as the validator gets it: every keyword it knows,
 * each value checked, each `$ref` in it followed or reported and each `pattern` checked, however
 * deep. A key it does not know is a note (JSON Schema reads one so) and is left out: the
 * validator, strict, would stop at it; one that is nearly a keyword is an error (SVC2087).
 */
function subschema(ctx: ValidationContext, node: YNode): Literal {
  if (!isMap(node)) return toPlain(node) as Literal;
  const out: Record<string, Literal> = {};
  const spans = new Map<string, Span>();
  for (const schema of [...referenced(ctx, node), node]) {
    for (const e of schema.entries) {
      const key = e.key.text;
      if (key === '$ref') continue;
      if (isValidatorKeyword(key)) keep(ctx, out, spans, e);
      else if (!/^(_|\$|x-)/.test(key)) misspelt(ctx, e.key.span, key);
    }
  }
  return withDraft4Bounds(ctx, out, spans);
}

/** Puts the keyword of `entry` in `out`, its value checked (and its subschemas read), unless it is of the wrong kind. */
function keep(ctx: ValidationContext, out: Record<string, Literal>, spans: Map<string, Span>, entry: YEntry): void {
  const key = entry.key.text;
  const node = entry.value;
  if (key === 'pattern') checkPattern(ctx, node);
  const problem = key === 'pattern' ? undefined : valueProblem(key, toPlain(node));
  if (problem) {
    ctx.diagnostics.report('SVC2119', `${ctx.where}: ${problem}`, { span: node.span, hint: HINTS[key] });
    return;
  }
  if (key === 'format' && !CHECKED_FORMATS.has(toPlain(node) as string)) {
    unknownFormat(ctx, node);
    return;
  }
  if (key === 'patternProperties' && isMap(node)) for (const p of node.entries) checkPattern(ctx, p.key);
  // Where a subschema is, for messages: `Post.meta.properties.mood`, `Post.tags.items`.
  const inner = (at: string) => ({ ...ctx, where: `${ctx.where}.${at}` });
  out[key] = SCHEMA_VALUED.has(key)
    ? isSeq(node)
      ? node.items.map((item, i) => subschema(inner(`${key}[${i}]`), item))
      : subschema(inner(key), node)
    : SCHEMA_MAPS.has(key) && isMap(node)
      ? Object.fromEntries(
          node.entries.map((p) => [
            p.key.text,
            isSeq(p.value) ? (toPlain(p.value) as Literal) : subschema(inner(`${key}.${p.key.text}`), p.value),
          ]),
        )
      : (toPlain(node) as Literal);
  spans.set(key, node.span);
}

/** Keywords whose value is a schema or a list of schemas: the combining ones (but `dependencies`, a map) and these. */
const SCHEMA_VALUED: ReadonlySet<string> = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'propertyNames',
  ...[...COMBINING_KEYWORDS].filter((key) => key !== 'dependencies'),
]);
/** Keywords whose value maps names to schemas (`dependencies`: or to lists of names). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependencies']);

const HINTS: Readonly<Record<string, string>> = {
  maxLength: 'write the number without quotes: "maxLength": 10',
  minLength: 'write the number without quotes: "minLength": 1',
  minimum: 'write the number without quotes: "minimum": 0',
  maximum: 'write the number without quotes: "maximum": 100',
  enum: 'list the values the property may take: "enum": ["a", "b"]',
};

/**
 * Draft 4 wrote an exclusive bound as `"minimum": 0, "exclusiveMinimum": true`; the validator takes
 * the drafts since, `"exclusiveMinimum": 0`. `false` says nothing; `true` without its bound is an error.
 */
function withDraft4Bounds(
  ctx: ValidationContext,
  out: Record<string, Literal>,
  spans: ReadonlyMap<string, Span>,
): Record<string, Literal> {
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const flag = out[exclusive];
    if (typeof flag !== 'boolean') continue;
    delete out[exclusive];
    if (!flag) continue;
    const value = out[bound];
    if (typeof value === 'number') {
      out[exclusive] = value;
      delete out[bound];
      continue;
    }
    ctx.diagnostics.report(
      'SVC2119',
      `${ctx.where}: "${exclusive}": true makes "${bound}" exclusive, and there is none`,
      {
        span: spans.get(exclusive)!,
        hint: `write the bound itself: "${exclusive}": 0 (JSON Schema since draft 6), or add "${bound}" beside it (draft 4)`,
      },
    );
  }
  return out;
}

/** A combining keyword on a property: no rule the service applies (SVC2120). */
function notApplied(ctx: ValidationContext, span: Span, key: string): void {
  ctx.diagnostics.report(
    'SVC2120',
    `${ctx.where}: svcgen does not apply "${key}" to a property, so it checks nothing here`,
    {
      span,
      hint: "write the property's own keywords (type, minimum, pattern, enum…) on it; a rule across fields belongs in a before handler (`_event_handlers`)",
    },
  );
}

function unknownFormat(ctx: ValidationContext, node: YNode): void {
  const format = String(toPlain(node));
  const near = closest(format, [...CHECKED_FORMATS]);
  ctx.diagnostics.report(
    'SVC2120',
    `${ctx.where}: the service checks no format "${format}", so it takes any string here`,
    {
      span: node.span,
      hint: near
        ? `did you mean \`${near}\`?`
        : `the formats checked are ${[...CHECKED_FORMATS].join(', ')}; for another shape, write a "pattern"`,
    },
  );
}

function misspelt(ctx: ValidationContext, span: Span, key: string): void {
  const meant = nearKeyword(key);
  if (!meant) return;
  ctx.diagnostics.report('SVC2087', `${ctx.where}: "${key}" is no JSON Schema keyword, so it says nothing here`, {
    span,
    hint: `did you mean \`${meant}\`?`,
  });
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
