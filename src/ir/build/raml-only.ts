/**
 * What a RAML method or resource declares that the service does not serve as declared: the
 * service takes its own query parameters (each field's filters, `_limit`, `q`…), looks items up
 * by their model's key, and checks every body against the model's fields. A new user's RAML said
 * `?size` on a list whose model had no `size` (answered 400), typed an item's `username`
 * parameter as an integer, and gave a PATCH another model's schema: each read by no one, silently.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import { entry, get, type YNode } from '../../load/ynode.js';
import { isJsonMediaType } from '../../../runtime/src/lib/http/patterns.js';
import { QUERY_OPERATORS } from '../../../runtime/src/lib/query-operators.js';
import type { Method, NamedParameter, ParameterDefinition, RamlApi, Resource } from '../../raml/model.js';
import type { ModelDraft } from './models.js';

/** The query parameters every list takes besides its fields' filters (runtime lib/http/query.ts). */
const LIST_PARAMETERS = new Set([
  '_limit',
  '_page',
  '_start',
  '_after',
  '_sort',
  '_fields',
  '_count',
  'q',
  '_search_fields',
]);
/** The text field types: an item of a model keyed by one is named by any text. */
const TEXT_TYPES = new Set(['string', 'unicode', 'text', 'unicode_text']);

/** A change of many (collection PATCH, PUT, DELETE): its filters, and a search. */
const BULK_PARAMETERS = new Set(['q', '_search_fields']);

/** What a route's method takes in its query: the fields' filters, and these; none where `filters` is false. */
function takes(kind: string, action: string): { readonly filters: boolean; readonly named: ReadonlySet<string> } {
  if (kind === 'collection' && action === 'index') return { filters: true, named: LIST_PARAMETERS };
  if (kind === 'collection' && (action === 'update_many' || action === 'delete_many'))
    return { filters: true, named: BULK_PARAMETERS };
  if (action === 'show') return { filters: false, named: new Set(['_fields']) };
  return { filters: false, named: new Set() };
}

/**
 * Query parameters a method declares that the service does not take there (a request with one is
 * answered 400): one that names no field of `model` and no parameter of its own, a filter with an
 * operator the service does not know, or any but `_fields` on an item. Said once per parameter, where
 * it is declared.
 */
export function reportUnservedQueryParameters(
  diagnostics: DiagnosticBag,
  resource: Resource,
  method: Method,
  route: { readonly kind: string; readonly action: string },
  model: ModelDraft | undefined,
): void {
  if (!model || !method.queryParameters) return;
  const fields = new Set(model.fields.map((f) => f.field.name));
  const example = model.fields.find((f) => !f.field.primaryKey)?.field.name ?? 'name';
  const { filters, named } = takes(route.kind, route.action);
  for (const [name, definition] of method.queryParameters) {
    const where = `the query parameter "${name}" of ${method.method} on ${resource.path}`;
    const span = keySpan(method.node, 'queryParameters', name) ?? nodeOf(definition).span;
    if (named.has(name)) {
      reportRulesNotApplied(diagnostics, where, definition, span, name === '_limit' ? 'max_limit in service.ini' : '');
      continue;
    }
    const cut = name.indexOf('__');
    const [field, operator] = cut < 0 ? [name, ''] : [name.slice(0, cut), name.slice(cut + 2)];
    const known = operator === '' || QUERY_OPERATORS.some((op) => op.suffix === operator);
    if (filters && fields.has(field) && known) {
      const draft = model.fields.find((f) => f.field.name === field);
      reportChoicesNotTaken(diagnostics, method, name, definition, draft);
      // A choice field's enum is its choices' (said above where it is not).
      const own = draft?.field.choices?.length ? { ...first(definition), enum: undefined } : definition;
      reportRulesNotApplied(diagnostics, where, own, span, `the schema of ${model.name}.${field}`);
      continue;
    }
    const takesHere = `${method.method} on ${resource.path} takes ${
      filters
        ? `its fields' filters and ${[...named].join(', ')}`
        : named.size
          ? [...named].join(', ')
          : 'no query parameter'
    }`;
    const why =
      !filters || name.startsWith('_')
        ? takesHere
        : !fields.has(field)
          ? `${model.name} has no field ${field}`
          : `__${operator} is no operator the service knows`;
    diagnostics.report(
      'SVC2108',
      `${method.method} on ${resource.path} declares the query parameter "${name}", which the service does not take: ${why}, and a request with it is answered 400`,
      {
        span: keySpan(method.node, 'queryParameters', name) ?? nodeOf(definition).span,
        hint: filters
          ? `query parameters filter by the model's fields (?${example}=…, with ${QUERY_OPERATORS.filter(
              (op) => op.suffix !== '',
            )
              .slice(0, 4)
              .map((op) => `__${op.suffix}`)
              .join(
                ', ',
              )}…)${route.action === 'index' ? ' and page with _limit, _page, _sort…' : ''}: name a field, or leave the parameter out`
          : 'leave it out: a list (GET on the collection) takes the filters',
      },
    );
  }
}

/** The rules a RAML named parameter may state, none of which the service applies to its parameters. */
const PARAMETER_RULES = [
  'required',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'default',
] as const;

/**
 * A named parameter the service takes (a filter, `_limit`, an item's key, a header) whose RAML
 * declaration states rules: the service checks its parameters by its own (the field's schema,
 * service.ini), and these would be read by no one (a probe's `_limit` with `maximum: 5` gave pages
 * of 7, a header `required: true` was never asked for, an `{id}` of `minimum: 10` found item 3).
 * `own`: where the service's own rule for it is set, if anywhere.
 */
export function reportRulesNotApplied(
  diagnostics: DiagnosticBag,
  where: string,
  definition: ParameterDefinition,
  span: Span,
  own: string,
): void {
  const declared = first(definition);
  const rules = PARAMETER_RULES.filter(
    (rule) => declared[rule] !== undefined && !(rule === 'required' && declared.required === false),
  );
  if (!rules.length) return;
  diagnostics.report(
    'SVC2108',
    `${where} declares ${rules.map((r) => `${r}: ${JSON.stringify(declared[r])}`).join(', ')}, which the service does not apply: it checks its parameters by its own rules`,
    {
      span,
      hint: `${own ? `set the rule where the service reads it (${own}), or ` : ''}check it in a before handler of the action (event.view.request); or leave it out of the RAML`,
    },
  );
}

/**
 * A filter whose declared `enum` names values the field's `choices` do not have: a request with one
 * is answered 400 (a re-attacker's `status` listed `archived`, which no status is).
 */
function reportChoicesNotTaken(
  diagnostics: DiagnosticBag,
  method: Method,
  name: string,
  definition: ParameterDefinition,
  draft: ModelDraft['fields'][number] | undefined,
): void {
  const choices = draft?.field.choices;
  const declared = first(definition).enum;
  if (!choices?.length || !declared?.length) return;
  const strange = declared.filter(
    (value) => !choices.some((choice) => JSON.stringify(choice) === JSON.stringify(value) || choice === String(value)),
  );
  if (!strange.length) return;
  diagnostics.report(
    'SVC2108',
    `the query parameter "${name}" of ${method.method} declares ${strange.map((v) => JSON.stringify(v)).join(', ')}, which ${draft!.field.name} never is: a request with ${strange.length > 1 ? 'them' : 'it'} is answered 400`,
    {
      span: keySpan(method.node, 'queryParameters', name) ?? nodeOf(definition).span,
      hint: `${draft!.field.name}'s choices are ${choices.map((c) => JSON.stringify(c)).join(', ')}: declare those, or add the value to its "choices"`,
    },
  );
}

/**
 * An item resource's own parameter typed as a number where its model is keyed by text (or the
 * other way round): items are looked up by their key as the model stores it, whatever RAML says.
 */
export function reportMistypedItemParameter(
  diagnostics: DiagnosticBag,
  resource: Resource,
  param: string,
  model: ModelDraft | undefined,
): void {
  const definition = resource.uriParameters?.get(param);
  const key = model?.fields.find((f) => f.field.primaryKey)?.field;
  if (!definition || !key || !model) return;
  // A URI parameter is required by RAML itself.
  reportRulesNotApplied(
    diagnostics,
    `the URI parameter {${param}} of ${resource.path}`,
    { ...first(definition), required: undefined },
    keySpan(resource.node, 'uriParameters', param) ?? nodeOf(definition).span,
    `the schema of ${model.name}.${key.name}`,
  );
  // Only a type written says anything (RAML's default is no one's claim), and a pattern of digits
  // on a text parameter says the number it is.
  const { type: declared, pattern } = first(definition);
  if (declared === undefined) return;
  const numeric = declared === 'integer' || declared === 'number';
  const textKey = TEXT_TYPES.has(key.type);
  if (numeric !== textKey || (!numeric && pattern !== undefined)) return;
  diagnostics.report(
    'SVC2108',
    `the URI parameter {${param}} of ${resource.path} is declared ${declared}, but ${model.name} is keyed by ${key.name}, ${textKey ? 'a text' : 'a number'}: items are looked up by the key as stored`,
    {
      span: keySpan(resource.node, 'uriParameters', param) ?? nodeOf(definition).span,
      hint: `declare {${param}} as ${textKey ? 'string' : 'integer'} (the type of ${model.name}.${key.name}), or leave its type out`,
    },
  );
}

/**
 * A JSON body schema on a method other than the POST that defines `model` (a PATCH, a PUT) that is
 * not that schema: the service checks every body against the model's fields, and never reads it.
 */
export function reportBodySchemaNotRead(
  diagnostics: DiagnosticBag,
  api: RamlApi,
  resource: Resource,
  method: Method,
  model: ModelDraft | undefined,
): void {
  if (!model || method.method === 'get' || method.method === 'head') return;
  const defining = definingSchema(api, model);
  for (const body of method.body ?? []) {
    const schema = body.schema;
    if (!schema || !isJsonMediaType(body.mediaType) || defining === undefined) continue;
    if (sameSpan(schema.node.span, model.definedAt)) continue;
    if (schema.content.trim() === defining.trim()) continue;
    diagnostics.report(
      'SVC2109',
      `the body schema of ${method.method} on ${resource.path} is not ${model.name}'s: the service checks the body against ${model.name}'s fields (from ${model.schemaFile}), and does not read this schema`,
      {
        span: schema.node.span,
        hint: `include ${model.schemaFile} here, or leave the schema out (a model's fields come from the schema of the POST that defines it)`,
      },
    );
  }
}

/** The text of the schema that defines `model` (its POST body's), found by where it is written. */
function definingSchema(api: RamlApi, model: ModelDraft): string | undefined {
  const search = (resources: readonly Resource[]): string | undefined => {
    for (const resource of resources) {
      for (const method of resource.methods)
        for (const body of method.body ?? []) {
          const schema = body.schema;
          if (schema && sameSpan(schema.node.span, model.definedAt)) return schema.content;
        }
      const found = search(resource.resources);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return search(api.resources);
}

function sameSpan(a: Span, b: Span): boolean {
  return a.source === b.source && a.start === b.start;
}

/** A parameter's definition (the first, where it has several types). */
function first(definition: ParameterDefinition): NamedParameter {
  return 'node' in definition ? definition : definition[0]!;
}

function nodeOf(definition: ParameterDefinition) {
  return first(definition).node;
}

/** Where `name` is declared under `parameters` of `node` (a method's or a resource's), where it is written there. */
function keySpan(node: YNode, parameters: string, name: string): Span | undefined {
  const declared = node.kind === 'map' ? get(node, parameters) : undefined;
  return declared?.kind === 'map' ? entry(declared, name)?.key.span : undefined;
}

/** The headers a method declares with rules (`required: true`, a pattern): the service checks none. */
export function reportHeaderRules(diagnostics: DiagnosticBag, resource: Resource, method: Method): void {
  for (const [name, definition] of method.headers ?? [])
    reportRulesNotApplied(
      diagnostics,
      `the header "${name}" of ${method.method} on ${resource.path}`,
      definition,
      keySpan(method.node, 'headers', name) ?? nodeOf(definition).span,
      '',
    );
}
