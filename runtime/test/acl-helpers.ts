/**
 * The service with `auth = true` for the ACL matrix test: three users (member, owner, admin)
 * logged in once, requests sent as any of them or anonymously. Every `{{dynamic}}` principal is
 * replaced by one that stands for the user "owner" alone, so the test checks the ACLs of the RAML
 * whatever the user-owned principal functions do (test those with your own tests).
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { AUTH } from '../src/auth.js';
import { grant, user, type AuthSpec } from '../src/lib/auth/index.js';
import { isDynamic, type AclLine } from '../src/lib/auth/acl.js';
import { envName } from '../src/lib/config.js';
import { PasswordHasher } from '../src/lib/auth/passwords.js';
import { fieldsFor } from '../src/lib/auth/policy.js';
import { generic } from '../src/lib/model.js';
import { models } from '../src/models/index.js';
import { startTestService, type TestService } from './helpers.js';
import { samples } from './samples.js';

type Rec = Record<string, unknown>;

/** The callers of the matrix, in the order of its columns. */
export const CALLERS = ['anonymous', 'member', 'owner', 'admin'] as const;
export type CallerKind = (typeof CALLERS)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** What a caller gets: 'allowed', or the status it is refused with. */
export type Outcome = 'allowed' | 401 | 403;

/** A route of the API, as much of it as a request to it needs. */
export interface AclRoute {
  readonly kind: 'collection' | 'item' | 'singular' | 'attribute';
  /** The path with Fastify's `:param`s, below the base path. */
  readonly path: string;
  /** The model of the route's objects (of an attribute route: of the object that has the field). */
  readonly model: string;
  /** An item route's parameter for the item's key. */
  readonly itemParam?: string;
  /** A nested route's parent: its model, the parameter for its key, and the field of `model` that points at it. */
  readonly parent?: { readonly model: string; readonly param: string; readonly link?: string };
}

export interface AclService extends TestService {
  requestAs(
    caller: CallerKind,
    method: InjectOptions['method'],
    path: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse>;
  /**
   * `method` on `route` as `caller`, after seeding what the URL names: the parent of a nested
   * route, the item of an item route, the object of a singular one (unless the request creates it).
   */
  send(caller: CallerKind, method: Method, route: AclRoute): Promise<LightMyRequestResponse>;
  /** A sample `model` object without the fields `caller` may not write. */
  writableSample(model: string, caller: CallerKind): Rec;
}

const PASSWORD = 'acl-matrix-password';
const SECRET = 'acl-matrix-secret-acl-matrix-secret-0123456789';

export async function startAclService(): Promise<AclService> {
  const settings: Record<string, string> = { SVC_AUTH: 'true' };
  if (AUTH.ticket) settings[envName(AUTH.ticket.secretSetting)] = SECRET;
  const service = await startTestService(settings, { auth: ownerOnly(AUTH, 'owner') });
  const headers = new Map<CallerKind, Record<string, string>>([['anonymous', {}]]);
  const hasher = new PasswordHasher();
  for (const [name, groups] of [
    ['member', ['user']],
    ['owner', ['user']],
    ['admin', ['admin']],
  ] as const) {
    await service.seed(AUTH.userModel.name, {
      username: name,
      email: `${name}@example.com`,
      password: await hasher.hash(PASSWORD),
      groups: [...groups],
    });
    headers.set(name, await logIn(service, name));
  }
  let counter = 0;
  const acl: AclService = {
    ...service,
    requestAs: (caller, method, path, body) => service.request(method, path, body, headers.get(caller)),
    async send(caller, method, route) {
      let url = route.path;
      let link: Rec | undefined;
      if (route.parent) {
        const { model, param } = route.parent;
        const key = service.key(model, await service.seed(model));
        url = url.replace(`:${param}`, () => String(key));
        if (route.parent.link) link = { [route.parent.link]: key };
      }
      if (route.kind === 'item') {
        const key = service.key(route.model, await service.seed(route.model, link));
        url = url.replace(`:${route.itemParam}`, () => String(key));
      }
      if (route.kind === 'singular' && method !== 'POST') await service.seed(route.model, link);
      return acl.requestAs(caller, method, url, bodyFor(acl, route, method, caller));
    },
    writableSample(name, caller) {
      const model = models.get(name)!;
      const sample = (samples as unknown as Record<string, (n: number) => Rec>)[name]!(100_000 + ++counter);
      if (caller === 'admin') return sample;
      const seen = fieldsFor(model, caller === 'anonymous' ? 'anonymous' : 'member');
      const mayWrite = (field: string) =>
        !(name === AUTH.userModel.name && field === 'groups') &&
        (seen === null || seen.has(field) || model.field(field)?.secret);
      return Object.fromEntries(Object.entries(sample).filter(([field]) => mayWrite(field)));
    },
  };
  return acl;
}

/**
 * The body of a request: what creates or replaces an object is a sample without the fields the
 * caller may not write (field privacy is not what the matrix is about); changes, to one object or
 * to those a collection's filters select, and what is merged into an attribute are `{}`.
 */
function bodyFor(service: AclService, route: AclRoute, method: Method, caller: CallerKind): Rec | undefined {
  if (route.kind === 'attribute') return method === 'POST' ? {} : undefined;
  if (method === 'PATCH' || (method === 'PUT' && route.kind === 'collection')) return {};
  if (method === 'POST' || method === 'PUT') return service.writableSample(route.model, caller);
  return undefined;
}

/** Allowed: neither refused (401, 403) nor failed (5xx); what else it answers depends on the body. */
export function expectAllowed(response: LightMyRequestResponse): void {
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

async function logIn(service: TestService, username: string): Promise<Record<string, string>> {
  if (AUTH.ticket) {
    const response = await service.request('POST', '/auth/login', { login: username, password: PASSWORD });
    expect(response.statusCode, response.body).toBe(200);
    const cookie = response.cookies.find((c) => c.name === AUTH.ticket!.cookieName)!;
    return { cookie: `${cookie.name}=${cookie.value}` };
  }
  const response = await service.request('POST', '/auth/token', { login: username, password: PASSWORD });
  expect(response.statusCode, response.body).toBe(200);
  return { authorization: `ApiKey ${username}:${response.json().token}` };
}
