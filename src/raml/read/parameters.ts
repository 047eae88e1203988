/**
 * RAML 0.8 §Named Parameters: `uriParameters`, `baseUriParameters`, `queryParameters`,
 * `formParameters` and `headers` all share this shape.
 */
import { isMap, isNull, isScalar, isSeq, toPlain, type YEntry, type YMap, type YNode } from '../../load/ynode.js';
import type { NamedParameter, NamedParameters, ParameterDefinition } from '../model.js';
import { requiredKey } from '../merge.js';
import {
  booleanValue,
  describe,
  entrySpan,
  hasParameters,
  mapValue,
  numberValue,
  readEntries,
  report,
  stringValue,
  type ReadContext,
} from './context.js';
import { checkFacets } from './parameter-facets.js';
import type { Building } from '../../util/mutable.js';

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'date', 'boolean', 'file'] as const;

export function readNamedParameters(ctx: ReadContext, e: YEntry): NamedParameters | undefined {
  const map = mapValue(ctx, e, 'a mapping of parameter names to definitions');
  if (!map) return undefined;
  const out = new Map<string, ParameterDefinition>();
  const inForm = requiredKey(e.key.text) === 'formParameters';
  for (const p of map.entries) {
    const name = ctx.template ? requiredKey(p.key.text) : p.key.text;
    const definition = readDefinition(ctx, name, p, inForm);
    if (definition) out.set(name, definition);
  }
  return out;
}

function readDefinition(ctx: ReadContext, name: string, e: YEntry, inForm: boolean): ParameterDefinition | undefined {
  const node = e.value;
  if (isSeq(node)) {
    // "Named parameters with multiple types": a list of alternative definitions, at least one.
    if (node.items.length === 0) {
      report(ctx, 'SVC1103', `parameter "${name}" is an empty list of types`, {
        span: entrySpan(e),
        hint: `leave the value empty (\`${name}:\`) for a string parameter, or list one definition per type: \`${name}: [{type: string}, {type: integer}]\``,
      });
      return undefined;
    }
    const alternatives: NamedParameter[] = [];
    for (const item of node.items) {
      if (!isMap(item)) {
        report(ctx, 'SVC1103', `each definition of parameter "${name}" must be a mapping, not ${describe(item)}`, {
          span: item.span,
        });
        continue;
      }
      alternatives.push(readParameter(ctx, name, item, inForm));
    }
    return alternatives;
  }
  if (isMap(node)) return readParameter(ctx, name, node, inForm);
  if (isNull(node) || ctx.template) return { name, node };
  report(ctx, 'SVC1103', `parameter "${name}" must be a mapping of its properties, not ${describe(node)}`, {
    span: entrySpan(e),
  });
  return undefined;
}

function readParameter(ctx: ReadContext, name: string, map: YMap, inForm: boolean): NamedParameter {
  const p: Building<NamedParameter> = { name, node: map };
  const extras = new Map<string, unknown>();
  readEntries(
    ctx,
    map,
    `parameter "${name}"`,
    {
      displayName: (e) => (p.displayName = stringValue(ctx, e)),
      description: (e) => (p.description = stringValue(ctx, e)),
      type: (e) => (p.type = readType(ctx, e)),
      enum: (e) => (p.enum = readEnum(ctx, e)),
      pattern: (e) => (p.pattern = readPattern(ctx, e)),
      minLength: (e) => (p.minLength = numberValue(ctx, e)),
      maxLength: (e) => (p.maxLength = numberValue(ctx, e)),
      minimum: (e) => (p.minimum = numberValue(ctx, e)),
      maximum: (e) => (p.maximum = numberValue(ctx, e)),
      example: (e) => (p.example = toPlain(e.value)),
      repeat: (e) => (p.repeat = booleanValue(ctx, e)),
      required: (e) => (p.required = booleanValue(ctx, e)),
      default: (e) => (p.default = toPlain(e.value)),
    },
    extras,
  );
  if (extras.size) p.extras = extras;
  checkFacets(ctx, name, map, inForm);
  if (isTextType(p.type)) textValues(p, map);
  const parameter = p as NamedParameter;
  if (!ctx.template) checkValues(ctx, parameter, map);
  return parameter;
}

/** Parameters of a text type read `example`, `default` and `enum` values as written: `0` is "0". */
function isTextType(type: string | undefined): boolean {
  return type === undefined || type === 'string' || type === 'date' || type === 'file';
}

function textValues(p: Building<NamedParameter>, map: YMap): void {
  const asText = (node: YNode) => (isScalar(node) && node.value !== null ? node.text : toPlain(node));
  for (const e of map.entries) {
    if (e.key.text === 'example') p.example = asText(e.value);
    else if (e.key.text === 'default') p.default = asText(e.value);
    else if (e.key.text === 'enum' && p.enum && isSeq(e.value))
      p.enum = e.value.items.filter(isScalar).map((item) => (item.value === null ? null : item.text));
  }
}

function readType(ctx: ReadContext, e: YEntry): string | undefined {
  const type = stringValue(ctx, e);
  if (type === undefined || (PARAMETER_TYPES as readonly string[]).includes(type) || ctx.template) return type;
  report(ctx, 'SVC1105', `unknown parameter type "${type}"`, {
    span: e.value.span,
    hint: `use one of ${PARAMETER_TYPES.join(', ')}`,
  });
  return undefined;
}

function readEnum(ctx: ReadContext, e: YEntry): readonly (string | number | boolean | null)[] | undefined {
  // `enum:` with no value lists nothing, so it restricts nothing: both reference parsers accept it.
  if (isNull(e.value)) return undefined;
  if (!isSeq(e.value)) {
    report(ctx, 'SVC1103', `"enum" must be a list of values, not ${describe(e.value)}`, { span: entrySpan(e) });
    return undefined;
  }
  if (e.value.items.length === 0) {
    report(ctx, 'SVC1105', '"enum" must list at least one value', {
      span: entrySpan(e),
      hint: 'list the allowed values, or remove `enum` to allow any value',
    });
    return undefined;
  }
  const values: (string | number | boolean | null)[] = [];
  const seen = new Set<string>();
  for (const item of e.value.items) {
    if (!isScalar(item)) {
      report(ctx, 'SVC1103', `enum values must be scalars, not ${describe(item)}`, { span: item.span });
      continue;
    }
    // Parameter values arrive as text, so `1` and `"1"` are the same value.
    if (seen.has(item.text) && !(ctx.template && hasParameters(item.text))) {
      report(ctx, 'SVC1105', `enum value "${item.text}" is listed twice`, {
        span: item.span,
        hint: 'remove the repeated value',
      });
    }
    seen.add(item.text);
    values.push(item.value);
  }
  return values;
}

function readPattern(ctx: ReadContext, e: YEntry): string | undefined {
  const pattern = stringValue(ctx, e);
  if (pattern === undefined || ctx.template) return pattern;
  try {
    new RegExp(pattern, 'u');
  } catch {
    try {
      new RegExp(pattern);
    } catch (error) {
      report(ctx, 'SVC1105', `"pattern" is not a valid regular expression: ${(error as Error).message}`, {
        span: e.value.span,
      });
    }
  }
  return pattern;
}

/** `default` must fit the parameter type (an error, as in raml-1-parser); `example` should (a warning). */
function checkValues(ctx: ReadContext, p: NamedParameter, map: YMap): void {
  const type = p.type ?? 'string';
  for (const key of ['default', 'example'] as const) {
    const entry = map.entries.find((x) => x.key.text === key);
    if (!entry || !isScalar(entry.value) || entry.value.value === null) continue;
    const problem = typeProblem(type, entry.value.value);
    if (!problem) continue;
    const message = `${key} ${JSON.stringify(entry.value.value)} of parameter "${p.name}" ${problem}`;
    if (key === 'default')
      report(ctx, 'SVC1105', message, { span: entry.key.span, hint: `the parameter has type ${type}` });
    else report(ctx, 'SVC1114', message, { span: entry.value.span, hint: `the parameter has type ${type}` });
  }
}

function typeProblem(type: string, value: string | number | boolean): string | undefined {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? undefined : 'is not an integer';
    case 'number':
      return typeof value === 'number' ? undefined : 'is not a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'is not true or false';
    default:
      return undefined;
  }
}
