/**
 * What a change says back of the object as GET answered it. A client that reads an object, changes
 * a field and sends the whole of it back (`PUT` with `{ ...item, name }`, as react-admin and most
 * hand-written front ends do) sends with it what it may not write: `_type`, `_pk` and `_self`, the
 * read-only fields, a foreign key shown beside its link, a nested route's link to its parent, a
 * user's own `groups`. Said back as the caller's GET shows them now, they change nothing and are
 * left out; anything else of them is refused as it would be alone.
 *
 * Only what the caller is shown is compared: a field hidden from them, or a link to an object they
 * may not view (shown as GET shows it, hidden), is refused whatever its value, so that the answer
 * never tells whether a guess was right. So is everything, the answer's own names too, when the
 * caller may change the object but not read it (an x-ACL that grants `update` without `view`), and
 * every field when `show` handlers may change what GET answers (a value they mask would be
 * compared with what they hide).
 *
 * A link GET embeds (`_nested_relationships`) is said back as the objects it shows: read as their
 * keys before the body is validated (`takeEmbeddedLinks`), and compared as sent. Unchanged, a PATCH
 * leaves it out and a PUT keeps the link as it is; an embedded object changed is refused, since
 * a change writes links by key and never the objects they link to.
 */
import type { FastifyRequest } from 'fastify';
import { isDeepStrictEqual } from 'node:util';
import { badRequest } from '../errors.js';
import { hasHandlers } from '../events.js';
import type { Rec, RouteContext } from './route-context.js';
import { embeddedLinksOf, sameEmbedded } from './embedded-links.js';
import { isObject } from './relinks.js';
import { isAnswerName } from './schemas.js';
import { keyValue, type Model } from '../model.js';

/**
 * `sent` without what says back, unchanged, what the caller's GET of `object` shows and they may not
 * write. `object`: as stored, read by the route; undefined when the write goes by its key alone
 * (then `sent` names nothing route-context.ts `mayEcho` looks for, and is returned as it is).
 */
export async function withoutEchoes(
  ctx: RouteContext,
  request: FastifyRequest,
  sent: Rec,
  object: Rec | undefined,
): Promise<Rec> {
  const names = Object.keys(sent).filter(isAnswerName);
  const links = embeddedLinksOf(request) ?? {};
  // Nothing the caller was shown to say back: the answer's names are no fields of the body.
  const unshown = () => {
    if (names.length) throw unknownNames(names);
    if (Object.keys(links).length) throw embeddedRefused(Object.keys(links));
    return sent;
  };
  if (object === undefined) return unshown();
  const mayWrite = ctx.policy.writable(request, ctx.model, object);
  // What `show` handlers may change of an answer is not compared: only its names are.
  const handled = showHandled(ctx, request);
  if (handled && Object.keys(links).length) throw embeddedRefused(Object.keys(links));
  const compared = handled ? names : Object.keys(sent).filter((name) => name in links || !writes(ctx, name, mayWrite));
  if (compared.length === 0) return sent;
  if (ctx.policy.restricts && !(await ctx.mayView(request, object))) return unshown();
  const shown = await shownTo(ctx, request, object);
  const kept: Rec = { ...sent };
  for (const name of compared) {
    if (name in links) {
      const relation = ctx.model.relation(name)!;
      const target = ctx.services.db.models.get(relation.target)!;
      // Objects for a link GET shows by its keys are no echo of it (a probe was told they "differ from the objects GET embeds").
      if (!embeds(shown[name])) throw embeddedRefused([name]);
      if (!sameEmbedded(links[name], shown[name], target.primaryKey)) throw embeddedChanged(name);
      // A PUT empties a link of its own row it may write and leaves out: that one stays, by the
      // keys `sent` holds. Any other it leaves as it is (the parent's below a nested route, a
      // read-only one, one kept in the other objects' rows).
      const keptByPut = request.method === 'PUT' && relation.local && writes(ctx, name, mayWrite);
      if (!keptByPut) delete kept[name];
    } else if (saidBack(ctx, name, sent[name], shown[name])) delete kept[name];
    else if (isAnswerName(name)) throw answerNameRefused(name, shown[name]);
  }
  return kept;
}

/**
 * Whether `sent` is what GET shows of `name`. A link GET embeds said back by its keys (`"alice"`
 * for `{ "username": "alice", … }`) is: a client may say less of embedded objects, down to a key.
 * So is a key written as the body schema lets it be (`"3"` for `3`, as `_pk` shows it), and a
 * time written in another zone or with its milliseconds: the same value, which writes nothing.
 */
function saidBack(ctx: RouteContext, name: string, sent: unknown, shown: unknown): boolean {
  if (name === '_self') return samePath(sent, shown);
  if (isDeepStrictEqual(sent, shown)) return true;
  const relation = ctx.model.relation(name);
  if (relation) {
    const target = ctx.services.db.models.get(relation.target)!;
    return embeds(shown) ? sameEmbedded(sent, shown, target.primaryKey) : sameKeys(target, sent, shown);
  }
  return ctx.model.field(name)?.type === 'datetime' && sameInstant(sent, shown);
}

/** Whether a link's value, as GET shows it, holds embedded objects (`_nested_relationships`), not keys. */
function embeds(shown: unknown): boolean {
  return Array.isArray(shown) ? shown.some(isObject) : isObject(shown);
}

/** Whether `sent` names the objects `shown` does, by keys as a body may write them (`"3"` for `3`), in any order. */
function sameKeys(target: Model, sent: unknown, shown: unknown): boolean {
  const keys = (value: unknown) => (Array.isArray(value) ? value : [value]).map((key) => keyValue(target, key));
  if (Array.isArray(sent) !== Array.isArray(shown) || sent === null || shown === null) return false;
  const [said, held] = [keys(sent), keys(shown)];
  if (said.includes(undefined) || new Set(said).size !== said.length || said.length !== held.length) return false;
  const heldSet = new Set(held);
  return said.every((key) => heldSet.has(key));
}

/** Two datetimes that are the same instant (`…T10:00:00Z`, `…T11:00:00+01:00`, `…T10:00:00.000Z`). */
function sameInstant(sent: unknown, shown: unknown): boolean {
  if (typeof sent !== 'string' || typeof shown !== 'string') return false;
  const at = Date.parse(sent);
  return Number.isFinite(at) && at === Date.parse(shown);
}

function showHandled(ctx: RouteContext, request: FastifyRequest): boolean {
  return hasHandlers(ctx.eventRun(request, 'show', undefined));
}

/** Whether a body may write field `name` here: a client-written field the caller may write. */
function writes(ctx: RouteContext, name: string, mayWrite: (name: string) => boolean): boolean {
  const field = ctx.model.field(name);
  // An unknown name is the body schema's to refuse, not an echo.
  if (!field) return !isAnswerName(name);
  return field.type !== 'foreign_key' && !field.generated && name !== ctx.inverse && mayWrite(name);
}

/** The object as the caller's GET answers it: their fields, links to what they may not view hidden. */
async function shownTo(ctx: RouteContext, request: FastifyRequest, object: Rec): Promise<Rec> {
  // Deep: hiding links changes the embedded objects too, which the write's handlers and event see.
  const copy = structuredClone(object);
  await ctx.hideRefusedLinks(request, [copy]);
  return ctx.serializer(request).object(ctx.model, copy);
}

/** `_self` by its path: the same object reached through another host name is still itself. */
function samePath(sent: unknown, shown: unknown): boolean {
  if (typeof sent !== 'string' || typeof shown !== 'string') return false;
  // A Host header the service takes may still make no URL (`[::::]`): then the texts are compared.
  if (!URL.canParse(sent) || !URL.canParse(shown)) return sent === shown;
  return new URL(sent).pathname === new URL(shown).pathname;
}

/** The answer's names sent by a caller who was shown no answer: unknown fields, as before they were taken. */
function unknownNames(names: readonly string[]) {
  return badRequest(
    `invalid body: ${names.map((name) => `${name} is not a field here`).join('; ')}`,
    names.map((field) => ({ field, message: 'is not a field here' })),
  );
}

/** A body that says it is of another object than the one the URL names. */
function answerNameRefused(name: string, shown: unknown) {
  const message = `is ${JSON.stringify(shown)} here: the body says back another object than the one the URL names`;
  return badRequest(`${name} ${message}`, [{ field: name, message }]);
}

/** Links given as objects where no embedded answer can be said back: a link is written by key. */
function embeddedRefused(names: readonly string[]) {
  const message = 'is given as objects: a link is written by the keys of the objects it links to';
  return badRequest(
    `invalid body: ${names.map((name) => `${name} ${message}`).join('; ')}`,
    names.map((field) => ({ field, message })),
  );
}

/** Embedded objects said back changed: a change writes a link, never the objects it links to. */
function embeddedChanged(name: string) {
  const message =
    'differs from the objects GET embeds here: a change writes links by the keys of the objects they link to, not the objects (change those at their own URLs)';
  return badRequest(`${name} ${message}`, [{ field: name, message }]);
}
