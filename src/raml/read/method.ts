/** RAML 0.8 §Methods, §Body and §Responses. Also reads trait declarations (partial methods). */
import { span, type Span } from '../../diagnostics/source.js';
import { isAlreadyReported, isNull, isScalar, isSeq, type YEntry, type YMap, type YScalar } from '../../load/ynode.js';
import { requiredKey } from '../merge.js';
import type { Body, Method, Response, SchemaReference } from '../model.js';
import {
  describe,
  entrySpan,
  hasParameters,
  looksLikePath,
  mapValue,
  plainOrUndefined,
  readEntries,
  report,
  stringValue,
  type ReadContext,
} from './context.js';
import { readNamedParameters } from './parameters.js';
import { checkSchemaText } from './schema-text.js';
import { readProtocols, readSecuredBy } from './security-refs.js';
import type { Building } from '../../util/mutable.js';

/** The properties of a method; `trait` adds what only declarations may say. */
export function readMethod(
  ctx: ReadContext,
  name: string,
  map: YMap,
  options: { trait?: boolean; where?: string } = {},
): Method {
  const m: Building<Method> = { method: name, node: map };
  const extras = new Map<string, unknown>();
  const handlers: Record<string, (e: YEntry) => void> = {
    description: (e) => (m.description = stringValue(ctx, e)),
    headers: (e) => (m.headers = readNamedParameters(ctx, e)),
    protocols: (e) => (m.protocols = readProtocols(ctx, e)),
    queryParameters: (e) => (m.queryParameters = readNamedParameters(ctx, e)),
    body: (e) => (m.body = readBodies(ctx, e, false)),
    responses: (e) => (m.responses = readResponses(ctx, e)),
    securedBy: (e) => (m.securedBy = readSecuredBy(ctx, e)),
    is: (e) => (m.is = readIs(ctx, e)),
    baseUriParameters: (e) => (m.baseUriParameters = readNamedParameters(ctx, e)),
  };
  if (options.trait) {
    handlers['usage'] = (e) => (m.usage = stringValue(ctx, e));
    handlers['displayName'] = (e) => (m.displayName = stringValue(ctx, e));
    handlers['is'] = (e) => reportTraitInTrait(ctx, e);
  }
  readEntries(ctx, map, options.where ?? `method ${name}`, handlers, extras);
  if (extras.size) m.extras = extras;
  return m as Method;
}

/**
 * RAML 0.8 §Resource Types and Traits: methods apply traits with `is`, and a trait is applied to
 * a method, so traits do not apply other traits (both reference parsers reject it).
 */
function reportTraitInTrait(ctx: ReadContext, e: YEntry): void {
  report(ctx, 'SVC1102', `"${e.key.text}" cannot be used in a trait: a trait cannot apply other traits`, {
    span: e.key.span,
    hint: 'apply both traits where the trait is used: `is: [first, second]`',
  });
}

/** `is:` a list of trait names, `{name: {parameters}}` or inline traits; checked when applied. */
export function readIs(ctx: ReadContext, e: YEntry): unknown {
  if (!isSeq(e.value) && !isNull(e.value)) {
    report(ctx, 'SVC1103', `"is" must be a list of traits, not ${describe(e.value)}`, {
      span: entrySpan(e),
      hint: `write \`is: [ ${isScalar(e.value) ? e.value.text : '…'} ]\``,
    });
    return undefined;
  }
  // RAML 0.8 §Applying Resource Types and Traits: each item is a trait name, {name: {parameters}} or a trait.
  for (const item of isSeq(e.value) ? e.value.items : []) {
    if (isNull(item) && !isAlreadyReported(item))
      report(ctx, 'SVC1103', 'an item of "is" is empty: it must name a trait', {
        span: dashOf(item.span),
        hint: 'remove the empty item, or write the trait name',
      });
  }
  return plainOrUndefined(e.value);
}

/** An empty block item has an empty span just after its `-`: point at the dash instead. */
function dashOf(at: Span): Span {
  const before = at.start - 1;
  return at.start === at.end && at.source.text[before] === '-' ? span(at.source, before, at.start) : at;
}

export function readBodies(ctx: ReadContext, e: YEntry, inResponse: boolean): readonly Body[] | undefined {
  const map = mapValue(ctx, e, 'a mapping of media types to body declarations');
  if (!map) return undefined;
  const bodies: Body[] = [];
  for (const b of map.entries) {
    const mediaType = ctx.template ? requiredKey(b.key.text) : b.key.text;
    if (!isMediaType(mediaType) && !(ctx.template && hasParameters(mediaType))) {
      const siblings = map.entries.map((other) => other.key.text).filter(isMediaType);
      report(ctx, 'SVC1109', `"${mediaType}" is not a media type`, {
        span: b.key.span,
        hint: mediaTypeHint(mediaType, siblings),
      });
      continue;
    }
    if (inResponse && isFormMediaType(mediaType)) {
      report(ctx, 'SVC1117', `form media types (${mediaType}) describe requests, not responses`, { span: b.key.span });
    }
    const body = readBody(ctx, mediaType, b, inResponse);
    if (body) bodies.push(body);
  }
  return bodies;
}

const MEDIA_TYPE = /^[\w.+*-]+\/[\w.+*-]+(?:\s*;.*)?$/;

export function isMediaType(text: string): boolean {
  return MEDIA_TYPE.test(text);
}

/** `siblings`: the media types written beside it (a `schema:` one level too far left belongs under one). */
function mediaTypeHint(text: string, siblings: readonly string[]): string {
  if (['schema', 'example', 'formParameters'].includes(text))
    return siblings.length
      ? `indent \`${text}:\` under \`${siblings[0]}:\`, whose body it describes (beside a media type it is read as another)`
      : 'set a default `mediaType:` at the root of the API, or name the media type: `application/json:`';
  const slashless = /^(application|text|multipart|image)(.+)$/.exec(text);
  return slashless ? `did you mean \`${slashless[1]}/${slashless[2]}\`?` : 'media types look like `application/json`';
}

function isFormMediaType(mediaType: string): boolean {
  return mediaType === 'application/x-www-form-urlencoded' || mediaType === 'multipart/form-data';
}

function readBody(ctx: ReadContext, mediaType: string, e: YEntry, inResponse: boolean): Body | undefined {
  const map = mapValue(ctx, e, 'a body declaration (schema, example, formParameters)');
  if (!map) return undefined;
  const body: Building<Body> = { mediaType, node: e.value };
  const extras = new Map<string, unknown>();
  readEntries(
    ctx,
    map,
    `body ${mediaType}`,
    {
      schema: (s) => (body.schema = readSchemaReference(ctx, s, mediaType)),
      example: (x) => (body.example = readExample(ctx, x, mediaType)),
      formParameters: (f) => (body.formParameters = readNamedParameters(ctx, f)),
      // Not in RAML 0.8's list for a body, but both reference parsers accept it (and RAML 1.0 has it).
      description: (d) => (body.description = stringValue(ctx, d)),
    },
    extras,
  );
  if (extras.size) body.extras = extras;
  // Reported at the body (its media type), where raml-1-parser reports it too.
  checkFormParameters(ctx, map, inResponse, e.key);
  return body as Body;
}

/** RAML 0.8 §Web Forms: form parameters describe a request form, instead of a schema and example. */
function checkFormParameters(ctx: ReadContext, body: YMap, inResponse: boolean, mediaTypeKey: YScalar): void {
  const form = body.entries.find((x) => requiredKey(x.key.text) === 'formParameters');
  if (!form) return;
  const related = { span: form.key.span, message: 'the form parameters are here' };
  if (inResponse) {
    report(ctx, 'SVC1122', `"formParameters" cannot describe a response body (${mediaTypeKey.text})`, {
      span: mediaTypeKey.span,
      related,
      hint: 'describe the response with `schema` and `example`',
    });
    return;
  }
  const other = body.entries.find((x) => ['schema', 'example'].includes(requiredKey(x.key.text)));
  if (other) {
    report(
      ctx,
      'SVC1122',
      `body ${mediaTypeKey.text} has "formParameters" together with "${requiredKey(other.key.text)}"`,
      {
        span: mediaTypeKey.span,
        related,
        hint: 'a form body is described by its formParameters; remove `schema` and `example`, or the formParameters',
      },
    );
  }
}

function readExample(ctx: ReadContext, e: YEntry, mediaType: string): string | number | boolean | undefined {
  if (!isScalar(e.value)) {
    report(ctx, 'SVC1103', `"example" must be text, not ${describe(e.value)}`, {
      span: entrySpan(e),
      hint: 'write the example as a block string (`example: |`) or include it from a file',
    });
    return undefined;
  }
  warnMissingInclude(ctx, e, mediaType);
  return e.value.value === null ? undefined : e.value.value;
}

/** RAML 0.8 §Schema: a declared schema's name, or the schema text itself. */
function readSchemaReference(ctx: ReadContext, e: YEntry, mediaType: string): SchemaReference | undefined {
  const node = e.value;
  if (!isScalar(node)) {
    report(ctx, 'SVC1103', `"schema" must be a schema name or schema text, not ${describe(node)}`, {
      span: entrySpan(e),
    });
    return undefined;
  }
  if (node.value === null) return undefined;
  const written = node.text;
  const declaration = node.style === 'include' ? undefined : ctx.schemas.get(written);
  if (declaration) return { written, declaration, content: declaration.content, contentNode: declaration.node, node };
  warnMissingInclude(ctx, e, mediaType);
  if (!ctx.template && !looksLikePath(node)) checkSchemaText(ctx.diagnostics, node, written, ctx.schemas.keys());
  return { written, content: written, contentNode: node, node };
}

function warnMissingInclude(ctx: ReadContext, e: YEntry, mediaType: string): void {
  if (!/json|xml/.test(mediaType) || !looksLikePath(e.value)) return;
  const text = (e.value as YScalar).text;
  report(ctx, 'SVC1016', `"${text}" looks like a file name, but without !include it is used as literal text`, {
    span: entrySpan(e),
    hint: `write \`${e.key.text}: !include ${text}\``,
    severity: 'warning',
  });
}

export function readResponses(ctx: ReadContext, e: YEntry): readonly Response[] | undefined {
  const map = mapValue(ctx, e, 'a mapping of status codes to responses');
  if (!map) return undefined;
  const responses: Response[] = [];
  for (const r of map.entries) {
    const code = ctx.template ? requiredKey(r.key.text) : r.key.text;
    if (!/^[1-5]\d\d$/.test(code) && !(ctx.template && hasParameters(code))) {
      report(ctx, 'SVC1110', `"${code}" is not an HTTP status code`, { span: r.key.span });
      continue;
    }
    const response = readResponse(ctx, code, r);
    if (response) responses.push(response);
  }
  return responses;
}

function readResponse(ctx: ReadContext, code: string, e: YEntry): Response | undefined {
  const map = mapValue(ctx, e, 'a response (description, headers, body)');
  if (!map) return undefined;
  const response: Building<Response> = { code, node: e.value };
  const extras = new Map<string, unknown>();
  readEntries(
    ctx,
    map,
    `response ${code}`,
    {
      description: (d) => (response.description = stringValue(ctx, d)),
      headers: (h) => (response.headers = readNamedParameters(ctx, h)),
      body: (b) => (response.body = readBodies(ctx, b, true)),
    },
    extras,
  );
  if (extras.size) response.extras = extras;
  return response as Response;
}
