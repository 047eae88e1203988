/**
 * Objects as the API shows them: the fields in schema order (only those asked for
 * with `_fields`, and only those the caller may see), then `_type`, `_pk` and `_self`. Related
 * objects listed in `_nested_relationships` are embedded, up to `_nesting_depth`. An object is made
 * by its model's compiled presenter (present.ts) unless `_fields` names some; `object` below is
 * its interpreted twin, for those and for any object the presenter gives way on.
 */
import type { FastifyRequest } from 'fastify';
import type { Model, ModelRegistry } from '../model.js';
import type { Include } from '../repository.js';
import { text } from '../text.js';
import { presenterOf, type Unnamed } from './present.js';

type Rec = Record<string, unknown>;

export interface SerializeOptions {
  /** `http://host/base`: `_self` is this plus the object's path. */
  readonly baseUrl: string;
  /** Objects without a URL of their own get the request's (but see `ownUrl`). */
  readonly requestUrl: string;
  /**
   * The URL of a top-level object whose model names none (`Model.selfPath` null: served only below
   * a grandparent, whose key the object does not hold), from the route's path and the keys the
   * request named (route-context.ts).
   */
  readonly ownUrl?: Unnamed;
  /** `_fields`: the fields to show (top-level objects only). */
  readonly fields?: readonly string[] | undefined;
  readonly visible: (model: Model, record: Rec) => ReadonlySet<string> | null;
  readonly models: ModelRegistry;
  /** False: every object by the interpreted `object`, what the compiled presenters are tested against. */
  readonly compiled?: boolean;
}

export interface Serializer {
  object(model: Model, record: Rec): Rec;
}

export function serialize(options: SerializeOptions): Serializer {
  const atRequest: Unnamed = () => options.requestUrl;
  const ownUrl = options.ownUrl ?? atRequest;
  const object = (model: Model, record: Rec, top: boolean): Rec => {
    const visible = options.visible(model, record);
    const unnamed = top ? ownUrl : atRequest;
    if (options.compiled !== false && !(top && options.fields)) {
      const presented = presenterOf(model, visible)?.(record, embed, options.baseUrl, unnamed);
      if (presented) return presented;
    }
    const only = top && options.fields ? new Set(options.fields) : null;
    const out: Rec = {};
    for (const field of model.fields) {
      const name = field.name;
      if (field.secret || !(name in record) || (visible && !visible.has(name)) || (only && !only.has(name))) continue;
      const value = record[name];
      const relation = field.type === 'relationship' ? model.relation(name) : undefined;
      out[name] = relation && value !== null && typeof value === 'object' ? embed(relation.target, value) : value;
    }
    const pk = record[model.primaryKey];
    out['_type'] = model.name;
    out['_pk'] = pk === null || pk === undefined ? null : text(pk);
    const path = model.selfPath(record);
    out['_self'] = path === null ? unnamed(record) : `${options.baseUrl}${path}`;
    return out;
  };
  const embed = (target: string, value: unknown): unknown => {
    const model = options.models.get(target)!;
    return Array.isArray(value)
      ? value.map((v) => (v && typeof v === 'object' ? object(model, v as Rec, false) : v))
      : object(model, value as Rec, false);
  };
  return { object: (model, record) => object(model, record, true) };
}

const includes = new WeakMap<Model, Include<Rec>>();

/**
 * What to load with each object: every relationship's keys, and the nested ones as objects. An
 * object embedded through a to-one link (a book's author) may stand in every object of a page
 * (the author of a thousand books), so it carries no to-many lists (the author's 8,000 book keys,
 * a thousand times over): a page stays bounded by its page size. Objects embedded through a
 * to-many link are each their parent's alone, and keep theirs.
 */
export function includeFor(
  model: Model,
  models: ModelRegistry,
  depth: number = model.nestingDepth,
  throughToOne = false,
): Include<Rec> {
  const top = depth === model.nestingDepth && !throughToOne;
  const cached = top ? includes.get(model) : undefined;
  if (cached) return cached;
  const include: Record<string, true | { include?: Record<string, unknown> }> = {};
  for (const relation of model.relations) {
    if (throughToOne && relation.cardinality === 'many') continue;
    const target = models.get(relation.target);
    include[relation.name] =
      depth > 0 && target && model.nestedRelationships.includes(relation.name)
        ? { include: includeFor(target, models, depth - 1, throughToOne || relation.cardinality === 'one') }
        : true;
  }
  if (top) includes.set(model, include);
  return include;
}

/**
 * `record` as its model's type has it (src/models/): each related object that the read embedded
 * (`_nested_relationships`) as its key. What the ACL's principals and the event handlers are given,
 * whatever the answer embeds: a principal written as `user(object.owner)` must see the owner's key,
 * not their whole record. The record itself when nothing of it is embedded.
 */
export function withLinkKeys(model: Model, record: Rec, models: ModelRegistry): Rec {
  let keyed: Rec | undefined;
  for (const name of model.nestedRelationships) {
    const value = record[name];
    if (value === null || typeof value !== 'object') continue;
    const key = models.get(model.relation(name)!.target)!.primaryKey;
    const asKey = (v: unknown) => (v !== null && typeof v === 'object' ? (v as Rec)[key] : v);
    keyed ??= { ...record };
    keyed[name] = Array.isArray(value) ? value.map(asKey) : asKey(value);
  }
  return keyed ?? record;
}

/** Every relationship of `model` as keys: what the outbox's events carry (lib/outbox/event.ts). */
export function linkKeys(model: Model): Include<Rec> {
  return Object.fromEntries(model.relations.map((r) => [r.name, true]));
}

/** The URL a request named: `request_url` of error bodies, `_self` of objects without a URL of their own. */
export function requestUrl(request: FastifyRequest): string {
  return `${requestOrigin(request)}${requestTarget(request)}`;
}

/**
 * The path and query a request named. HTTP/1.1 lets a client name an absolute URL instead
 * (`GET http://elsewhere.example/v1/items`): its path, on this service's origin, never its host,
 * which the answer's links would otherwise name (or run into this origin's).
 */
export function requestTarget(request: FastifyRequest): string {
  const target = request.url;
  const self = selves.get(request);
  if (target.startsWith('/')) return self ? withKeyForSelf(request, target, self) : target;
  try {
    const url = new URL(target);
    const path = `${url.pathname}${url.search}`;
    return self ? withKeyForSelf(request, path, self) : path;
  } catch {
    return '/';
  }
}

/** Per request, the URL parameter that named an object by `self` (the caller), and the key it stood for. */
const selves = new WeakMap<FastifyRequest, { readonly param: string; readonly key: unknown }>();

/** Records that `param` of the request's URL named the object keyed `key` (route-context.ts). */
export function namedBySelf(request: FastifyRequest, param: string, key: unknown): void {
  selves.set(request, { param, key });
}

/** The key `self` stood for in the request's URL parameter `param`, where it said `self`. */
export function keyForSelf(request: FastifyRequest, param: string): unknown {
  const self = selves.get(request);
  return self?.param === param ? self.key : undefined;
}

/** `target` with the segment of the parameter that said `self` replaced by the key it stood for. */
function withKeyForSelf(request: FastifyRequest, target: string, self: { param: string; key: unknown }): string {
  const index = (request.routeOptions.url ?? '').split('/').indexOf(`:${self.param}`);
  const cut = target.indexOf('?');
  const [path, query] = cut < 0 ? [target, ''] : [target.slice(0, cut), target.slice(cut)];
  const segments = path.split('/');
  if (index < 1 || index >= segments.length) return target;
  segments[index] = encodeURIComponent(text(self.key));
  return `${segments.join('/')}${query}`;
}

/**
 * `http://host[:port]`, as the URLs of a request's answers start (`_self`, `Location`, `next`):
 * its Host, or for an HTTP/1.0 request without one the address it came in on. A Host that is no
 * host name (refused before any route runs) is never written back into an answer.
 */
export function requestOrigin(request: FastifyRequest): string {
  const host = request.host as string | undefined;
  if (host) return `${request.protocol}://${isHost(host) ? host : 'invalid-host'}`;
  const { localAddress = '127.0.0.1', localPort } = request.raw.socket;
  return `${request.protocol}://${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}`;
}

/**
 * Whether `host` (the Host header, or X-Forwarded-Host from a trusted proxy) is a host name (labels
 * of at most 63 characters between single dots, 253 in all, a final dot allowed), an IPv4 address or
 * a bracketed IPv6 one, with an optional port up to 65535: what `_self` and `Location` are built
 * from, so nothing else (`evil.example/x?`, `a..b`, `:99999`) may become part of the URLs an answer gives.
 */
export function isHost(host: string | undefined): boolean {
  // Nearly every request names the host the one before it did, and each asks twice (app.ts's
  // check, then its answer's URLs): that one is remembered.
  if (host !== undefined && host === lastHost) return true;
  const parts = host === undefined || host.length > 300 ? null : HOST.exec(host);
  if (!parts) return false;
  const [, name, port] = parts;
  const valid =
    (name === undefined || name.replace(/\.$/, '').length <= 253) && (port === undefined || Number(port) <= 65535);
  if (valid) lastHost = host;
  return valid;
}

/** The last host `isHost` found valid. */
let lastHost: string | undefined;

/** Each label starts after a dot of its own, so the pattern reads a host in one pass. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST = new RegExp(`^(?:(${LABEL}(?:\\.${LABEL})*\\.?)|\\[[0-9A-Fa-f:.]{2,45}\\])(?::(\\d{1,5}))?$`);
