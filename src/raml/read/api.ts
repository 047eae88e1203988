/** RAML 0.8 §Root Section: the API as a whole. */
import type { Span } from '../../diagnostics/source.js';
import { isAlreadyReported, isScalar, isSeq, type YEntry, type YMap, type YScalar } from '../../load/ynode.js';
import { declarationEntries } from '../expand.js';
import { isResourceKey } from '../grammar.js';
import type {
  DocumentationItem,
  NamedParameters,
  RamlApi,
  Resource,
  ResourceTypeDeclaration,
  SchemaDeclaration,
  TraitDeclaration,
} from '../model.js';
import {
  checkDeclarationList,
  entrySpan,
  reportNotAList,
  looksLikePath,
  mapValue,
  readEntries,
  report,
  requiredStringValue,
  stringValue,
  type ReadContext,
} from './context.js';
import { isMediaType, readMethod } from './method.js';
import { readNamedParameters } from './parameters.js';
import { checkSchemaText } from './schema-text.js';
import { checkRelativeUri, readResource, uriParameterNames } from './resource.js';
import { readSecuritySchemes } from './security-schemes.js';
import { readProtocols, readSecuredBy } from './security-refs.js';
import type { Building } from '../../util/mutable.js';

export interface ApiReadInput {
  /** The expanded root mapping (resources with types and traits applied). */
  readonly root: YMap;
  /** The root as loaded, whose declarations are read in template mode. */
  readonly declarationsRoot: YMap;
  readonly ctx: Omit<ReadContext, 'template' | 'schemas' | 'securitySchemes'>;
}

export function readApi({ root, declarationsRoot, ctx: base }: ApiReadInput): RamlApi {
  const schemas = readSchemas({ ...base, template: false, schemas: new Map(), securitySchemes: new Set() }, root);
  const schemeNames = new Set(declarationEntries(entryOf(root, 'securitySchemes')?.value).map((d) => d.key.text));
  const ctx: ReadContext = {
    ...base,
    template: false,
    schemas: new Map(schemas.map((s) => [s.name, s])),
    securitySchemes: schemeNames,
  };
  const templateCtx: ReadContext = { ...ctx, template: true };
  const api: Building<RamlApi> = { node: root, schemas, traits: [], resourceTypes: [], securitySchemes: [] };
  const resources: Resource[] = [];
  let baseUriEntry: YEntry | undefined;
  readEntries(ctx, { ...root, entries: root.entries.filter((e) => !isResourceKey(e.key.text)) }, 'the API root', {
    title: (e) => (api.title = requiredStringValue(ctx, e, 'name the API: `title: My API`')),
    version: (e) => (api.version = stringValue(ctx, e)),
    baseUri: (e) => {
      baseUriEntry = e;
      api.baseUri = stringValue(ctx, e);
    },
    baseUriParameters: (e) => (api.baseUriParameters = readBaseUriParameters(ctx, e)),
    uriParameters: (e) => {
      report(ctx, 'SVC1117', 'root "uriParameters" is read as "baseUriParameters"', {
        span: e.key.span,
        hint: 'rename it to `baseUriParameters:`',
      });
      api.baseUriParameters = readBaseUriParameters(ctx, e);
    },
    protocols: (e) => (api.protocols = readProtocols(ctx, e)),
    mediaType: (e) => (api.mediaType = readMediaType(ctx, e)),
    schemas: () => undefined,
    documentation: (e) => (api.documentation = readDocumentation(ctx, e)),
    traits: (e) => (api.traits = readTraits(templateCtx, entryOf(declarationsRoot, 'traits') ?? e)),
    resourceTypes: (e) =>
      (api.resourceTypes = readResourceTypes(templateCtx, entryOf(declarationsRoot, 'resourceTypes') ?? e)),
    securitySchemes: (e) => (api.securitySchemes = readSecuritySchemes(ctx, e)),
    securedBy: (e) => (api.securedBy = readSecuredBy(ctx, e)),
  });
  // A title whose !include failed is there: its include error says it all.
  if (!root.entries.some((e) => e.key.text === 'title'))
    report(ctx, 'SVC1104', 'the API has no title', { span: rootStart(root), hint: 'add `title: My API`' });
  for (const e of root.entries) {
    if (!isResourceKey(e.key.text)) continue;
    const resource = readResource(ctx, e, '');
    if (resource) resources.push(resource);
  }
  api.resources = resources;
  checkBaseUri(ctx, api, baseUriEntry);
  checkDuplicateResources(ctx, resources);
  return api as RamlApi;
}

/** Where the API's properties begin (the first key), or the `#%RAML 0.8` line of an empty API. */
function rootStart(root: YMap): Span {
  const first = root.entries[0]?.key.span;
  return first && first.source === root.span.source ? first : { source: root.span.source, start: 0, end: 10 };
}

function entryOf(map: YMap, key: string): YEntry | undefined {
  return map.entries.find((e) => e.key.text === key);
}

function readBaseUriParameters(ctx: ReadContext, e: YEntry): NamedParameters | undefined {
  const params = readNamedParameters(ctx, e);
  const version = params?.get('version');
  if (version) {
    const node = Array.isArray(version) ? e.value : (version as { node: YMap }).node;
    const key = (e.value as YMap).entries?.find((p) => p.key.text === 'version')?.key;
    report(ctx, 'SVC1107', '"version" cannot be declared: its value is the root `version`', {
      span: key?.span ?? node.span,
    });
  }
  return params;
}

function readMediaType(ctx: ReadContext, e: YEntry): string | undefined {
  const text = requiredStringValue(
    ctx,
    e,
    'give the default media type (`mediaType: application/json`), or remove the line',
  );
  if (text !== undefined && !isMediaType(text))
    report(ctx, 'SVC1109', `"${text}" is not a media type`, {
      span: e.value.span,
      hint: 'media types look like `application/json`',
    });
  return text;
}

function readSchemas(ctx: ReadContext, root: YMap): SchemaDeclaration[] {
  const e = entryOf(root, 'schemas');
  if (!e) return [];
  if (!isSeq(e.value)) {
    reportNotAList(ctx, e, '{name: schema}');
  }
  const out: SchemaDeclaration[] = [];
  const seen = new Map<string, YScalar>();
  for (const d of declarationEntries(e.value)) {
    const name = d.key.text;
    const first = seen.get(name);
    if (first) {
      report(ctx, 'SVC1210', `schema "${name}" is declared twice`, {
        span: d.key.span,
        related: { span: first.span, message: 'first declared here' },
      });
      continue;
    }
    seen.set(name, d.key);
    if (isAlreadyReported(d.value)) continue;
    if (!isScalar(d.value) || d.value.value === null || typeof d.value.value !== 'string') {
      // An included .yaml file is read as YAML, a map: its JSON schema then is no text (a probe's).
      const included = d.value.kind !== 'scalar' && d.value.span.source !== d.key.span.source;
      report(ctx, 'SVC1113', `schema "${name}" must be a string (the schema text or an !include)`, {
        span: entrySpan(d),
        ...(included
          ? {
              hint: 'an included .yaml or .yml file is read as YAML: give a JSON schema a .json name, which is included as its text',
            }
          : {}),
      });
      continue;
    }
    if (looksLikePath(d.value)) {
      report(
        ctx,
        'SVC1016',
        `"${d.value.text}" looks like a file name, but without !include it is used as the schema text`,
        {
          span: entrySpan(d),
          hint: `write \`${name}: !include ${d.value.text}\``,
          severity: 'warning',
        },
      );
    } else checkSchemaText(ctx.diagnostics, d.value, d.value.value, []);
    out.push({ name, content: d.value.value, node: d.value });
  }
  return out;
}

function readDocumentation(ctx: ReadContext, e: YEntry): DocumentationItem[] | undefined {
  if (!isSeq(e.value) || e.value.items.length === 0) {
    report(ctx, 'SVC1103', '"documentation" must be a non-empty list of {title, content}', { span: entrySpan(e) });
    return undefined;
  }
  const items: DocumentationItem[] = [];
  for (const item of e.value.items) {
    const map = mapValue(ctx, { key: e.key, value: item }, 'a documentation item {title, content}');
    if (!map) continue;
    const doc: Building<DocumentationItem> = { node: item };
    readEntries(ctx, map, 'documentation', {
      title: (x) => (doc.title = requiredStringValue(ctx, x, 'give the section a heading: `title: Getting started`')),
      content: (x) =>
        (doc.content = requiredStringValue(
          ctx,
          x,
          'write the text (Markdown), or include it: `content: !include docs/intro.md`',
        )),
    });
    for (const required of ['title', 'content'] as const) {
      if (doc[required] === undefined && !map.entries.some((x) => x.key.text === required)) {
        report(ctx, 'SVC1104', `documentation item has no ${required}`, { span: item.span });
      }
    }
    items.push(doc as DocumentationItem);
  }
  return items;
}

function readTraits(ctx: ReadContext, e: YEntry): TraitDeclaration[] {
  checkDeclarationList(ctx, e);
  const out: TraitDeclaration[] = [];
  for (const d of declarationEntries(e.value)) {
    const map = mapValue(ctx, d, 'a trait (a partial method)');
    if (map)
      out.push({
        name: d.key.text,
        nameNode: d.key,
        trait: readMethod(ctx, d.key.text, map, { trait: true, where: `trait "${d.key.text}"` }),
      });
  }
  return out;
}

function readResourceTypes(ctx: ReadContext, e: YEntry): ResourceTypeDeclaration[] {
  checkDeclarationList(ctx, e);
  const out: ResourceTypeDeclaration[] = [];
  for (const d of declarationEntries(e.value)) {
    const resourceType = readResource(ctx, d, '', { resourceType: true });
    if (resourceType) out.push({ name: d.key.text, nameNode: d.key, resourceType });
  }
  return out;
}

/** RAML 0.8 §Base URI: a URI template; `{version}` needs a root `version`. */
function checkBaseUri(ctx: ReadContext, api: Building<RamlApi>, e: YEntry | undefined): void {
  if (!e || api.baseUri === undefined) return;
  if (api.baseUri.trim() === '') {
    report(ctx, 'SVC1108', '"baseUri" is empty', { span: entrySpan(e) });
    return;
  }
  if (isScalar(e.value)) checkRelativeUri(ctx, e.value);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(api.baseUri)?.[1];
  if (scheme && !['http', 'https'].includes(scheme.toLowerCase())) {
    report(ctx, 'SVC1108', `baseUri scheme "${scheme}" is not http or https`, { span: e.value.span });
  }
  if (uriParameterNames(api.baseUri).includes('version') && api.version === undefined) {
    report(ctx, 'SVC1106', 'baseUri uses {version} but the API has no version', {
      span: e.value.span,
      hint: 'add `version: v1` at the root',
    });
  }
}

function checkDuplicateResources(ctx: ReadContext, resources: readonly Resource[]): void {
  const seen = new Map<string, Resource>();
  // One URI however its slashes are written: `/items/` and `//items` are `/items`, whose methods
  // the service took from one of them alone (a probe's GET and DELETE answered 405). And whatever
  // the case of its letters: `/Items` is the model `Item` too, in the same route file (a probe's
  // project did not compile, `itemsRoutes` declared twice).
  const uri = (path: string) =>
    path
      .replace(/\/+/g, '/')
      .replace(/(.)\/$/, '$1')
      .toLowerCase();
  // `repeated`: below a key written twice in one mapping, which SVC1005 says (a repeated key), once.
  const visit = (list: readonly Resource[], repeated: boolean) => {
    for (const r of list) {
      const first = seen.get(uri(r.path));
      const again = repeated || (first !== undefined && list.includes(first) && first.relativeUri === r.relativeUri);
      if (first && !again)
        report(ctx, 'SVC1111', `resource ${r.path} is declared twice`, {
          span: r.keyNode.span,
          related: { span: first.keyNode.span, message: `first declared as ${first.path}` },
          hint: `declare ${r.path} once: put the methods and nested resources of both declarations under the first${r.path === first.path ? '' : ' (paths that differ only in their slashes or the case of their letters are one resource here: one model, one route file)'}`,
        });
      else if (!first) seen.set(uri(r.path), r);
      visit(r.resources, again || first !== undefined);
    }
  };
  visit(resources, false);
}
