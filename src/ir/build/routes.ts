/**
 * The routes. A static resource is a model's collection, its `{param}` child the
 * items (looked up by primary key, whatever the parameter is called). Below an item, a segment is
 * a nested collection (a to-many relationship or backref of the parent), a singular sub-resource
 * (a to-one relationship) or an attribute sub-resource (a `dict` or `list` field). Nothing is
 * said about resources below what an earlier error left out.
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import { isJsonMediaType } from '../../../runtime/src/lib/http/patterns.js';
import { entry, get } from '../../load/ynode.js';
import type { Body, Method, RamlApi, Resource, SecurityReference } from '../../raml/model.js';
import { didYouMean } from '../../util/suggest.js';
import { modelNameOf } from '../naming.js';
import type { Action, HttpMethod, Operation, Permission, Route, RouteParent } from '../types.js';
import type { FieldDraft } from './fields.js';
import type { ModelDraft } from './models.js';
import { walk, type PathNode } from './paths.js';
import type { Poisoned } from './poisoned.js';
import {
  reportBodySchemaNotRead,
  reportHeaderRules,
  reportMistypedItemParameter,
  reportUnservedQueryParameters,
} from './raml-only.js';

type Kind = Route['kind'];

/** Method → action, per kind of route (as Ramses maps them; singular routes act on one object). */
const ACTION_TABLE: Readonly<Record<Kind, Partial<Record<HttpMethod, Action>>>> = {
  collection: {
    GET: 'index',
    HEAD: 'index',
    POST: 'create',
    PUT: 'update_many',
    PATCH: 'update_many',
    DELETE: 'delete_many',
    OPTIONS: 'collection_options',
  },
  item: { GET: 'show', HEAD: 'show', PUT: 'replace', PATCH: 'update', DELETE: 'delete', OPTIONS: 'item_options' },
  singular: {
    GET: 'show',
    HEAD: 'show',
    POST: 'create',
    PUT: 'replace',
    PATCH: 'update',
    DELETE: 'delete',
    OPTIONS: 'item_options',
  },
  attribute: { GET: 'index', HEAD: 'index', POST: 'create', OPTIONS: 'collection_options' },
};

export const PERMISSION_OF: Readonly<Record<Action, Permission>> = {
  index: 'view',
  show: 'view',
  create: 'create',
  update: 'update',
  replace: 'update',
  update_many: 'update',
  delete: 'delete',
  delete_many: 'delete',
  collection_options: 'options',
  item_options: 'options',
};

interface Context {
  readonly diagnostics: DiagnosticBag;
  readonly api: RamlApi;
  readonly models: ReadonlyMap<string, ModelDraft>;
  readonly aclSchemes: ReadonlySet<string>;
  readonly poisoned: Poisoned;
}

/** What a static node turned out to be, for its children. */
interface Served {
  readonly kind: Kind;
  readonly model: string;
  readonly route: Route | undefined;
  /** The collection's x-ACL, inherited by its items. */
  readonly acl: string | null;
  readonly parent: RouteParent | null;
}

export function buildRoutes(ctx: Context, root: PathNode): Route[] {
  const routes: Route[] = [];
  const served = new Map<PathNode, Served>();
  const itemOf = new Map<PathNode, ItemInfo>();
  for (const { node, parent } of walk(root)) {
    if (node.param !== null) {
      const item = itemRoute(ctx, node, parent, served.get(parent), itemOf.get(parent));
      if (item) {
        itemOf.set(node, item);
        if (item.route) routes.push(item.route);
      }
      continue;
    }
    // Below a parameter that got no item (its collection is missing or wrong, reported): nothing to serve.
    if (parent.param !== null && !itemOf.has(parent)) continue;
    const parentItem = itemOf.get(parent);
    const result = parentItem ? nested(ctx, node, parentItem) : collection(ctx, node);
    if (!result) continue;
    served.set(node, result);
    if (result.route) routes.push(result.route);
  }
  poisonAclsOfUnserved(ctx, root, new Set(routes.map((r) => r.ramlPath)));
  return routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A resource that got no route was reported (or is below one that was): its x-ACLs are not "unused". */
function poisonAclsOfUnserved(ctx: Context, root: PathNode, served: ReadonlySet<string>): void {
  for (const { node } of walk(root)) {
    if (!node.resource || served.has(node.ramlPath)) continue;
    for (const ref of node.resource.securedBy ?? [])
      if (ref !== null && ctx.aclSchemes.has(ref.name)) ctx.poisoned.addAcl(ref.name);
  }
}

/** A static path at the top, or below another static one (`/api/stories`): a model's own collection (a missing model is reported by definitions.ts). */
function collection(ctx: Context, node: PathNode): Served | undefined {
  const model = modelNameOf(node.segment);
  if (!ctx.models.has(model)) return undefined;
  const acl = aclOf(ctx, node.resource, null);
  const route = makeRoute(ctx, node, 'collection', model, { itemParam: null, parent: null, attribute: null, acl });
  return { kind: 'collection', model, route, acl, parent: null };
}

interface ItemInfo {
  readonly model: string;
  readonly route: Route | undefined;
  /** The item's path and the parameter holding its key (also when the RAML declares no methods there). */
  readonly path: string;
  readonly param: string;
  /** The item's x-ACL (attribute routes use it too). */
  readonly acl: string | null;
  /** Where the item is nested, or null. */
  readonly parent: RouteParent | null;
}

function itemRoute(
  ctx: Context,
  node: PathNode,
  parent: PathNode,
  parentServed: Served | undefined,
  parentItem: ItemInfo | undefined,
): ItemInfo | undefined {
  if (parent.param === null && parent.segment === '') {
    ctx.diagnostics.report('SVC2019', `a resource cannot start with a parameter: ${node.ramlPath}`, {
      span: node.span,
      hint: 'put it under a collection, e.g. /items/{id}',
    });
    return undefined;
  }
  if (parentItem !== undefined && parentServed === undefined) {
    // `/farms/{id}/{id}`: was dropped without a word (a probe's).
    ctx.diagnostics.report('SVC2022', `${node.ramlPath}: an item has no items of its own`, {
      span: node.span,
      hint: `name the relationship its items come from: ${parent.ramlPath}/<relationship>/${node.segment}`,
    });
    return undefined;
  }
  if (parentItem !== undefined || !parentServed || parentServed.kind === 'attribute') return undefined;
  if (parentServed.kind !== 'collection') {
    ctx.diagnostics.report('SVC2022', `${node.ramlPath}: a ${parentServed.kind} sub-resource has no items`, {
      span: node.span,
    });
    return undefined;
  }
  const dynamicSiblings = parent.children.filter((c) => c.param !== null);
  if (dynamicSiblings.length > 1 && dynamicSiblings[0] !== node) {
    ctx.diagnostics.report(
      'SVC2021',
      `${parent.ramlPath} has more than one item parameter: ${dynamicSiblings.map((c) => c.segment).join(', ')}`,
      {
        span: node.span,
        hint: 'items are looked up by primary key; keep one {parameter} under a collection',
      },
    );
    return undefined;
  }
  const path = fastifyPath(node);
  const param = path.slice(path.lastIndexOf(':') + 1);
  if (node.resource && node.param)
    reportMistypedItemParameter(ctx.diagnostics, node.resource, node.param, ctx.models.get(parentServed.model));
  const acl = aclOf(ctx, node.resource, parentServed.acl);
  const parentLink = parentServed.route?.parent ?? parentServed.parent;
  const route = makeRoute(ctx, node, 'item', parentServed.model, {
    itemParam: param,
    parent: parentLink,
    attribute: null,
    acl,
  });
  return { model: parentServed.model, route, path, param, acl, parent: parentLink };
}

function nested(ctx: Context, node: PathNode, parentItem: ItemInfo): Served | undefined {
  const parentModel = ctx.models.get(parentItem.model)!;
  const field = parentModel.fields.find((f) => f.field.name === node.segment);
  const parent = (f: string): RouteParent => ({
    model: parentModel.name,
    param: parentItem.param,
    field: f,
    path: parentItem.path,
    parent: parentItem.parent,
  });
  if (field && (field.field.type === 'dict' || field.field.type === 'list')) {
    if (node.children.length) {
      ctx.diagnostics.report('SVC2022', `${node.ramlPath}: an attribute sub-resource has no nested resources`, {
        span: node.children[0]!.span,
      });
    }
    // Reading or merging into a field of the item is using the item: the item's ACL guards it.
    const acl = aclOf(ctx, node.resource, parentItem.acl);
    const route = makeRoute(ctx, node, 'attribute', parentModel.name, {
      itemParam: null,
      parent: parent(field.field.name),
      attribute: field.field.name,
      acl,
    });
    return { kind: 'attribute', model: parentModel.name, route, acl, parent: parent(field.field.name) };
  }
  const relationship = parentModel.relationships.find((r) => r.name === node.segment);
  if (!relationship && isPoisoned(ctx, parentModel, field, node.segment)) return undefined;
  if (!relationship) {
    // What is served, not what is declared: a relationship field that failed to resolve is not.
    const served = (f: FieldDraft) =>
      f.field.type === 'dict' ||
      f.field.type === 'list' ||
      parentModel.relationships.some((r) => r.name === f.field.name);
    const candidates = parentModel.fields.filter(served).map((f) => f.field.name);
    ctx.diagnostics.report(
      'SVC2020',
      `${node.ramlPath}: "${node.segment}" is not a relationship, dict or list field of ${parentModel.name}`,
      {
        span: node.span,
        hint:
          (didYouMean(node.segment, candidates) ??
            (candidates.length
              ? `below an item, svcgen serves these fields of ${parentModel.name}: ${candidates.join(', ')}`
              : `${parentModel.name} has no relationship, dict or list field to serve here`)) + unreadNote(ctx, field),
      },
    );
    return undefined;
  }
  const kind: Kind = relationship.cardinality === 'one' ? 'singular' : 'collection';
  const acl = aclOf(ctx, node.resource, null);
  const route = makeRoute(ctx, node, kind, relationship.target, {
    itemParam: null,
    parent: parent(relationship.name),
    attribute: null,
    acl,
  });
  return { kind, model: relationship.target, route, acl, parent: parent(relationship.name) };
}

/**
 * A relationship that failed, its backref, any field of a schema that is not a model, and a name
 * the schema does not declare that is likely the backref of a schema not read: one with a foreign
 * key here to its model (`owner_id` to an unreadable User). Whatever is said was said already.
 * Other names are reported, with a note (`unreadNote`): every problem in one run.
 */
function isPoisoned(ctx: Context, model: ModelDraft, declared: FieldDraft | undefined, segment: string): boolean {
  if (ctx.poisoned.hasField(model.name, segment)) return true;
  if (declared) return false;
  const unread = new Set(ctx.poisoned.unreadModels());
  return model.fields.some((f) => f.foreignKey !== undefined && unread.has(f.foreignKey.refDocument));
}

/** For a name reported while some schema is unread: it may yet come as that schema's backref. */
function unreadNote(ctx: Context, declared: FieldDraft | undefined): string {
  const unread = declared ? [] : ctx.poisoned.unreadModels();
  return unread.length ? ` (unless the schema of ${unread.join(', ')}, not read yet, adds it as a backref)` : '';
}

function makeRoute(
  ctx: Context,
  node: PathNode,
  kind: Kind,
  model: string,
  rest: { itemParam: string | null; parent: RouteParent | null; attribute: string | null; acl: string | null },
): Route | undefined {
  if (!node.resource) return undefined;
  return {
    path: fastifyPath(node),
    ramlPath: node.ramlPath,
    kind,
    model,
    ...rest,
    operations: operations(ctx, node.resource, kind, ctx.models.get(model), rest.acl),
    displayName: node.resource.displayName ?? null,
  };
}

function operations(
  ctx: Context,
  resource: Resource,
  kind: Kind,
  model: ModelDraft | undefined,
  acl: string | null,
): Operation[] {
  const out: Operation[] = [];
  const hasGet = resource.methods.some((m) => m.method === 'get');
  for (const m of resource.methods) {
    const method = m.method.toUpperCase() as HttpMethod;
    // HEAD is GET without its body (Fastify's): alone, it had no handler, and was a 405 whose Allow named HEAD.
    if (method === 'HEAD' && !hasGet) {
      ctx.diagnostics.report(
        'SVC2023',
        `head on ${resource.path} is not served without get: a HEAD is answered as a GET, without its body`,
        {
          span: methodSpan(resource, m),
          hint: 'declare get too, or leave head out',
        },
      );
      continue;
    }
    const action = ACTION_TABLE[kind][method];
    if (!action) {
      ctx.diagnostics.report(
        'SVC2023',
        `${m.method} on ${resource.path} is not served: ${kind === 'item' || kind === 'attribute' ? 'an' : 'a'} ${kind} route has no ${m.method} action`,
        {
          span: methodSpan(resource, m),
          hint: kind === 'item' && m.method === 'post' ? 'create items with post on the collection' : undefined,
        },
      );
      continue;
    }
    reportMethodAcl(ctx, resource, m, acl);
    reportBodiesNotTaken(ctx, resource, m);
    reportUnservedQueryParameters(ctx.diagnostics, resource, m, { kind, action }, model);
    reportHeaderRules(ctx.diagnostics, resource, m);
    // A dict or list field's route takes the field's values, not its model's.
    if (kind !== 'attribute') reportBodySchemaNotRead(ctx.diagnostics, ctx.api, resource, m, model);
    // Merging into a dict or list field changes the item it belongs to.
    const permission = kind === 'attribute' && action === 'create' ? 'update' : PERMISSION_OF[action];
    out.push({ method, action, permission, description: m.description?.trim() || null });
  }
  return out;
}

/**
 * A method's own `securedBy` that names another x-ACL than its route's (SVC2121): one x-ACL guards
 * every method of a route, and a method's would be ignored, what it keeps from callers allowed (a
 * probe's GET guarded `closed` answered anyone under its resource's `open`).
 */
function reportMethodAcl(ctx: Context, resource: Resource, m: Method, acl: string | null): void {
  const own = m.securedBy?.find((r) => r !== null && ctx.aclSchemes.has(r.name));
  if (!own || own.name === acl) return;
  // It is named: no "guards no route" (SVC2071) beside this.
  ctx.poisoned.addAcl(own.name);
  ctx.diagnostics.report(
    'SVC2121',
    `${m.method} on ${resource.path} is guarded by x-ACL "${own.name}" of its own securedBy, where its route is guarded by ${acl === null ? 'no x-ACL' : `"${acl}"`}: one x-ACL guards every method of a route, and this one would be ignored`,
    {
      span: own.node.span,
      hint: `guard the resource with one x-ACL (securedBy on the resource) whose rules say what each method may do: view (GET), create (POST), update (PATCH, PUT), delete (DELETE)`,
    },
  );
}

/**
 * The service reads JSON bodies only (runtime/src/lib/http/patterns.ts `isJsonMediaType`): a body
 * of another media type is answered 415.
 * A GET's body is not read at all (Fastify's), so a declared one changes nothing.
 */
function reportBodiesNotTaken(ctx: Context, resource: Resource, m: Method): void {
  if (m.method === 'get' || m.method === 'head') return;
  for (const body of m.body ?? []) {
    if (isJsonMediaType(body.mediaType)) continue;
    ctx.diagnostics.report(
      'SVC2078',
      `${m.method} on ${resource.path} declares a request body of type ${body.mediaType}: the service takes JSON bodies only, and answers this one 415`,
      {
        span: bodyKeySpan(m, body),
        hint: 'send the same fields as application/json (and declare that body), or leave this one out',
      },
    );
  }
}

/** Where the method names the body's media type; the body itself where a trait or resource type brought it. */
function bodyKeySpan(m: Method, body: Body): Span {
  const bodies = m.node.kind === 'map' ? get(m.node, 'body') : undefined;
  const key = bodies?.kind === 'map' ? entry(bodies, body.mediaType)?.key : undefined;
  return (key ?? body.node).span;
}

function methodSpan(resource: Resource, m: Method): Span {
  const node = resource.node;
  if (node.kind === 'map') {
    const key = node.entries.find((e) => e.key.text === m.method || e.key.text === `${m.method}?`)?.key;
    if (key) return key.span;
  }
  return resource.keyNode.span;
}

/** The route's x-ACL: the first x-ACL of the resource's `securedBy` (or the root's), else `inherited`. */
function aclOf(ctx: Context, resource: Resource | undefined, inherited: string | null): string | null {
  const own = resource?.securedBy;
  const first = (refs: readonly SecurityReference[] | undefined) =>
    refs?.find((r) => r !== null && ctx.aclSchemes.has(r.name))?.name ?? null;
  if (own) return first(own) ?? inherited;
  return inherited ?? first(ctx.api.securedBy);
}

/** `/users/{username}/stories/{id}` → `/users/:username/stories/:id`, renaming parameters that repeat or are not identifiers. */
function fastifyPath(node: PathNode): string {
  const segments = node.ramlPath.split('/').filter((s) => s !== '');
  const used = new Set<string>();
  let previous = '';
  return (
    '/' +
    segments
      .map((segment) => {
        const param = /^\{(.+)\}$/.exec(segment)?.[1];
        if (param === undefined) {
          previous = segment;
          return segment;
        }
        let name = safeParam(param, previous);
        if (used.has(name)) name = safeParam(`${previous}_${param}`, previous);
        used.add(name);
        return `:${name}`;
      })
      .join('/')
  );
}

function safeParam(param: string, collection: string): string {
  const cleaned = param.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `${collection.replace(/[^A-Za-z0-9_]/g, '_')}_${cleaned}`;
}
