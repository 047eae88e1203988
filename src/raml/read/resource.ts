/** RAML 0.8 §Resources and Nested Resources. Also reads resource type declarations (partial resources). */
import { span } from '../../diagnostics/source.js';
import { isMap, isNull, type YEntry, type YMap, type YScalar } from '../../load/ynode.js';
import { isMethodName, isResourceKey, METHOD_NAMES } from '../grammar.js';
import { requiredKey } from '../merge.js';
import type { Method, Resource } from '../model.js';
import {
  describe,
  entrySpan,
  mapValue,
  plainOrUndefined,
  readEntries,
  report,
  stringValue,
  type ReadContext,
} from './context.js';
import { readIs, readMethod } from './method.js';
import { readNamedParameters } from './parameters.js';
import { readSecuredBy } from './security-refs.js';
import type { Building } from '../../util/mutable.js';

export function readResource(
  ctx: ReadContext,
  e: YEntry,
  parentPath: string,
  options: { resourceType?: boolean } = {},
): Resource | undefined {
  const relativeUri = e.key.text;
  if (!options.resourceType) checkRelativeUri(ctx, e.key);
  const map = mapValue(ctx, e, 'a resource (methods, nested resources, …)');
  if (!map) return undefined;
  const path = parentPath + relativeUri;
  const r: Building<Resource> = { relativeUri, path, keyNode: e.key, node: map };
  const methods: Method[] = [];
  const resources: Resource[] = [];
  const extras = new Map<string, unknown>();
  const handlers: Record<string, (x: YEntry) => void> = {
    displayName: (x) => (r.displayName = stringValue(ctx, x)),
    description: (x) => (r.description = stringValue(ctx, x)),
    type: (x) => (r.type = readType(ctx, x)),
    is: (x) => (r.is = readIs(ctx, x)),
    securedBy: (x) => (r.securedBy = readSecuredBy(ctx, x)),
    uriParameters: (x) => (r.uriParameters = readNamedParameters(ctx, x)),
    baseUriParameters: (x) => (r.baseUriParameters = readNamedParameters(ctx, x)),
  };
  if (options.resourceType) handlers['usage'] = (x) => (r.usage = stringValue(ctx, x));
  for (const name of METHOD_NAMES) {
    handlers[name] = (x) => {
      const method = mapValue(ctx, x, `a method declaration`);
      if (method) methods.push(readMethod(ctx, name, method));
    };
  }
  const own: YEntry[] = [];
  for (const x of map.entries) {
    if (isResourceKey(x.key.text) && !options.resourceType) {
      const nested = readResource(ctx, x, path);
      if (nested) resources.push(nested);
    } else if (!isResourceKey(x.key.text)) {
      own.push(x);
    }
  }
  const ownMap: YMap = { kind: 'map', entries: own, span: map.span };
  reportMisspelledMethods(ctx, ownMap, handlers);
  readEntries(
    ctx,
    withoutMisspelledMethods(ownMap),
    options.resourceType ? 'resource type' : `resource ${relativeUri}`,
    handlers,
    extras,
  );
  if (extras.size) r.extras = extras;
  r.methods = methods;
  r.resources = resources;
  return r as Resource;
}

function readType(ctx: ReadContext, e: YEntry): unknown {
  const node = e.value;
  if (isMap(node) && node.entries.length === 0) {
    report(ctx, 'SVC1103', '"type" is an empty mapping: it must name a resource type', {
      span: entrySpan(e),
      hint: 'write `type: name` or `type: { name: { parameter: value } }`',
    });
    return undefined;
  }
  if (isMap(node) || isNull(node) || node.kind === 'scalar') return plainOrUndefined(node);
  report(ctx, 'SVC1103', `"type" must be a resource type name or {name: {parameters}}, not ${describe(node)}`, {
    span: entrySpan(e),
  });
  return undefined;
}

/** `GET:` instead of `get:` — RAML is case-sensitive, so say so instead of "unknown property". */
function reportMisspelledMethods(ctx: ReadContext, map: YMap, handlers: Record<string, unknown>): void {
  for (const x of map.entries) {
    const key = ctx.template ? requiredKey(x.key.text) : x.key.text;
    if (Object.hasOwn(handlers, key) || !isMethodName(key.toLowerCase())) continue;
    report(ctx, 'SVC1102', `unknown property "${x.key.text}": method names are lower case`, {
      span: x.key.span,
      hint: `write \`${key.toLowerCase()}:\``,
    });
  }
}

function withoutMisspelledMethods(map: YMap): YMap {
  return {
    ...map,
    entries: map.entries.filter(
      (x) => !(isMethodName(requiredKey(x.key.text).toLowerCase()) && !isMethodName(requiredKey(x.key.text))),
    ),
  };
}

/** RAML 0.8 §Template URIs: `/segment`, with `{name}` parameters; braces balanced and named. */
export function checkRelativeUri(ctx: ReadContext, key: YScalar): void {
  const uri = key.text;
  let depth = 0;
  let start = -1;
  for (let i = 0; i < uri.length; i++) {
    const c = uri[i];
    if (c === '{') {
      if (depth > 0) return badUri(ctx, key, 'URI parameters cannot be nested', i);
      depth = 1;
      start = i;
    } else if (c === '}') {
      if (depth === 0) return badUri(ctx, key, 'unbalanced "}"', i);
      if (i === start + 1) return badUri(ctx, key, 'a URI parameter needs a name', i);
      depth = 0;
    }
  }
  if (depth > 0) badUri(ctx, key, 'unclosed "{"', start);
}

function badUri(ctx: ReadContext, key: YScalar, message: string, at: number): void {
  const offset =
    key.span.source.text.slice(key.span.start, key.span.end) === key.text ? key.span.start + at : key.span.start;
  report(ctx, 'SVC1108', `${key.text}: ${message}`, { span: span(key.span.source, offset, offset + 1) });
}

/** The `{names}` in a URI template, in order. */
export function uriParameterNames(uri: string): string[] {
  return [...uri.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}
