/**
 * The service with `auth = true` for the ACL matrix test: three users (member, owner, admin)
 * logged in once, requests sent as any of them or anonymously. Every `{{dynamic}}` principal is
 * replaced by one that stands for the user "owner" alone, so the test checks the ACLs of the RAML
 * whatever the user-owned principal functions do (test those with your own tests). Every request
 * goes through the project's client (client/): its transport, one per caller, logged in by the
 * client's own auth calls and holding that caller's ticket cookie or API token.
 */
import { expect } from 'vitest';
import { claimToken, login } from '../client/src/auth.js';
import { ApiError, Http } from '../client/src/http.js';
import { AUTH } from '../src/auth.js';
import { grant, user, type AuthSpec } from '../src/lib/auth/index.js';
import { isDynamic, type AclLine } from '../src/lib/auth/acl.js';
import { envName } from '../src/lib/config.js';
import { PasswordHasher } from '../src/lib/auth/passwords.js';
import { fieldsFor } from '../src/lib/auth/policy.js';
import { isReadOnly } from '../src/lib/http/policy.js';
import { generic, withDefaults, type Model } from '../src/lib/model.js';
import { models } from '../src/models/index.js';
import { BASE_PATH } from '../src/app.js';
import { injectFetch, nextSample, startTestService, type TestService } from './helpers.js';

type Rec = Record<string, unknown>;

/** The callers of the matrix, in the order of its columns. */
export const CALLERS = ['anonymous', 'member', 'owner', 'admin'] as const;
export type CallerKind = (typeof CALLERS)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What a caller gets: 'allowed', or the status it is refused with (404: below a parent it may not view). */
export type Outcome = 'allowed' | 401 | 403 | 404;

/** What the service answered a request with. */
export interface Answered {
  readonly statusCode: number;
  /** The body as text, for the failure message. */
  readonly body: string;
}

/** A route of the API, as much of it as a request to it needs. */
export interface AclRoute {
  readonly kind: 'collection' | 'item' | 'singular' | 'attribute';
  /** The path with Fastify's `:param`s, below the base path. */
  readonly path: string;
  /** The model of the route's objects (of an attribute route: of the object that has the field). */
  readonly model: string;
  /** An item route's parameter for the item's key. */
  readonly itemParam?: string;
  /**
   * A nested route's parents, outermost first: each one's model, the parameter for its key, and
   * the field of the object below it in the URL that points at it.
   */
  readonly parents?: readonly { readonly model: string; readonly param: string; readonly link?: string }[];
}

export interface AclService extends TestService {
  /** `method` on `path` (below the base path) as `caller`, through the client; a refusal is an answer too. */
  requestAs(caller: CallerKind, method: Method, path: string, body?: unknown): Promise<Answered>;
  /**
   * `method` on `route` as `caller`, after seeding what the URL names: the parent of a nested
   * route, the item of an item route, the object of a singular one (unless the request creates it).
   */
  send(caller: CallerKind, method: Method, route: AclRoute): Promise<Answered>;
  /**
   * A sample `model` object without the fields `caller` may not write; `replacing`: for a PUT of an
   * object that exists, whose password only its own user sends.
   */
  writableSample(model: string, caller: CallerKind, replacing?: boolean): Rec;
}

const PASSWORD = 'acl-matrix-password';
const SECRET = 'acl-matrix-secret-acl-matrix-secret-0123456789';

/** The settings that turn authentication on, with a ticket secret where the API has tickets. */
export function authSettings(): Record<string, string> {
  const settings: Record<string, string> = { SVC_AUTH: 'true' };
  if (AUTH.ticket) settings[envName(AUTH.ticket.secretSetting)] = SECRET;
  return settings;
}

/**
 * A new user's registration, from the user model's sample: without what a user may not say of
 * themselves (groups, fields hidden from them), with a username and password of its own.
 */
export function registration<T extends object>(
  sample: (n: number) => T,
  n: number,
): T & { username: string; password: string } {
  const model = models.get(AUTH.userModel.name)!;
  const own = fieldsFor(model, 'self', models);
  const allowed = (field: string) =>
    field !== 'groups' && (own === null || own.has(field) || model.field(field)?.secret);
  const data = Object.fromEntries(Object.entries(sample(200_000 + n)).filter(([field]) => allowed(field)));
  // Only optional fields are left out (a user can give every field a registration requires). The
  // sample's username, which test/custom-samples.ts may give (to match a pattern), else one of its own.
  const username = typeof data['username'] === 'string' ? data['username'] : `user-${n}`;
  return { ...(data as T), username, password: PASSWORD };
}

export async function startAclService(): Promise<AclService> {
  const service = await startTestService(authSettings(), { auth: ownerOnly(AUTH, 'owner') });
  const caller = () => new Http({ baseUrl: `http://localhost${BASE_PATH}`, fetch: injectFetch(service.app) });
  const callers = new Map<CallerKind, Http>([['anonymous', caller()]]);
  const hasher = new PasswordHasher();
  // A member has the groups a new user gets (the user model's `groups` default), as the matrix says.
  const joined = withDefaults(generic(AUTH.userModel), {})['groups'];
  const newcomer = Array.isArray(joined) ? joined.map(String) : ['user'];
  for (const [name, groups] of [
    ['member', newcomer],
    ['owner', newcomer],
    ['admin', ['admin']],
  ] as const) {
    await service.seed(AUTH.userModel.name, {
      username: name,
      email: `${name}@example.com`,
      password: await hasher.hash(PASSWORD),
      groups: [...groups],
    });
    callers.set(name, await logIn(caller(), name));
  }
  const acl: AclService = {
    ...service,
    requestAs: (kind, method, path, body) => answered(callers.get(kind)!.send(method, path, { body })),
    async send(caller, method, route) {
      let url = route.path;
      let link: Rec | undefined;
      for (const parent of route.parents ?? []) {
        const key = service.key(parent.model, await service.seed(parent.model, link));
        url = url.replace(`:${parent.param}`, () => String(key));
        link = parent.link ? { [parent.link]: key } : undefined;
      }
      if (route.kind === 'item') {
        const key = service.key(route.model, await service.seed(route.model, link));
        url = url.replace(`:${route.itemParam}`, () => String(key));
      }
      if (route.kind === 'singular' && method !== 'POST') await service.seed(route.model, link);
      if (route.kind === 'collection' && BULK.has(method)) url += `?${selectingNone(route.model).toString()}`;
      const body = bodyFor(acl, route, method, caller);
      if (body && route.parents?.length && route.kind !== 'attribute')
        await withRequiredLinks(service, route.model, body, link, caller);
      return acl.requestAs(caller, method, url, body);
    },
    writableSample(name, caller, replacing = false) {
      const model = models.get(name)!;
      const sample = nextSample(name);
      if (caller === 'admin') return sample;
      const seen = seenBy(model, caller);
      // A PUT of an object keeps what it leaves out that the caller may not write: a password is
      // written only in a new object or by its own user (the seeded objects are no caller's).
      const mayWrite = (field: string) =>
        !(name === AUTH.userModel.name && field === 'groups') &&
        (seen === null || seen.has(field) || (model.field(field)?.secret === true && !replacing));
      return Object.fromEntries(Object.entries(sample).filter(([field]) => mayWrite(field)));
    },
  };
  return acl;
}

/**
 * Below a parent, a create's body gets the links its model requires (each to an object seeded for
 * it), but the one the URL sets (`given`) and read-only ones: its body is then valid, so that a
 * parent the caller may not view is answered as the matrix says (404), not with the body's 400.
 */
async function withRequiredLinks(
  service: TestService,
  name: string,
  body: Rec,
  given: Rec | undefined,
  caller: CallerKind,
): Promise<void> {
  const model = models.get(name)!;
  // As writableSample: what the caller may not write is left out (field privacy is not the matrix's).
  const seen = seenBy(model, caller);
  for (const relation of model.relations) {
    const field = model.field(relation.name);
    if (!field?.requiredOnCreate || relation.name in body || (given && relation.name in given)) continue;
    if (isReadOnly(model, relation.name) || (seen !== null && !seen.has(relation.name))) continue;
    const key = service.key(relation.target, await service.seed(relation.target));
    body[relation.name] = relation.cardinality === 'many' ? [key] : key;
  }
}

/** The fields of `model` that `caller` sees (and may write of a sample), or null for all of them. */
function seenBy(model: Model, caller: CallerKind): ReadonlySet<string> | null {
  return caller === 'admin' ? null : fieldsFor(model, caller === 'anonymous' ? 'anonymous' : 'member', models);
}

/** A collection's methods that change the objects its filters select. */
const BULK: ReadonlySet<Method> = new Set(['PATCH', 'PUT', 'DELETE']);

/**
 * A filter that selects no object. A collection's PATCH, PUT or DELETE through it changes nothing,
 * so its answer is the collection rules' decision alone: the item rules, which then decide on each
 * object selected (any refused makes the whole request 403), are the rows of the item route. Without
 * it, a member's bulk change would select the objects other callers' rows seeded, and be refused.
 */
function selectingNone(modelName: string): URLSearchParams {
  const model = generic(models.get(modelName)!);
  const integer = model.field(model.primaryKey)?.storage === 'integer';
  return new URLSearchParams({ [model.primaryKey]: integer ? '-1' : 'no-such-key-of-the-acl-test' });
}

/**
 * The body of a request: what creates or replaces an object is a sample without the fields the
 * caller may not write (field privacy is not what the matrix is about); changes, to one object or
 * to those a collection's filters select, and what is merged into an attribute are `{}`.
 */
function bodyFor(service: AclService, route: AclRoute, method: Method, caller: CallerKind): Rec | undefined {
  if (route.kind === 'attribute') return method === 'POST' ? {} : undefined;
  if (method === 'PATCH' || (method === 'PUT' && route.kind === 'collection')) return {};
  if (method === 'POST' || method === 'PUT') return service.writableSample(route.model, caller, method === 'PUT');
  return undefined;
}

/** The answer to a request, or the error it was refused with. */
async function answered(request: Promise<{ status: number; body: unknown }>): Promise<Answered> {
  try {
    const { status, body } = await request;
    return { statusCode: status, body: JSON.stringify(body) ?? '' };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { statusCode: error.status, body: JSON.stringify(error.body) ?? '' };
  }
}

/** Allowed: neither refused (401, 403) nor failed (5xx); what else it answers depends on the body. */
export function expectAllowed(response: Answered): void {
  expect([401, 403], response.body).not.toContain(response.statusCode);
  expect(response.statusCode, response.body).toBeLessThan(500);
}

/** `spec` with every dynamic principal standing for the user `owner`, and for no one else. */
function ownerOnly(spec: AuthSpec, owner: string): AuthSpec {
  const replace = (line: AclLine): AclLine =>
    isDynamic(line.principal)
      ? {
          ...line,
          principal: {
            dynamic: line.principal.dynamic,
            call: (request, _object, rule) =>
              request.user?.['username'] === owner ? grant(rule, user(key(request.user))) : undefined,
          },
        }
      : line;
  const key = (record: Rec) => String(record[generic(spec.userModel).primaryKey]);
  const acls = Object.fromEntries(
    Object.entries(spec.acls).map(([name, acl]) => [
      name,
      { collection: acl.collection.map(replace), item: acl.item.map(replace) },
    ]),
  );
  return { ...spec, acls };
}

/** Logs `username` in on `http` with the client's own calls: the ticket cookie, or an API token. */
async function logIn(http: Http, username: string): Promise<Http> {
  const credentials = { login: username, password: PASSWORD };
  if (AUTH.ticket) await login(http, credentials);
  else await claimToken(http, credentials);
  return http;
}
