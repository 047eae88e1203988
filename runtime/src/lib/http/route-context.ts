/**
 * One route as its actions see it (lib/http/actions.ts): its model, the services, and the steps
 * the reads, writes and bulk changes share — finding the object the URL names, scoping a nested
 * route to its parent, running a write in one transaction with its event handlers, presenting
 * an object. Made once per route, when the routes are registered.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, HttpError, notFound, statusBody } from '../errors.js';
import { hasHandlers, inTransaction, withEvents, type Action, type EventRun } from '../events.js';
import { assertInTime } from './deadline.js';
import { clientOf } from './client-address.js';
import { generic, type AnyModel, type Model } from '../model.js';
import type { EngineRepository, RecordedWrites, ServiceDatabase } from '../database.js';
import { UnknownReference, type Include, type Where } from '../repository.js';
import { modelRoute, type Permission, type Policy, type RouteAccess } from './policy.js';
import type { Services } from './services.js';
import { checkIfMatch, etagOf, hasPrecondition } from './etag.js';
import { filtersAmongViewable, hideRefusedLinks, keepHiddenLinks, refuseUnknownLinks } from './hidden-links.js';
import { checkRelinks, mayChangeByLink, relinkRefusal, type LinkWrite } from './relinks.js';
import { cascadeJudge, withCascades } from './cascades.js';
import { refuseRequiredUnlinks } from './required-links.js';
import { withMovedLinks } from './moved-links.js';
import { isAnswerName } from './schemas.js';
import { hasEmbeddedLinks } from './embedded-links.js';
import {
  includeFor,
  linkKeys,
  namedBySelf,
  requestOrigin,
  keyForSelf,
  requestUrl,
  serialize,
  withLinkKeys,
  type Serializer,
} from './serialize.js';
import { newEvent } from '../outbox/event.js';
import { text } from '../text.js';
import type { EventAction } from '../outbox/types.js';

export type Rec = Record<string, unknown>;
export type Query = Record<string, string | string[] | undefined>;

/** A nested route's parent, once the caller may view it, and the route whose rules decide on its model. */
interface ViewedParent {
  readonly parent: Rec;
  readonly model: Model;
  readonly route: RouteAccess | undefined;
}

export interface RouteSpec {
  readonly kind: 'collection' | 'item' | 'singular' | 'attribute';
  /** The model whose objects the route serves (the parent's model, for an attribute route). */
  readonly model: AnyModel;
  /**
   * The path parameter with the item's key (item routes). On a collection route, that of the item
   * route right below it, where its objects name no URL of their own (`Model.selfPath` null: served
   * only below a grandparent): their `_self` is then made from the collection's URL.
   */
  readonly itemParam?: string;
  /** Nested routes: the parent item, and its relationship (or dict/list field) this route follows. */
  readonly parent?: ParentSpec;
  readonly acl: string | null;
  /**
   * Attribute routes that merge (POST): the JSON Schema of the field's value, which the merged
   * value must meet as a PATCH of the item's would.
   */
  readonly value?: object;
}

export interface ParentSpec {
  readonly model: AnyModel;
  /** The path parameter with the parent's key. */
  readonly param: string;
  readonly field: string;
  /** Where the parent item is nested itself (`/projects/:id/tasks/:tid/checklist`: the task's project). */
  readonly parent?: ParentSpec;
}

/** The object a request was authorized on (by the guard, before its body was validated), so it is read once. */
const authorized = new WeakMap<FastifyRequest, Rec>();
/** Requests authorized without their object (`authorizeByKey`), so the guard's decision is not made twice. */
const authorizedByKey = new WeakSet<FastifyRequest>();

/** How `RouteContext.write` runs a write. */
export interface WriteOptions {
  /**
   * `work` is one write and reads nothing it depends on: with no handlers around it, an engine
   * that can append the event with the write as one step runs it without a transaction
   * (PostgreSQL: one statement, one round trip).
   */
  readonly oneWrite?: boolean;
  /** Fields the write sets that the request did not send (a PUT's): handlers see them, processors do not. */
  readonly resets?: ReadonlySet<string>;
  /** What may refuse the write before any handler runs (If-Match), in its transaction. */
  readonly first?: (db: ServiceDatabase) => Promise<void>;
  /** A change of many: the objects it selects, which its handlers are given (`event.where`). */
  readonly where?: Rec;
}

/** What a write was allowed, on the object as read before it: the permission, and the fields it writes. */
interface Judged {
  readonly permission: Permission;
  readonly fields: readonly string[];
}

export class RouteContext {
  /**
   * The parent item's own route where the parent is nested itself: the parent is found only among
   * the objects of its own parent (the project the URL names, for `/projects/:id/tasks/:tid/…`), once
   * the caller may view that one, as the parent's own URL would find it.
   */
  readonly #parentItem: RouteContext | undefined;
  /** The parent each request names, once read, where the collection rules are given it (`authorizeCollection`). */
  readonly #viewedParents = new WeakMap<FastifyRequest, Promise<ViewedParent>>();

  constructor(
    readonly services: Services,
    readonly route: RouteSpec,
  ) {
    const parent = route.parent;
    this.#parentItem = parent?.parent
      ? new RouteContext(services, {
          kind: 'item',
          model: parent.model,
          itemParam: parent.param,
          parent: parent.parent,
          acl: null,
        })
      : undefined;
  }

  get model(): Model {
    return generic(this.route.model);
  }

  get policy(): Policy {
    return this.services.policy;
  }

  repository(db: ServiceDatabase = this.services.db): EngineRepository {
    return db.repository(this.model.name);
  }

  /**
   * Runs a write in one transaction with the model's handlers: before handlers and processors
   * may change the data, after handlers the response; if anything throws, nothing is written.
   * `work` writes through `writes`, which append each change's event to the outbox in the same
   * transaction. Options (`WriteOptions`): `oneWrite`, `resets`, `first`.
   */
  async write<R>(
    request: FastifyRequest,
    action: Action,
    body: Rec,
    instance: Rec | undefined,
    work: (db: ServiceDatabase, data: Rec, writes: RecordedWrites) => Promise<R>,
    present: (result: R) => unknown,
    { oneWrite = false, resets, first, where }: WriteOptions = {},
  ): Promise<unknown> {
    const run = {
      ...this.eventRun(request, action, instance),
      ...(resets?.size ? { resets } : {}),
      ...(where ? { where } : {}),
    };
    const prepare = (data: Rec) => this.prepareWrite(data, clientOf(request));
    const recorded =
      // An update whose event carries the object as it was reads it first, in the transaction.
      // A username claims its plain form in the transaction (lib/auth/login-names.ts).
      oneWrite && !hasHandlers(run) && isEventAction(action) && !this.model.eventPrevious && !this.namesLogin(body)
        ? this.repository().recordedWrites?.(action, () => assertInTime(request))
        : undefined;
    if (recorded)
      return inTransaction(this.services.db, run, body, prepare, (db, data) => work(db, data, recorded), present, {
        alone: true,
      });
    return inTransaction(
      this.services.db,
      run,
      body,
      prepare,
      (db, data) => work(db, data, this.recording(db, request)),
      present,
      first ? { first } : {},
    );
  }

  /** The writes of this route's model on `db` (the write's transaction), each recording its event there. */
  recording(db: ServiceDatabase, request: FastifyRequest): RecordedWrites {
    const repository = this.repository(db);
    const movedObjects = { request, events: this.services.events };
    return {
      create: (args) =>
        withMovedLinks(
          db,
          this.model,
          undefined,
          args.data,
          async () => {
            await this.claimLogin(db, args.data, undefined, request);
            const created = await repository.create(args);
            await this.record(db, 'create', [created]);
            return created;
          },
          movedObjects,
        ),
      update: (args, action) =>
        withMovedLinks(
          db,
          this.model,
          args.where[this.model.primaryKey],
          args.data,
          async () => {
            await this.claimLogin(db, args.data, args.where[this.model.primaryKey], request);
            const before = await this.previousOf(db, args.where[this.model.primaryKey]);
            const updated = await repository.update(args);
            await this.record(db, action, [updated], [before]);
            return updated;
          },
          movedObjects,
        ),
      delete: (args, before) =>
        withCascades(
          db,
          this.model,
          [args.where[this.model.primaryKey]],
          async () => {
            const deleted = await repository.delete(args);
            // Its own fields and links as the delete found them (another write may have changed them
            // since it was read: a probe's delete event named the owner it no longer had); the links
            // kept in other objects' rows as read.
            await this.record(db, 'delete', [before ? { ...before, ...deleted } : deleted]);
          },
          cascadeJudge(this.policy, request),
        ),
    };
  }

  /** Whether `data` writes a user's username, which claims its plain form (lib/auth/login-names.ts). */
  namesLogin(data: Rec): boolean {
    return this.services.loginNames?.model === this.model.name && 'username' in data;
  }

  /** Inside the write's transaction, before `data` is stored for the object keyed `key`: its username's claim. */
  async claimLogin(db: ServiceDatabase, data: Rec, key: unknown, request: FastifyRequest): Promise<void> {
    if (this.namesLogin(data)) await this.services.loginNames!.claim(db, data, key, request);
  }

  /**
   * Appends the events of changed objects (`objects`: after the change; for a delete, before it)
   * to the outbox on `db`, the write's transaction.
   */
  record(
    db: ServiceDatabase,
    action: EventAction,
    objects: readonly Rec[],
    befores: readonly (Rec | undefined)[] = [],
  ): Promise<void> {
    return db.appendEvents(objects.map((object, i) => newEvent(db.models, this.model, action, object, befores[i])));
  }

  /**
   * The object `key` as it is before an update, for the `previous` of its event: read under the
   * row lock the update takes (another write cannot slip in between), with its links' keys as
   * the event names them. Undefined for a model without `eventPrevious`, which reads nothing.
   */
  async previousOf(db: ServiceDatabase, key: unknown): Promise<Rec | undefined> {
    if (!this.model.eventPrevious) return undefined;
    const repository = this.repository(db);
    await repository.lockForUpdate(key);
    const found = await repository.findUnique({
      where: { [this.model.primaryKey]: key },
      include: linkKeys(this.model),
    });
    return found ?? undefined;
  }

  /** Reads run their handlers inside a transaction only when there are handlers. */
  async withEvents(
    request: FastifyRequest,
    action: Action,
    instance: Rec | undefined,
    work: (db: ServiceDatabase) => Promise<unknown>,
  ): Promise<unknown> {
    return withEvents(this.services.db, this.eventRun(request, action, instance), work);
  }

  eventRun(request: FastifyRequest, action: Action, instance: Rec | undefined): EventRun {
    return {
      model: this.model,
      events: this.services.events?.get(this.model.name),
      action,
      request,
      ...(instance ? { instance: this.asTyped(instance) } : {}),
    };
  }

  /** An object of this route's model as user code gets it: related objects as keys (`withLinkKeys`). */
  asTyped(object: Rec): Rec {
    return withLinkKeys(this.model, object, this.services.db.models);
  }

  body(request: FastifyRequest): Rec {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('the request body must be a JSON object');
    }
    return body as Rec;
  }

  /** Data ready to store (Services.prepareWrite); `client`: the address whose share of the hashing queue this takes. */
  async prepareWrite(data: Rec, client?: string): Promise<Rec> {
    return this.services.prepareWrite ? this.services.prepareWrite(this.model, data, client) : data;
  }

  /**
   * The object the URL names (for an attribute route, the parent item), once the caller may use
   * `permission` on it. When the decision does not depend on the object, it is made first: a
   * refused caller cannot probe which keys exist.
   */
  async authorizedObject(request: FastifyRequest, permission: Permission): Promise<Rec> {
    const checked = authorized.get(request);
    if (checked) return checked;
    const early = !this.policy.needsObject(this.route);
    if (early && !authorizedByKey.has(request)) await this.policy.authorize(request, permission, this.route, {});
    const object =
      this.route.kind === 'attribute' ? await this.parent(this.services.db, request) : await this.load(request);
    if (!early) await this.authorizeLoaded(request, permission, object);
    // Only a write asks twice (its guard, then its handler); a weak map's entry costs a read for nothing.
    if (request.method !== 'GET' && request.method !== 'HEAD') authorized.set(request, object);
    return object;
  }

  /**
   * The decision on the object the URL names. Hidden from the caller (`auth.hide_refused`), a
   * parent's one-to-one object is answered as when the parent has none, word for word.
   */
  private async authorizeLoaded(request: FastifyRequest, permission: Permission, object: Rec): Promise<void> {
    try {
      await this.policy.authorize(request, permission, this.route, this.asTyped(object));
    } catch (error) {
      if (this.route.kind === 'singular' && error instanceof HttpError && error.statusCode === 404)
        throw notFound(`${this.parentNamed(request)} has no ${this.route.parent!.field}`);
      throw error;
    }
  }

  /**
   * Whether a write of the item the URL names can go to the database by its key alone, without
   * reading the object first (one round trip where there were two): nothing wants the object —
   * no If-Match, no handler or processor that sees it as `instance`, a policy that decides on the
   * route and the fields alone, no link it guards moving, nothing the body may say back of the
   * object as its GET answered it (echoes.ts) — and for a delete the engine appends
   * the event with the write as one step (its event is then the row the delete returns). An
   * object that does not exist is the write's own 404 (`RecordNotFound`).
   */
  writesByKey(request: FastifyRequest, action: 'update' | 'replace' | 'delete', body: Rec): boolean {
    return (
      this.route.kind === 'item' &&
      !this.route.parent &&
      !hasPrecondition(request) &&
      !this.policy.needsObject(this.route) &&
      !this.policy.fieldsNeedObject(this.model) &&
      !movesLinks(this, body, action) &&
      !mayEcho(this.model, body) &&
      !hasEmbeddedLinks(request) &&
      !hasHandlers(this.eventRun(request, action, undefined)) &&
      (action !== 'delete' || this.repository().recordedWrites?.(action, noCheck) !== undefined)
    );
  }

  /** The decision of `authorizedObject` when it does not depend on the object, without reading it. */
  async authorizeByKey(request: FastifyRequest, permission: Permission): Promise<void> {
    if (authorizedByKey.has(request)) return;
    await this.policy.authorize(request, permission, this.route, {});
    authorizedByKey.add(request);
  }

  /** The key of the item the URL names, as the routes look it up (`/users/self` is the caller). */
  itemKey(request: FastifyRequest): unknown {
    return this.#keyNamed(request, this.model, this.route.itemParam!);
  }

  /**
   * The key the URL's parameter `param` names an object of `model` by (`self`: the caller). The
   * answer's own URLs (a list's `_self` and `next`, a `Location`) then name it by that key too: one
   * that said `/users/self/notes` named whoever followed it (a probe's admin deleted their own note by
   * a member's link).
   */
  #keyNamed(request: FastifyRequest, model: Model, param: string): unknown {
    const named = (request.params as Rec)[param];
    const key = this.policy.itemKey(request, model, named);
    if (key !== named) namedBySelf(request, param, key);
    return key;
  }

  withUpdateDefaults(data: Rec): Rec {
    const out: Rec = { ...data };
    for (const field of this.model.fields)
      if (field.onUpdate && !(field.name in data)) out[field.name] = field.onUpdate();
    return out;
  }

  /** The item the URL names (404 if there is none, or if it is not the parent's). */
  async load(request: FastifyRequest): Promise<Rec> {
    const db = this.services.db;
    if (this.route.kind === 'singular') {
      const found = await this.repository(db).findFirst({
        where: await this.scope(db, request),
        include: includeFor(this.model, db.models),
      });
      if (!found) throw notFound(`${this.parentNamed(request)} has no ${this.route.parent!.field}`);
      return found;
    }
    const key = this.itemKey(request);
    const scope = await this.scope(db, request);
    const found = await findInScope(this.repository(db), this.model, key, scope, includeFor(this.model, db.models));
    if (!found) throw notFound(`${this.model.name} ${String(key)} not found`);
    return found;
  }

  /** Nested routes: the field of this route's objects that points at the parent item. */
  get inverse(): string | undefined {
    const parent = this.route.parent;
    return parent && this.route.kind !== 'attribute' ? parent.model.relation(parent.field)!.inverse : undefined;
  }

  /** Nested routes: only the parent's related objects. The same condition links a new object to the parent. */
  async scope(db: ServiceDatabase, request: FastifyRequest): Promise<Rec> {
    const inverse = this.inverse;
    return inverse ? { [inverse]: await this.parentKey(db, request) } : {};
  }

  /**
   * The key of the parent the URL names, once the caller may view it: a parent they may not view
   * by the object (a principal decides) is answered as one that does not exist (404), so that
   * what lies below it (an empty list, "has no record") does not tell which hidden keys exist, or
   * what they have; one refused whatever it is, with the parent's own 401 or 403.
   */
  async parentKey(db: ServiceDatabase, request: FastifyRequest): Promise<unknown> {
    const { parent, model } = await this.#viewedParent(db, request);
    return parent[model.primaryKey];
  }

  /**
   * What a nested create links its object to: the parent the URL names, read once, as a link in
   * its body would be checked (relinks.ts, `linkTarget`). A parent the caller may not view is one
   * that does not exist (`parentKey`), and a one-to-one parent's only partner is taken only by a
   * caller who may update that parent.
   */
  async createdLink(db: ServiceDatabase, request: FastifyRequest): Promise<Rec> {
    const inverse = this.inverse;
    if (!inverse) return {};
    const { parent, model, route } = await this.#viewedParent(db, request);
    const key = parent[model.primaryKey];
    const takesPartner = model.relation(this.route.parent!.field)?.cardinality === 'one';
    if (route && takesPartner && !(await mayChangeByLink(this.policy, request, model, parent))) {
      const error = this.policy.refusal(request, `change ${model.name} ${String(key)}`);
      throw relinkRefusal(error.statusCode, error.message, [{ field: inverse, model: model.name, key }], error.headers);
    }
    return { [inverse]: key };
  }

  /**
   * `permission` on the route's collection (a create, a list, a bulk change). Below a parent whose
   * collection rules call user functions, the parent the URL names is read first (404 when the
   * caller may not view it) and given to them (`AclRule.parent`): `allow {{space_member}} create`
   * decides by the space the page is made in.
   */
  async authorizeCollection(request: FastifyRequest, permission: Permission, body?: Rec): Promise<void> {
    if (!this.policy.collectionNeedsParent(this.route)) return this.policy.authorize(request, permission, this.route);
    if (!this.route.parent) {
      // A create on a flat route that puts its object below a parent: its rules are given that parent.
      const named = body ? await this.#parentInBody(request, body) : undefined;
      if (!named) return this.policy.authorize(request, permission, this.route);
      const below = { ...this.route, parent: { model: named.model } };
      return this.policy.authorize(request, permission, below, undefined, named.parent);
    }
    // Read with its links as keys (#viewedParent): as its model's type has it.
    const { parent } = await this.#viewedParent(this.services.db, request);
    return this.policy.authorize(request, permission, this.route, undefined, parent);
  }

  /**
   * The parent a flat create's body puts its object below (a plot's `garden`, where
   * `/gardens/{id}/plots` creates plots below a garden), read with its links as keys, as a nested
   * route's collection rules are given theirs (`rule.parent`): a coordinator who may create plots
   * in her garden may do so through `POST /plots` too (a probe's was refused there, while the matrix
   * said she could). The first such link the body names; none where it names none. One the caller
   * may not view is one that does not exist, as the link's own check (relinks.ts) answers it, and
   * as a key that names nothing is: a 400 naming the field, before any rule is given it (a probe's
   * hidden parent got a 403 where a missing one got the 400, which told one from the other, with
   * `auth.hide_refused` on too). Whether the caller may create below it, the link's checks ask.
   */
  async #parentInBody(request: FastifyRequest, body: Rec): Promise<{ parent: Rec; model: Model } | undefined> {
    for (const relation of this.model.relations) {
      const key = body[relation.name];
      if (!relation.local || !relation.createdBelow?.length || key === undefined || key === null) continue;
      const target = this.services.db.models.get(relation.target);
      const repository = target && this.services.db.repository(target.name);
      const value = repository?.keyValue(typeof key === 'object' ? undefined : key);
      if (!target || !repository || value === undefined) continue;
      const parent = await repository.findUnique({ where: { [target.primaryKey]: value }, include: linkKeys(target) });
      const route = modelRoute(target);
      if (!parent || !(await this.policy.may(request, 'view', route, route.kind === 'item' ? parent : undefined)))
        throw new UnknownReference(relation.name, target.name, [key]);
      return { parent, model: target };
    }
    return undefined;
  }

  /**
   * The parent the URL names once the caller may view it (else 404), and the route whose rules
   * decide on its model's objects (none with auth off). Where the route's collection rules are
   * given it, read once a request (the guard, the create and its link ask), with its links as keys.
   */
  #viewedParent(db: ServiceDatabase, request: FastifyRequest): Promise<ViewedParent> {
    this.#checkLinkReadable(request);
    if (!this.policy.collectionNeedsParent(this.route)) return this.#readViewedParent(db, request, false);
    let read = this.#viewedParents.get(request);
    if (!read) this.#viewedParents.set(request, (read = this.#readViewedParent(db, request, true)));
    return read;
  }

  /**
   * A nested route finds its objects by their link to the parent (a proposal's `speaker` below
   * `/speakers/{id}/proposals`): a caller who may not read that link (field privacy) may not use
   * the route, or its answers would tell what the field hides (whose proposals these are), where a
   * filter by it is refused. 401 or 403, before the parent is looked up. The link is read where
   * either its name or its foreign key's is among the caller's fields.
   */
  #checkLinkReadable(request: FastifyRequest): void {
    const inverse = this.inverse;
    if (!inverse || !this.policy.restricts) return;
    const visible = this.policy.visibleFields(request, this.model);
    const link = this.model.relation(inverse);
    if (!visible || visible.has(inverse) || (link?.local && visible.has(link.foreignKey))) return;
    throw this.policy.refusal(request, `read ${inverse} of a ${this.model.name}, which this route lists them by`);
  }

  /** `#viewedParent`, read; with its links as keys when the decision depends on it (its principals see them), or when `typed`. */
  async #readViewedParent(db: ServiceDatabase, request: FastifyRequest, typed: boolean): Promise<ViewedParent> {
    const model = generic(this.route.parent!.model);
    if (!this.policy.restricts) return { parent: await this.parent(db, request), model, route: undefined };
    const route = modelRoute(model);
    const onItem = route.kind === 'item';
    // Refused whatever the parent is (logged out, a group's line): said as its own URL says it,
    // before it is read, which tells nothing of which keys exist.
    const byObject = onItem && this.policy.needsObject(route);
    if (!byObject && !(await this.policy.may(request, 'view', route, onItem ? {} : undefined)))
      throw this.policy.refusal(request, `read ${this.parentNamed(request)}`);
    const parent = await this.parent(
      db,
      request,
      typed || (onItem && this.policy.needsObject(route)) ? linkKeys(model) : undefined,
    );
    if (!(await this.policy.may(request, 'view', route, onItem ? parent : undefined)))
      throw notFound(`${this.parentNamed(request)} not found`);
    return { parent, model, route };
  }

  /**
   * The parent item the URL names (404 if there is none, or if it is not the object of the item
   * above it that the URL names); `include`: what of its relationships to read.
   */
  async parent(db: ServiceDatabase, request: FastifyRequest, include?: Include<Rec>): Promise<Rec> {
    const parent = this.route.parent!;
    const key = this.#keyNamed(request, generic(parent.model), parent.param);
    const scope = this.#parentItem ? await this.#parentItem.scope(db, request) : {};
    const found = await findInScope(db.repository(parent.model.name), parent.model, key, scope, include);
    if (!found) throw notFound(`${parent.model.name} ${String(key)} not found`);
    return found;
  }

  /** The parent the URL names, as messages name it: `User ann` for `/users/self/…` too. */
  parentNamed(request: FastifyRequest): string {
    const parent = this.route.parent!;
    const key = this.#keyNamed(request, generic(parent.model), parent.param);
    return `${parent.model.name} ${String(key)}`;
  }

  fieldOfParent() {
    return this.route.parent!.model.field(this.route.parent!.field)!;
  }

  /**
   * A relationship write moves only links the caller may move (lib/http/relinks.ts): else 401/403.
   * Gives the data to write: where it sets links kept in other objects' rows, those to objects the
   * caller may not view, which they were not shown, stay (lib/http/hidden-links.ts).
   */
  async checkRelinks(
    db: ServiceDatabase,
    request: FastifyRequest,
    write: Omit<LinkWrite, 'model'> & { readonly key?: unknown },
  ): Promise<Rec> {
    // A model without relationships moves no link: none of the four checks below has anything to do.
    if (this.model.relations.length === 0) return write.data;
    const { key, ...rest } = write;
    const ownKey = key ?? write.object?.[this.model.primaryKey];
    await refuseUnknownLinks(this.policy, request, db, this.model, write.data, write.fields);
    const data = await keepHiddenLinks(this.policy, request, db, this.model, ownKey, write.data);
    await checkRelinks(this.policy, request, db, { model: this.model, ...rest, data });
    // After the refusal of what the caller may not change: one who may not is told so first.
    await refuseRequiredUnlinks(db, this.model, ownKey, data);
    return data;
  }

  /** The client's filters, on links kept in other models' rows only through objects the caller may view (hidden-links.ts). */
  filtersAmongViewable(request: FastifyRequest, where: Where<Rec>): Promise<Where<Rec>> {
    return filtersAmongViewable(this.policy, request, this.services.db.models, this.model, where);
  }

  /** Links to objects the caller may not view are hidden (lib/http/hidden-links.ts). */
  hideRefusedLinks(
    request: FastifyRequest,
    records: readonly Rec[],
    db: ServiceDatabase = this.services.db,
  ): Promise<void> {
    return hideRefusedLinks(this.policy, request, db, this.model, records);
  }

  serializer(request: FastifyRequest, fields?: readonly string[]): Serializer {
    return serialize({
      baseUrl: `${requestOrigin(request)}${this.services.basePath}`,
      requestUrl: requestUrl(request),
      ownUrl: (record) => this.#ownUrl(request, record),
      fields,
      visible: (model, record) => this.policy.visibleFields(request, model, record),
      models: this.services.db.models,
    });
  }

  /**
   * The URL of an object of this route that names none itself (served only below a grandparent): the
   * route's path with each parent's key as the request named it, and the object's own (an item's,
   * or below a collection's), each encoded anew. Not the request's path as sent: a key with `\` and
   * `..` in it, resolved by a URL parser, made a link to another parent's object (a probe's).
   */
  #ownUrl(request: FastifyRequest, record: Rec): string {
    const pattern = request.routeOptions.url;
    const pk = record[this.model.primaryKey];
    const below = this.route.kind === 'collection' && this.route.itemParam !== undefined;
    if (
      !pattern ||
      pk === null ||
      pk === undefined ||
      !(below || this.route.kind === 'item' || this.route.kind === 'singular')
    )
      return requestUrl(request);
    const params = request.params as Record<string, string>;
    const segments = pattern.split('/').map((segment) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      const key =
        this.route.kind === 'item' && name === this.route.itemParam ? pk : (keyForSelf(request, name) ?? params[name]);
      return encodeURIComponent(text(key));
    });
    if (below) segments.push(encodeURIComponent(text(pk)));
    return `${requestOrigin(request)}${segments.join('/')}`;
  }

  /** The response of a create: the object, with `Location` naming its URL and its ETag. */
  present(request: FastifyRequest, reply: FastifyReply, object: Rec): Rec {
    const body = this.serializer(request).object(this.model, object);
    if (typeof body['_self'] === 'string') reply.header('location', body['_self']);
    reply.header('etag', etagOf(body));
    return body;
  }

  /**
   * The answer of a change, unless the caller may not view the object it left (`update` without
   * `view`, as a banned owner has): then that it was done, with no ETag and nothing of the object
   * (src/acl/unseen-writes.ts says where this can happen, for the OpenAPI document and the
   * client). Decided after the after handlers, whatever they set on the answer. `readable`: the
   * caller's privacy level reads what the answer shows (an attribute's field).
   */
  async shownChange(
    request: FastifyRequest,
    reply: FastifyReply,
    object: Rec | undefined,
    answer: unknown,
    readable = true,
  ): Promise<unknown> {
    if (!this.policy.restricts || object === undefined || (readable && (await this.mayView(request, object))))
      return answer;
    reply.removeHeader('etag');
    reply.removeHeader('location');
    return statusBody(reply.statusCode, 'Updated (you may not read it)', requestUrl(request));
  }

  /** Whether the caller may view `object`, as this route's GET would decide (an item's, a singular's, an attribute's parent). */
  mayView(request: FastifyRequest, object: Rec): Promise<boolean> {
    return this.policy.may(request, 'view', this.route, this.asTyped(object));
  }

  /**
   * Whether the caller's rights on the item are decided by the object (an owner's principal, a
   * member's own record): a write must then be judged again on the object as it is when written.
   */
  judgesObject(): boolean {
    return this.policy.needsObject(this.route) || this.policy.fieldsNeedObject(this.model);
  }

  /** The decision on an object the write read again under its row lock (`checkCurrent`): as made on the object before, on it as it is now. */
  async rejudge(request: FastifyRequest, judged: Judged, current: Rec): Promise<void> {
    await this.authorizeLoaded(request, judged.permission, current);
    if (this.policy.fieldsNeedObject(this.model))
      this.policy.checkWritable(request, this.model, judged.fields, current);
  }

  /**
   * In the write's transaction, before anything is written: the object `key` read again under a
   * row lock, where a decision was made on it as read before. Where the ACL decides by the object,
   * the caller must still be allowed what was `judged` (the permission and the fields written) on
   * the object as it is now: another write may have changed it since (a probe's vet moved an
   * appointment to another owner's pet while its former owner kept writing it, and one of her
   * PATCHes changed it as the other owner's). If-Match: it must still be the one the caller saw
   * (412 otherwise, and nothing is written).
   */
  async checkCurrent(db: ServiceDatabase, request: FastifyRequest, key: unknown, judged: Judged): Promise<void> {
    const rejudge = this.judgesObject();
    if (!hasPrecondition(request) && !rejudge) return;
    const repository = this.repository(db);
    await repository.lockForUpdate(key);
    const current = await repository.findUnique({
      where: { [this.model.primaryKey]: key },
      include: includeFor(this.model, this.services.db.models),
    });
    if (!current) throw notFound(`${this.model.name} ${String(key)} not found`);
    if (rejudge) await this.rejudge(request, judged, current);
    if (!hasPrecondition(request)) return;
    // One who may not view it has seen no version of it: no guess of its tag is let through.
    if (this.policy.restricts && !(await this.mayView(request, current))) {
      checkIfMatch(request, undefined);
      return;
    }
    await this.hideRefusedLinks(request, [current], db);
    checkIfMatch(request, etagOf(this.serializer(request).object(this.model, current)));
  }
}

/**
 * The object with the key the URL gives among those `scope` selects (a nested route's parent's), or
 * null: also for a key the model's key cannot hold (`abc` for an integer key). Without a scope, by
 * its key alone.
 */
function findInScope(
  repository: EngineRepository,
  model: AnyModel,
  key: unknown,
  scope: Rec,
  include: Include<Rec> | undefined,
): Promise<Rec | null> {
  const value = repository.keyValue(key);
  if (value === undefined) return Promise.resolve(null);
  const read = include ? { include } : {};
  return Object.keys(scope).length
    ? repository.findFirst({ where: combine({ [model.primaryKey]: value }, scope), ...read })
    : repository.findUnique({ where: { [model.primaryKey]: key }, ...read });
}

/** Both conditions (either may be empty). */
export function combine(a: Where<Rec>, b: Where<Rec>): Where<Rec> {
  if (Object.keys(b).length === 0) return a;
  if (Object.keys(a).length === 0) return b;
  return { AND: [a, b] };
}

/** `recordedWrites`' deadline check, when asking only whether an engine has them. */
const noCheck = (): void => undefined;

/**
 * Whether a write may move links the policy guards (relinks.ts reads the objects first): when it
 * restricts, any relationship in the body does, and a PUT empties the links of its own row it
 * leaves out.
 */
export function movesLinks(ctx: RouteContext, body: Rec, action: 'create' | 'update' | 'replace' | 'delete'): boolean {
  if (!ctx.policy.restricts || action === 'delete') return false;
  return ctx.model.relations.some((r) => body[r.name] !== undefined || (action === 'replace' && r.local));
}

/**
 * Whether `body` names something only a copy of the object's answer carries: its own names, or a
 * field no client writes (read-only, a foreign key) or changes (write-once). A change of such a body reads its object
 * first, which echoes.ts `withoutEchoes` compares the body with.
 */
function mayEcho(model: Model, body: Rec): boolean {
  for (const name in body) {
    if (isAnswerName(name)) return true;
    const field = model.field(name);
    if (field && (field.readOnly || field.writeOnce || field.type === 'foreign_key')) return true;
  }
  return false;
}

function isEventAction(action: Action): action is 'create' | 'update' | 'replace' | 'delete' {
  return action === 'create' || action === 'update' || action === 'replace' || action === 'delete';
}
