/**
 * What each route does: the actions of Ramses (index, create, show, update, replace, delete,
 * update_many, delete_many) on collections, items,
 * singular sub-resources (`/users/{username}/profile`) and attribute sub-resources
 * (`/users/{username}/settings`). Every write runs in one transaction with its event handlers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, conflict, notFound, statusBody, type FieldError } from '../errors.js';
import { inTransaction, withEvents, type Action, type EventRun, type ServiceEvents } from '../events.js';
import { generic, wholeNumber, withDefaults, type AnyModel, type FieldSpec, type Model } from '../model.js';
import type { EngineRepository, ServiceDatabase } from '../database.js';
import type { Where } from '../repository.js';
import type { Permission, Policy } from './policy.js';
import type { CorsSettings } from './routing.js';
import { parseItemFields, parseListQuery, parseValue } from './query.js';
import { untilAnswered } from './deadline.js';
import { checkIfMatch, etagOf, hasIfMatch } from './etag.js';
import { hideRefusedEmbeds } from './embedded.js';
import { includeFor, serialize, type Serializer } from './serialize.js';

type Rec = Record<string, unknown>;
type Query = Record<string, string | string[] | undefined>;

export interface RouteSpec {
  readonly kind: 'collection' | 'item' | 'singular' | 'attribute';
  /** The model whose objects the route serves (the parent's model, for an attribute route). */
  readonly model: AnyModel;
  /** The path parameter with the item's key (item routes). */
  readonly itemParam?: string;
  /** Nested routes: the parent item, and its relationship (or dict/list field) this route follows. */
  readonly parent?: { readonly model: AnyModel; readonly param: string; readonly field: string };
  readonly acl: string | null;
}

/** What the actions need from the app. */
export interface Services {
  readonly db: ServiceDatabase;
  readonly policy: Policy;
  /** Replaces the secrets (passwords) in data to be written by their hashes. */
  readonly hashSecrets?: (model: Model, data: Rec) => Promise<Rec>;
  /** The handlers and processors of every model (src/events.ts). */
  readonly events?: ServiceEvents;
  readonly basePath: string;
  readonly defaultLimit: number;
  /** `max_offset`: the furthest a page may start. */
  readonly maxOffset: number;
  /** `bulk_max`: the most objects one collection PATCH, PUT or DELETE may change. */
  readonly bulkMax: number;
  readonly cors: CorsSettings;
}

/** Keys per statement in bulk deletes (SQLite takes at most 32,766 parameters). */
const BULK_SLICE = 500;

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** The object a request was authorized on (by the guard, before its body was validated), so it is read once. */
const authorized = new WeakMap<FastifyRequest, Rec>();

/** The handlers of one route, bound to it. */
export function actionsFor(services: Services, route: RouteSpec) {
  const a = new Actions(services, route);
  const handler =
    (work: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): Handler =>
    (req, reply) =>
      untilAnswered(req, reply, work(req, reply));
  return {
    index: handler((req) => a.index(req)),
    create: handler((req, reply) => a.create(req, reply)),
    updateMany: handler((req) => a.updateMany(req)),
    deleteMany: handler((req) => a.deleteMany(req)),
    show: handler((req, reply) => a.show(req, reply)),
    update: handler((req, reply) => a.update(req, reply, 'update')),
    replace: handler((req, reply) => a.update(req, reply, 'replace')),
    delete: handler((req) => a.delete(req)),
    options: (req: FastifyRequest) => a.options(req),
    /** Before the body is validated: a caller who may not write here gets 401/403, not a 400 about the body. */
    guard: (req: FastifyRequest) => a.guard(req),
  };
}

class Actions {
  constructor(
    readonly services: Services,
    readonly route: RouteSpec,
  ) {}

  get model(): Model {
    return generic(this.route.model);
  }

  get policy(): Policy {
    return this.services.policy;
  }

  repository(db: ServiceDatabase = this.services.db): EngineRepository {
    return db.repository(this.model.name);
  }

  // --- reads -------------------------------------------------------------------------------------

  async index(request: FastifyRequest): Promise<unknown> {
    if (this.route.kind === 'attribute') return this.attribute(request);
    const started = performance.now();
    await this.policy.authorize(request, 'view', this.route);
    const query = parseListQuery(this.model, request.query as Query, {
      defaultLimit: this.services.defaultLimit,
      maxLimit: this.policy.maxLimit(request),
      maxOffset: this.services.maxOffset,
      visible: this.policy.visibleFields(request, this.model),
    });
    return this.withEvents(request, 'index', undefined, async (db) => {
      const scope = await this.scope(db, request);
      const where = combine(query.where, scope);
      const repository = this.repository(db);
      if (query.count) return { count: await repository.count({ where }) };
      const count = () => repository.count({ where });
      const find = () =>
        repository.findMany({
          where,
          orderBy: query.orderBy,
          skip: query.skip,
          take: query.take,
          include: includeFor(this.model, this.services.db.models),
        });
      // Inside a transaction (index handlers) one query at a time: MongoDB takes no more.
      const [total, records] =
        db === this.services.db ? await Promise.all([count(), find()]) : [await count(), await find()];
      await this.hideRefusedEmbeds(request, records);
      const serializer = this.serializer(request, query.fields);
      const data = records.map((r) => serializer.object(this.model, r));
      return {
        total,
        count: data.length,
        start: query.skip,
        took: Math.round(performance.now() - started),
        fields: query.fieldsText,
        data,
      };
    });
  }

  async show(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const fields = parseItemFields(this.model, request.query as Query, this.policy.visibleFields(request, this.model));
    const object = await this.authorizedObject(request, 'view');
    return this.withEvents(request, 'show', object, async () => {
      await this.hideRefusedEmbeds(request, [object]);
      // Of the whole object, whatever `_fields` asks for: the tag a later If-Match compares with.
      reply.header('etag', etagOf(this.serializer(request).object(this.model, object)));
      return this.serializer(request, fields).object(this.model, object);
    });
  }

  /** `/users/{username}/settings`: the dict or list value; POST merges into it. */
  async attribute(request: FastifyRequest): Promise<unknown> {
    const parent = await this.authorizedObject(request, 'view');
    const name = this.route.parent!.field;
    const seen = this.policy.visibleFields(request, generic(this.route.parent!.model), parent);
    if (seen && !seen.has(name)) throw this.policy.refusal(request, `read ${name}`);
    return parent[name] ?? (this.fieldOfParent().type === 'list' ? [] : {});
  }

  // --- writes ------------------------------------------------------------------------------------

  async create(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (this.route.kind === 'attribute') return this.mergeAttribute(request, reply);
    const body = this.body(request);
    this.checkBody(request, body, 'create');
    await this.policy.authorize(request, 'create', this.route);
    reply.code(201);
    return this.write(
      request,
      'create',
      body,
      undefined,
      async (db, data) => {
        const link = await this.scope(db, request);
        if (this.route.kind === 'singular' && (await this.repository(db).findFirst({ where: link }))) {
          throw conflict(
            `${this.route.parent!.model.name} ${String((request.params as Rec)[this.route.parent!.param])} already has a ${this.route.parent!.field}`,
          );
        }
        const created = await this.repository(db).create({
          data: withDefaults(this.model, { ...data, ...link }),
          include: includeFor(this.model, this.services.db.models),
        });
        await this.hideRefusedEmbeds(request, [created]);
        return created;
      },
      (created) => this.present(request, reply, created),
      // Under a parent (and for a singular one, checked first) the link is read before the insert.
      !this.route.parent,
    );
  }

  async update(request: FastifyRequest, reply: FastifyReply, action: 'update' | 'replace'): Promise<unknown> {
    const body = this.body(request);
    this.checkBody(request, body, action);
    const object = await this.authorizedObject(request, 'update');
    this.policy.checkWritable(request, this.model, Object.keys(body), object);
    this.checkKeyUnchanged(body, object);
    return this.write(
      request,
      action,
      body,
      object,
      async (db, data) => {
        await this.checkUnchanged(db, request, object);
        const values = action === 'replace' ? this.replacement(data) : this.withUpdateDefaults(data);
        const updated = await this.repository(db).update({
          where: { [this.model.primaryKey]: object[this.model.primaryKey] },
          data: values,
          include: includeFor(this.model, this.services.db.models),
        });
        await this.hideRefusedEmbeds(request, [updated]);
        return updated;
      },
      (updated) => this.present(request, reply, updated),
      // If-Match reads the object again under a row lock: that takes the transaction.
      !hasIfMatch(request),
    );
  }

  async delete(request: FastifyRequest): Promise<unknown> {
    const object = await this.authorizedObject(request, 'delete');
    return this.write(
      request,
      'delete',
      {},
      object,
      async (db) => {
        await this.checkUnchanged(db, request, object);
        return this.repository(db).delete({ where: { [this.model.primaryKey]: object[this.model.primaryKey] } });
      },
      () => statusBody(200, 'Deleted', requestUrl(request)),
      !hasIfMatch(request),
    );
  }

  /** PATCH/PUT on a collection: the objects matching the filters, in one transaction, each checked against its item ACL. */
  async updateMany(request: FastifyRequest): Promise<unknown> {
    const body = this.body(request);
    this.checkBody(request, body, 'update_many');
    if (this.model.primaryKey in body)
      throw badRequest(`the primary key ${this.model.primaryKey} cannot change`, [
        { field: this.model.primaryKey, message: 'cannot be changed' },
      ]);
    await this.policy.authorize(request, 'update', this.route);
    const where = await this.bulkWhere(request);
    return this.write(
      request,
      'update_many',
      body,
      undefined,
      async (db, data) => {
        const objects = await this.bulkObjects(db, where);
        for (const object of objects) await this.policy.authorize(request, 'update', this.route, object);
        const values = this.withUpdateDefaults(data);
        for (const object of objects)
          await this.repository(db).update({
            where: { [this.model.primaryKey]: object[this.model.primaryKey] },
            data: values,
          });
        return objects.length;
      },
      (count) => statusBody(200, `Updated ${count} ${this.model.name}(s) objects`, requestUrl(request), { count }),
    );
  }

  async deleteMany(request: FastifyRequest): Promise<unknown> {
    await this.policy.authorize(request, 'delete', this.route);
    const where = await this.bulkWhere(request);
    return this.write(
      request,
      'delete_many',
      {},
      undefined,
      async (db) => {
        const objects = await this.bulkObjects(db, where);
        for (const object of objects) await this.policy.authorize(request, 'delete', this.route, object);
        const keys = objects.map((o) => o[this.model.primaryKey]);
        for (let i = 0; i < keys.length; i += BULK_SLICE) {
          await this.repository(db).deleteMany({
            where: { [this.model.primaryKey]: { in: keys.slice(i, i + BULK_SLICE) } },
          });
        }
        return keys.length;
      },
      (count) => statusBody(200, `Deleted ${count} ${this.model.name}(s) objects`, requestUrl(request), { count }),
    );
  }

  /** POST on a dict/list attribute: dict keys are merged; list items are added (`"-item"` removes). */
  async mergeAttribute(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const body = this.body(request);
    const parentModel = generic(this.route.parent!.model);
    const name = this.route.parent!.field;
    const field = this.fieldOfParent();
    const parent = await this.authorizedObject(request, 'update');
    this.policy.checkWritable(request, parentModel, [name], parent);
    reply.code(201);
    return this.write(
      request,
      'update',
      { [name]: body },
      parent,
      async (db, data) => {
        const repository = db.repository(parentModel.name);
        const key = parent[parentModel.primaryKey];
        // Read the value again, under a row lock: two merges at the same time must both land.
        await repository.lockForUpdate(key);
        const fresh = await repository.findUnique({ where: { [parentModel.primaryKey]: key } });
        const current = (fresh?.[name] ?? (field.type === 'list' ? [] : {})) as Rec | unknown[];
        const change = (data[name] ?? {}) as Rec;
        const merged =
          field.type === 'list' ? mergeList(field, current as unknown[], change) : { ...(current as Rec), ...change };
        await repository.update({
          where: { [parentModel.primaryKey]: key },
          data: { ...this.withUpdateDefaults({ [name]: merged }) },
        });
        return merged;
      },
      (merged) => merged,
    );
  }

  // --- helpers -----------------------------------------------------------------------------------

  /**
   * Runs a write in one transaction with the model's handlers: before handlers and processors
   * may change the data, after handlers the response; if anything throws, nothing is written.
   * `atomic`: `work` is a single repository write (see `inTransaction`).
   */
  async write<R>(
    request: FastifyRequest,
    action: Action,
    body: Rec,
    instance: Rec | undefined,
    work: (db: ServiceDatabase, data: Rec) => Promise<R>,
    present: (result: R) => unknown,
    atomic = false,
  ): Promise<unknown> {
    const run = this.eventRun(request, action, instance);
    return inTransaction(this.services.db, run, body, (data) => this.hashSecrets(data), work, present, atomic);
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
      ...(instance ? { instance } : {}),
    };
  }

  body(request: FastifyRequest): Rec {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw badRequest('the request body must be a JSON object');
    }
    return body as Rec;
  }

  /** Names the fields that cannot be written, before anything else happens. */
  checkBody(request: FastifyRequest, body: Rec, action: 'create' | 'update' | 'replace' | 'update_many'): void {
    readLinks(this.model, body);
    const errors: FieldError[] = [];
    for (const name of Object.keys(body)) {
      const field = this.model.field(name);
      if (!field) continue; // the JSON schema names unknown fields
      if (field.type === 'foreign_key') {
        const relation = field.relation ? this.model.relation(field.relation) : undefined;
        errors.push({
          field: name,
          message: `is a foreign key: set ${relation ? `"${relation.name}"` : 'the relationship'} instead`,
        });
      } else if (field.generated && !(action !== 'create' && field.primaryKey)) {
        errors.push({ field: name, message: 'is generated by the service and cannot be set' });
      }
    }
    const inverse = this.inverse;
    if (inverse && inverse in body)
      errors.push({ field: inverse, message: `is set by the URL (${this.route.parent!.model.name})` });
    if (errors.length) throw badRequest(`cannot write ${errors.map((e) => e.field).join(', ')}`, errors);
    // Updates of one object are checked once it is known (a user may write more of their own record).
    if (action === 'create' || action === 'update_many')
      this.policy.checkWritable(request, this.model, Object.keys(body));
  }

  async hashSecrets(data: Rec): Promise<Rec> {
    return this.services.hashSecrets ? this.services.hashSecrets(this.model, data) : data;
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
    if (early) await this.policy.authorize(request, permission, this.route, {});
    const object =
      this.route.kind === 'attribute' ? await this.parent(this.services.db, request) : await this.load(request);
    if (!early) await this.policy.authorize(request, permission, this.route, object);
    authorized.set(request, object);
    return object;
  }

  async guard(request: FastifyRequest): Promise<void> {
    const kind = this.route.kind;
    if (kind === 'collection' || (kind === 'singular' && request.method === 'POST')) {
      await this.policy.authorize(request, request.method === 'POST' ? 'create' : 'update', this.route);
    } else await this.authorizedObject(request, 'update');
  }

  /**
   * OPTIONS names methods and looks nothing up: the item rules decide when they need no item,
   * else the collection rules.
   */
  async options(request: FastifyRequest): Promise<void> {
    const itemRules = this.route.kind !== 'collection' && !this.policy.needsObject(this.route);
    await this.policy.authorize(request, 'options', this.route, itemRules ? {} : undefined);
    const action = this.route.kind === 'collection' ? 'collection_options' : 'item_options';
    await this.withEvents(request, action, undefined, async () => undefined);
  }

  checkKeyUnchanged(body: Rec, object: Rec): void {
    const pk = this.model.primaryKey;
    if (pk in body && String(body[pk]) !== String(object[pk])) {
      throw badRequest(`the primary key ${pk} cannot change`, [{ field: pk, message: 'cannot be changed' }]);
    }
    delete body[pk];
  }

  withUpdateDefaults(data: Rec): Rec {
    const out: Rec = { ...data };
    for (const field of this.model.fields)
      if (field.onUpdate && !(field.name in data)) out[field.name] = field.onUpdate();
    return out;
  }

  /** PUT: absent optional fields return to their default (or null); absent required fields are a 400. */
  replacement(data: Rec): Rec {
    const out: Rec = {};
    const missing: FieldError[] = [];
    for (const field of this.model.fields) {
      if (!field.writable || field.primaryKey) continue;
      if (field.name === this.inverse) continue;
      if (field.name in data) out[field.name] = data[field.name];
      else if (field.requiredOnCreate) missing.push({ field: field.name, message: 'is required' });
      else if (field.onUpdate) out[field.name] = field.onUpdate();
      else if (field.default) out[field.name] = field.default();
      else
        out[field.name] =
          field.type === 'relationship' && this.model.relation(field.name)?.cardinality === 'many' ? [] : null;
    }
    if (missing.length)
      throw badRequest(
        `missing required field${missing.length > 1 ? 's' : ''}: ${missing.map((m) => m.field).join(', ')}`,
        missing,
      );
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
      if (!found)
        throw notFound(
          `${this.route.parent!.model.name} ${String((request.params as Rec)[this.route.parent!.param])} has no ${this.route.parent!.field}`,
        );
      return found;
    }
    const key = this.policy.itemKey(request, this.model, (request.params as Rec)[this.route.itemParam!]);
    const repository = this.repository(db);
    const scope = await this.scope(db, request);
    const found =
      repository.keyValue(key) === undefined
        ? null
        : Object.keys(scope).length
          ? await repository.findFirst({
              where: combine({ [this.model.primaryKey]: repository.keyValue(key) }, scope),
              include: includeFor(this.model, db.models),
            })
          : await repository.findUnique({
              where: { [this.model.primaryKey]: key },
              include: includeFor(this.model, db.models),
            });
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

  async parentKey(db: ServiceDatabase, request: FastifyRequest): Promise<unknown> {
    const parent = await this.parent(db, request);
    return parent[this.route.parent!.model.primaryKey];
  }

  async parent(db: ServiceDatabase, request: FastifyRequest): Promise<Rec> {
    const parent = this.route.parent!;
    const key = this.policy.itemKey(request, generic(parent.model), (request.params as Rec)[parent.param]);
    const repository = db.repository(parent.model.name);
    const found =
      repository.keyValue(key) === undefined
        ? null
        : await repository.findUnique({ where: { [parent.model.primaryKey]: key } });
    if (!found) throw notFound(`${parent.model.name} ${String(key)} not found`);
    return found;
  }

  fieldOfParent() {
    return this.route.parent!.model.field(this.route.parent!.field)!;
  }

  /** Collection PATCH/PUT/DELETE select objects with the same filters as GET (no paging). */
  async bulkWhere(request: FastifyRequest): Promise<Where<Rec>> {
    const query = request.query as Query;
    for (const name of ['_limit', '_page', '_start', '_sort', '_fields', '_count']) {
      if (query[name] !== undefined)
        throw badRequest(`${name} does not apply to bulk changes`, [{ field: name, message: 'does not apply here' }]);
    }
    const parsed = parseListQuery(this.model, query, {
      defaultLimit: 0,
      maxLimit: 0,
      visible: this.policy.visibleFields(request, this.model),
    });
    return combine(parsed.where, await this.scope(this.services.db, request));
  }

  /**
   * The objects a bulk change selects, or a 400 naming `bulk_max` when there are more: a filter
   * typed wrong must not rewrite a whole table, and nothing is changed.
   */
  async bulkObjects(db: ServiceDatabase, where: Where<Rec>): Promise<Rec[]> {
    const max = this.services.bulkMax;
    const objects = await this.repository(db).findMany({ where, take: max + 1 });
    if (objects.length > max) {
      throw badRequest(
        `this change selects more than ${max} ${this.model.name} objects, the most one request may change (bulk_max); narrow the filters or change them in parts`,
        [{ field: '(query)', message: `selects more than ${max} objects` }],
      );
    }
    return objects;
  }

  /** Embedded objects the caller may not view become keys (lib/http/embedded.ts). */
  hideRefusedEmbeds(request: FastifyRequest, records: readonly Rec[]): Promise<void> {
    return hideRefusedEmbeds(this.policy, request, this.model, records, this.services.db.models);
  }

  serializer(request: FastifyRequest, fields?: readonly string[]): Serializer {
    return serialize({
      baseUrl: `${request.protocol}://${request.host}${this.services.basePath}`,
      requestUrl: requestUrl(request),
      fields,
      visible: (model, record) => this.policy.visibleFields(request, model, record),
      models: this.services.db.models,
    });
  }

  /** The response of a create or update: the object, with `Location` naming its URL. */
  present(request: FastifyRequest, reply: FastifyReply, object: Rec): Rec {
    const body = this.serializer(request).object(this.model, object);
    if (typeof body['_self'] === 'string') reply.header('location', body['_self']);
    reply.header('etag', etagOf(body));
    return body;
  }

  /**
   * If-Match: the object, read again under a row lock in the write's transaction, must still be
   * the one the caller saw (412 otherwise, and nothing is written).
   */
  async checkUnchanged(db: ServiceDatabase, request: FastifyRequest, object: Rec): Promise<void> {
    if (!hasIfMatch(request)) return;
    const key = object[this.model.primaryKey];
    const repository = this.repository(db);
    await repository.lockForUpdate(key);
    const current = await repository.findUnique({
      where: { [this.model.primaryKey]: key },
      include: includeFor(this.model, this.services.db.models),
    });
    if (!current) throw notFound(`${this.model.name} ${String(key)} not found`);
    await this.hideRefusedEmbeds(request, [current]);
    checkIfMatch(request, etagOf(this.serializer(request).object(this.model, current)));
  }
}

/**
 * Links name related objects by key, also in the string form the API returns as `_pk` ("3" for
 * the integer key 3): handlers and processors then see the key itself. A string that is no key
 * is left as it is, for the link to report as unknown.
 */
function readLinks(model: Model, body: Rec): void {
  for (const field of model.fields) {
    const value = body[field.name];
    if (field.type !== 'relationship' || field.storage !== 'integer' || value === undefined || value === null) continue;
    const key = (v: unknown) => (typeof v === 'string' ? (wholeNumber(field, v) ?? v) : v);
    body[field.name] = Array.isArray(value) ? value.map(key) : key(value);
  }
}

function combine(a: Where<Rec>, b: Where<Rec>): Where<Rec> {
  if (Object.keys(b).length === 0) return a;
  if (Object.keys(a).length === 0) return b;
  return { AND: [a, b] };
}

export function requestUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`;
}

/** Ramses' list merge: each key of the body is an item to add, or (`"-item"`) to remove. */
function mergeList(field: FieldSpec, current: readonly unknown[], body: Rec): unknown[] {
  const out = [...current];
  const errors: FieldError[] = [];
  for (const key of Object.keys(body)) {
    const remove = key.startsWith('-');
    const item = parseValue(field, remove ? key.slice(1) : key);
    if (item === undefined || (field.choices && !field.choices.includes(item))) {
      errors.push({
        field: key,
        message: field.choices
          ? `is not one of ${field.choices.join(', ')}`
          : `is not a valid ${field.itemType ?? 'string'}`,
      });
      continue;
    }
    const index = out.findIndex((x) => x === item);
    if (remove && index !== -1) out.splice(index, 1);
    if (!remove && index === -1) out.push(item);
  }
  if (errors.length) throw badRequest('invalid list items', errors);
  return out;
}
