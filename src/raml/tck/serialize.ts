/**
 * The RAML 0.8 TCK's JSON shape (raml-1-parser's `toJSON` of the expanded API, with attribute
 * defaults). This is a compatibility printer for conformance testing: it reproduces
 * raml-1-parser's conventions, including its quirks, which are marked "r1 quirk".
 */
import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import { positionAt } from '../../diagnostics/source.js';
import { get, isMap, isNull, toPlain, type YMap, type YNode } from '../../load/ynode.js';
import type {
  Body,
  Extras,
  Method,
  NamedParameter,
  NamedParameters,
  ParameterDefinition,
  RamlApi,
  Resource,
  Response,
  SecurityReference,
  SecurityScheme,
} from '../model.js';
import { uriParameterNames } from '../read/resource.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface TckDocument {
  ramlVersion: 'RAML08';
  type: 'Api';
  specification: JsonObject;
  errors: TckError[];
}

export interface TckError {
  code: string;
  message: string;
  path: string;
  range: { start: TckPosition; end: TckPosition };
  isWarning?: boolean;
}

interface TckPosition {
  line: number;
  column: number;
  position: number;
}

export function toTckDocument(
  api: RamlApi | undefined,
  diagnostics: readonly Diagnostic[],
  rootDir: string,
): TckDocument {
  return {
    ramlVersion: 'RAML08',
    type: 'Api',
    specification: api ? new TckPrinter(api).api() : {},
    // r1 reports a repeat at both places: the related location (the first) is an error too.
    errors: diagnostics.flatMap((d) =>
      d.related
        ? [
            tckError(d, rootDir),
            tckError({ ...d, span: d.related.span, message: `${d.message} (${d.related.message})` }, rootDir),
          ]
        : [tckError(d, rootDir)],
    ),
  };
}

function tckError(d: Diagnostic, rootDir: string): TckError {
  const source = d.span?.source;
  const start = source ? positionAt(source, d.span.start) : { line: 1, column: 1 };
  const end = source ? positionAt(source, d.span.end) : start;
  const error: TckError = {
    code: d.code,
    message: d.message,
    path: source ? relativePath(rootDir, source.path) : '',
    range: {
      start: { line: start.line - 1, column: start.column - 1, position: d.span?.start ?? 0 },
      end: { line: end.line - 1, column: end.column - 1, position: d.span?.end ?? 0 },
    },
  };
  if (d.severity === 'warning') error.isWarning = true;
  return error;
}

function relativePath(rootDir: string, path: string): string {
  return path.startsWith(rootDir + '/') ? path.slice(rootDir.length + 1) : path;
}

class TckPrinter {
  /** r1 quirk: methods get the protocol of the baseUri scheme, not the root `protocols`. */
  readonly methodProtocols: string[] | undefined;

  constructor(readonly raml: RamlApi) {
    // A baseUri without a scheme (`example.com/api`, `{host}/api`) is read as HTTP.
    const scheme = /^(https?):\/\//i.exec(raml.baseUri ?? '')?.[1] ?? 'HTTP';
    this.methodProtocols = raml.baseUri !== undefined ? [scheme.toUpperCase()] : undefined;
  }

  api(): JsonObject {
    const a = this.raml;
    const out: JsonObject = {};
    set(out, 'title', a.title);
    set(out, 'version', a.version ?? writtenNull(a.node, 'version'));
    set(out, 'baseUri', a.baseUri ?? writtenNull(a.node, 'baseUri'));
    if (a.baseUri !== undefined) set(out, 'baseUriParameters', this.baseUriParameters(a.baseUri, a.baseUriParameters));
    set(out, 'protocols', a.protocols ? [...a.protocols] : this.methodProtocols);
    set(out, 'mediaType', a.mediaType);
    if (a.schemas.length) out['schemas'] = a.schemas.map((s) => ({ [s.name]: s.content }));
    if (a.documentation)
      out['documentation'] = a.documentation.map((d) => compact({ title: d.title, content: d.content }));
    if (a.traits.length) out['traits'] = a.traits.map((t) => ({ [t.name]: { ...this.trait(t.trait), name: t.name } }));
    if (a.resourceTypes.length)
      out['resourceTypes'] = a.resourceTypes.map((t) => ({ [t.name]: this.resourceType(t.name, t.resourceType) }));
    if (a.securitySchemes.length)
      out['securitySchemes'] = a.securitySchemes.map((s) => ({ [s.name]: this.securityScheme(s) }));
    set(out, 'securedBy', a.securedBy ? securedBy(a.securedBy) : undefined);
    if (a.resources.length) out['resources'] = a.resources.map((r) => this.resource(r, this.raml.securedBy));
    return out;
  }

  baseUriParameters(uri: string, declared: NamedParameters | undefined): JsonObject | undefined {
    const out: JsonObject = {};
    for (const name of uriParameterNames(uri)) {
      if (name === 'version') {
        out[name] = {
          name,
          displayName: name,
          type: 'string',
          required: true,
          repeat: false,
          ...(this.raml.version !== undefined ? { enum: [this.raml.version] } : {}),
        };
        continue;
      }
      const definition = declared?.get(name);
      out[name] = definition ? parameterDefinition(definition, true) : implicitParameter(name);
    }
    for (const [name, definition] of declared ?? [])
      if (!(name in out)) out[name] = parameterDefinition(definition, true);
    return Object.keys(out).length ? out : undefined;
  }

  resource(r: Resource, inheritedSecuredBy: readonly SecurityReference[] | undefined): JsonObject {
    const out: JsonObject = { relativeUri: r.relativeUri };
    set(out, 'type', templateRef(r.type));
    set(out, 'is', templateRefs(r.is));
    const effectiveSecuredBy = r.securedBy ?? inheritedSecuredBy;
    set(out, 'securedBy', effectiveSecuredBy ? securedBy(effectiveSecuredBy) : undefined);
    set(out, 'uriParameters', this.uriParameters(r));
    set(out, 'baseUriParameters', parameterList(r.baseUriParameters));
    if (r.methods.length) out['methods'] = r.methods.map((m) => this.method(m, effectiveSecuredBy));
    if (r.resources.length) out['resources'] = r.resources.map((child) => this.resource(child, this.raml.securedBy));
    out['displayName'] = r.displayName ?? r.relativeUri;
    set(out, 'description', r.description);
    out['relativeUriPathSegments'] = r.relativeUri.split('/').filter((s) => s !== '');
    out['absoluteUri'] = (this.raml.baseUri ?? '').replace(/\/+$/, '') + r.path;
    addExtras(out, r.extras);
    return out;
  }

  uriParameters(r: Resource): JsonObject | undefined {
    const out: JsonObject = {};
    for (const name of uriParameterNames(r.relativeUri)) {
      const definition = r.uriParameters?.get(name);
      out[name] = definition ? parameterDefinition(definition, true) : implicitParameter(name);
    }
    for (const [name, definition] of r.uriParameters ?? [])
      if (!(name in out)) out[name] = parameterDefinition(definition, true);
    return Object.keys(out).length ? out : undefined;
  }

  method(m: Method, inheritedSecuredBy: readonly SecurityReference[] | undefined): JsonObject {
    const out = this.methodBody(m);
    set(out, 'protocols', m.protocols ? [...m.protocols] : this.methodProtocols);
    const effective = m.securedBy ?? inheritedSecuredBy;
    set(out, 'securedBy', effective ? securedBy(effective) : undefined);
    out['method'] = m.method;
    return out;
  }

  methodBody(m: Method): JsonObject {
    const out: JsonObject = {};
    set(out, 'responses', this.responses(m.responses));
    set(out, 'body', this.bodies(m.body, m.node));
    set(out, 'protocols', m.protocols ? [...m.protocols] : undefined);
    set(out, 'securedBy', m.securedBy ? securedBy(m.securedBy) : undefined);
    set(out, 'queryParameters', parameters(m.queryParameters, false));
    set(out, 'headers', parameters(m.headers, false));
    set(out, 'baseUriParameters', parameterList(m.baseUriParameters));
    set(out, 'description', m.description);
    set(out, 'is', templateRefs(m.is));
    set(out, 'usage', m.usage);
    set(out, 'displayName', m.displayName);
    addExtras(out, m.extras);
    return out;
  }

  /** r1 quirk: trait and describedBy echoes get the root `securedBy` when they have none. */
  withRootSecuredBy(m: Method): JsonObject {
    const out = this.methodBody(m);
    const refs = m.securedBy ?? this.raml.securedBy;
    set(out, 'securedBy', refs ? securedBy(refs) : undefined);
    return out;
  }

  trait(t: Method): JsonObject {
    return this.withRootSecuredBy(t);
  }

  resourceType(name: string, r: Resource): JsonObject {
    const out: JsonObject = { name };
    set(out, 'usage', r.usage);
    set(out, 'type', templateRef(r.type));
    set(out, 'is', templateRefs(r.is));
    const typeSecuredBy = r.securedBy ?? this.raml.securedBy;
    set(out, 'securedBy', typeSecuredBy ? securedBy(typeSecuredBy) : undefined);
    set(out, 'uriParameters', parameterList(r.uriParameters));
    set(out, 'baseUriParameters', parameterList(r.baseUriParameters));
    set(out, 'displayName', r.displayName);
    set(out, 'description', r.description);
    for (const m of r.methods) {
      const method = this.methodBody(m);
      const methodSecuredBy = m.securedBy ?? typeSecuredBy;
      set(method, 'securedBy', methodSecuredBy ? securedBy(methodSecuredBy) : undefined);
      method['method'] = m.method;
      out[m.method] = method;
    }
    addExtras(out, r.extras);
    return out;
  }

  /**
   * An empty `body:` (null or `{}`) with a default media type is a body of that media type
   * (RAML 0.8 §Default Media Type), printed as r1 does; an empty body otherwise is left out.
   */
  bodies(list: readonly Body[] | undefined, owner: YNode): JsonObject | undefined {
    const mediaType = this.raml.mediaType;
    if (list?.length === 0 && mediaType !== undefined && isEmpty(isMap(owner) ? get(owner, 'body') : undefined))
      return { [mediaType]: { name: mediaType } };
    return list?.length ? bodies(list) : undefined;
  }

  responses(list: readonly Response[] | undefined): JsonObject | undefined {
    if (!list?.length) return undefined;
    const out: JsonObject = {};
    for (const r of list) {
      const response: JsonObject = { code: r.code };
      set(response, 'description', r.description);
      set(response, 'headers', parameters(r.headers, false));
      set(response, 'body', this.bodies(r.body, r.node));
      addExtras(response, r.extras);
      out[r.code] = response;
    }
    return out;
  }

  securityScheme(s: SecurityScheme): JsonObject {
    const out: JsonObject = { name: s.name };
    set(out, 'type', s.type);
    set(out, 'description', s.description);
    if (s.describedBy) out['describedBy'] = this.withRootSecuredBy(s.describedBy);
    if (s.settings || s.type !== undefined) set(out, 'settings', settings(s));
    return out;
  }
}

/** r1 quirk: only the settings r1 knows for OAuth are printed; custom (`x-`) settings become `{}`. */
function settings(s: SecurityScheme): JsonObject | undefined {
  const known: Record<string, readonly string[]> = {
    'OAuth 1.0': ['requestTokenUri', 'authorizationUri', 'tokenCredentialsUri'],
    'OAuth 2.0': ['authorizationUri', 'accessTokenUri', 'authorizationGrants', 'scopes'],
  };
  const keys = s.type ? known[s.type] : undefined;
  if (!s.settings) return undefined;
  const out: JsonObject = {};
  if (!keys) return out;
  for (const e of s.settings.entries) if (keys.includes(e.key.text)) out[e.key.text] = toPlain(e.value) as Json;
  return out;
}

function implicitParameter(name: string): JsonObject {
  return { name, displayName: name, type: 'string', required: true, repeat: false };
}

/** r1 leaves out a parameter list that ends up empty (`headers:` alone, or only optional names). */
function parameters(params: NamedParameters | undefined, uri: boolean): JsonObject | undefined {
  if (!params?.size) return undefined;
  const out: JsonObject = {};
  for (const [name, definition] of params) out[name] = parameterDefinition(definition, uri);
  return out;
}

/** r1 quirk: base URI parameters of resources and methods, and a resource type's URI parameters, print as lists. */
function parameterList(params: NamedParameters | undefined): Json | undefined {
  if (!params?.size) return undefined;
  return [...params.values()].map((d) => parameterDefinition(d, true));
}

function parameterDefinition(definition: ParameterDefinition, uri: boolean): Json {
  if (isAlternatives(definition)) return definition.map((p) => parameter(p, uri));
  return parameter(definition, uri);
}

function isAlternatives(definition: ParameterDefinition): definition is readonly NamedParameter[] {
  return Array.isArray(definition);
}

function parameter(p: NamedParameter, uri: boolean): JsonObject {
  const out: JsonObject = {
    name: p.name,
    displayName: p.displayName ?? p.name,
    type: p.type ?? 'string',
    required: p.required ?? uri,
    repeat: p.repeat ?? false,
  };
  set(out, 'description', p.description);
  set(out, 'enum', p.enum ? [...p.enum] : nullEnum(p));
  set(out, 'pattern', p.pattern);
  set(out, 'minLength', p.minLength);
  set(out, 'maxLength', p.maxLength);
  set(out, 'minimum', p.minimum);
  set(out, 'maximum', p.maximum);
  set(out, 'example', p.example as Json | undefined);
  set(out, 'default', p.default as Json | undefined);
  addExtras(out, p.extras);
  for (const facet of NUMERIC_FACETS)
    if (typeof out[facet] === 'string' && out[facet].includes('<<')) out[facet] = null;
  return out;
}

/** r1 quirk: a numeric facet given by a `<<parameter>>` prints as null in the echo of a declaration. */
const NUMERIC_FACETS = ['minimum', 'maximum', 'minLength', 'maxLength'] as const;

function bodies(list: readonly Body[]): JsonObject {
  const out: JsonObject = {};
  for (const b of list) {
    const body: JsonObject = { name: b.mediaType };
    if (b.schema) {
      body['schema'] = b.schema.written;
      body['schemaContent'] = b.schema.content;
    }
    set(body, 'description', b.description);
    set(body, 'example', b.example ?? nullExample(b));
    set(body, 'formParameters', parameters(b.formParameters, false));
    addExtras(body, b.extras);
    out[b.mediaType] = body;
  }
  return out;
}

function isEmpty(node: YNode | undefined): boolean {
  return isNull(node) || (isMap(node) && node.entries.length === 0);
}

/** r1 quirk: `enum:` with no value prints as `[null]` (svcgen reads it as no restriction). */
function nullEnum(p: NamedParameter): Json[] | undefined {
  return isMap(p.node) && p.node.entries.some((e) => e.key.text === 'enum' && isNull(e.value)) ? [null] : undefined;
}

/** r1 prints `example:` with no value as `example: null`. */
function nullExample(b: Body): null | undefined {
  return isMap(b.node) && b.node.entries.some((e) => e.key.text === 'example' && isNull(e.value)) ? null : undefined;
}

/**
 * A use of a trait or resource type without parameters (`t: {}` or `t:`) prints as its bare
 * name, as r1 prints it: it means the same as `t`.
 */
function templateRef(ref: unknown): Json | undefined {
  if (ref === null || typeof ref !== 'object' || Array.isArray(ref)) return ref as Json | undefined;
  const keys = Object.keys(ref);
  const value = keys.length === 1 ? (ref as Record<string, unknown>)[keys[0]!] : undefined;
  const bare =
    keys.length === 1 &&
    (value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0));
  return bare ? keys[0]! : (ref as Json);
}

/** r1 quirk: an empty `is: []` prints as `[null]`. */
function templateRefs(refs: unknown): Json | undefined {
  if (Array.isArray(refs) && refs.length === 0) return [null];
  return Array.isArray(refs) ? refs.map((ref) => templateRef(ref) ?? null) : (refs as Json | undefined);
}

/** r1 prints an optional root property written with no value (`version:`) as null. */
function writtenNull(root: YMap, key: string): null | undefined {
  return isNull(get(root, key)) ? null : undefined;
}

function securedBy(refs: readonly SecurityReference[]): Json {
  return refs.map((ref) => {
    if (ref === null) return null;
    if (ref.parameters === undefined) return ref.name;
    return { [ref.name]: ref.parameters as Json };
  });
}

function set(out: JsonObject, key: string, value: Json | undefined): void {
  if (value !== undefined) out[key] = value;
}

function compact(o: Record<string, Json | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

function addExtras(out: JsonObject, extras: Extras | undefined): void {
  for (const [k, v] of extras ?? []) out[k] = v as Json;
}
