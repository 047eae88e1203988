/**
 * Links a change's body gives as the objects GET embeds for them (`_nested_relationships`): a
 * client that says back `{ ...item }` sends objects where the body's schema takes keys. Before the
 * body is validated they are read as their keys, and kept as sent for echoes.ts to compare with
 * what the caller's GET shows. Apart from echoes.ts so that route-context.ts may ask of them.
 */
import type { FastifyRequest } from 'fastify';
import { isDeepStrictEqual } from 'node:util';
import type { Model, ModelRegistry } from '../model.js';
import { isObject } from './relinks.js';

type Rec = Record<string, unknown>;

/** Per request, the links its body gave as the objects GET embeds, as sent (`takeEmbeddedLinks`). */
const embeddedLinks = new WeakMap<FastifyRequest, Rec>();

/**
 * Before a change's body is validated: each link given as embedded objects (an object, or a list
 * holding one) is read as their keys, and kept as sent for `withoutEchoes` to compare. One whose
 * objects do not all carry their key is left as it is, for the body schema to refuse.
 */
export function takeEmbeddedLinks(model: Model, models: ModelRegistry, request: FastifyRequest): void {
  const body = request.body;
  if (!isObject(body)) return;
  let sent: Rec | undefined;
  for (const relation of model.relations) {
    const value = body[relation.name];
    const target = models.get(relation.target);
    const keys = target && embeddedKeys(value, target.primaryKey);
    if (keys === undefined) continue;
    (sent ??= {})[relation.name] = value;
    body[relation.name] = keys;
  }
  if (sent) embeddedLinks.set(request, sent);
}

/** The links the body gave as embedded objects, as sent; undefined when it gave none. */
export function embeddedLinksOf(request: FastifyRequest): Rec | undefined {
  return embeddedLinks.get(request);
}

/** Whether the body gave a link as embedded objects (then the change reads its object: echoes.ts compares them). */
export function hasEmbeddedLinks(request: FastifyRequest): boolean {
  return embeddedLinks.has(request);
}

/**
 * Whether embedded objects said back (`sent`, as the body gave them) are what the caller's GET
 * shows now (`shown`): the same objects, by key, each saying nothing other than GET shows (it may
 * say less: `{ "id": 3 }`, a bare key), `_self` aside, which follows the URL the object was read
 * through (another host name, a list's URL).
 */
export function sameEmbedded(sent: unknown, shown: unknown, primaryKey: string): boolean {
  if (!Array.isArray(sent)) return sameObject(sent, shown, primaryKey);
  if (!Array.isArray(shown) || sent.length !== shown.length) return false;
  const byKey = new Map(shown.map((item) => [keyText(item, primaryKey), item]));
  const seen = new Set<string>();
  return sent.every((item) => {
    const key = keyText(item, primaryKey);
    if (seen.has(key) || !byKey.has(key)) return false;
    seen.add(key);
    return sameObject(item, byKey.get(key), primaryKey);
  });
}

function sameObject(sent: unknown, shown: unknown, primaryKey: string): boolean {
  if (!isObject(sent))
    return sent !== undefined && sent !== null && keyText(sent, primaryKey) === keyText(shown, primaryKey);
  if (!isObject(shown)) return false;
  return Object.entries(sent).every(
    ([name, value]) =>
      name === '_self' ||
      (Object.hasOwn(shown, name) && isDeepStrictEqual(withoutSelf(value), withoutSelf(shown[name]))),
  );
}

/** An embedded object's key (its key field, else its `_pk`), or a bare key as it is. */
function keyOf(item: unknown, primaryKey: string): unknown {
  return isObject(item) ? (item[primaryKey] ?? item['_pk']) : item;
}

/** A key as text (`3` and `"3"` alike). */
function keyText(item: unknown, primaryKey: string): string {
  return String(keyOf(item, primaryKey));
}

/** `value` without the `_self` of the objects it embeds, however deep. */
function withoutSelf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSelf);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== '_self')
      .map(([k, v]) => [k, withoutSelf(v)]),
  );
}

/** The keys of `value`'s embedded objects; undefined where it holds none, or one without its key. */
function embeddedKeys(value: unknown, primaryKey: string): unknown {
  if (Array.isArray(value)) {
    if (!value.some(isObject)) return undefined;
    const keys = value.map((item) => keyOf(item, primaryKey));
    return keys.includes(undefined) ? undefined : keys;
  }
  return isObject(value) ? keyOf(value, primaryKey) : undefined;
}
