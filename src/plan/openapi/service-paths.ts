/**
 * The routes every service adds to its API's: `/health`, `/openapi.json`, and with auth the
 * auth routes (`lib/auth/routes.ts`): register, login and logout (x-Ticket), token and
 * reset_token (x-ApiKey), and `/users/self` when the API's own user route does not answer it.
 */
import type { Auth, Model } from '../../ir/types.js';
import { userRouteServesSelf } from '../auth/views.js';
import { withArticle } from '../shared/names.js';
import { type Json, type OpenApiContext } from './context.js';
import { bodyExample } from './examples.js';
import type { OperationIds } from './operation-ids.js';
import { content, inMethodOrder, json } from './paths.js';
import { errorResponses } from './responses.js';
import { itemQuery } from './parameters.js';
import { createLinks } from './links.js';
import { publicSecurity, requirements } from './security.js';

const LOCATION = { Location: { description: 'The URL of the new user (its _self).', schema: { type: 'string' } } };

export const SERVICE_TAG = { name: 'service', description: 'The service itself: its health and this document.' };
export const AUTH_TAG = { name: 'auth', description: 'Logging in and out (when service.ini says auth = true).' };

/** `routeIds`: the operationIds of the API's own routes (register links to the new user's). */
export function servicePaths(
  ctx: OpenApiContext,
  ids: OperationIds,
  routeIds: ReadonlyMap<string, string>,
): [string, Json][] {
  const paths: [string, Json][] = [
    [
      '/health',
      {
        get: {
          tags: [SERVICE_TAG.name],
          summary: 'Whether the service and its database answer',
          operationId: ids.take('getHealth', 'GET'),
          responses: {
            '200': {
              description: 'The database answers.',
              ...content({
                type: 'object',
                required: ['status'],
                properties: { status: { const: 'ok' } },
                additionalProperties: false,
              }),
            },
            ...errorResponses([503]),
          },
          ...publicSecurity(ctx),
        },
      },
    ],
    [
      '/openapi.json',
      {
        get: {
          tags: [SERVICE_TAG.name],
          summary: 'The OpenAPI document of the service (this one)',
          operationId: ids.take('getOpenApiDocument', 'GET'),
          responses: {
            '200': {
              description: 'The OpenAPI document of the service.',
              ...content({ type: 'object', additionalProperties: true }),
            },
          },
          ...publicSecurity(ctx),
        },
      },
    ],
  ];
  return ctx.ir.auth ? [...paths, ...authPaths(ctx, ctx.ir.auth, ids, routeIds)] : paths;
}

function authPaths(
  ctx: OpenApiContext,
  auth: Auth,
  ids: OperationIds,
  routeIds: ReadonlyMap<string, string>,
): [string, Json][] {
  const user = ctx.model(auth.userModel);
  const userBody = ctx.modelRef(user.name, 'item');
  // The users' own item route, when the API has one: the new user's URL (Location) and links.
  const userRoute = ctx.ir.routes.find((r) => r.kind === 'item' && r.model === user.name && r.parent === null);
  const setCookie = (description: string) =>
    auth.ticket ? { 'Set-Cookie': { description, schema: { type: 'string' } } } : {};
  const name = auth.ticket?.cookieName ?? '';
  const cookie = setCookie(
    `The ticket (${name}), and the device cookie of the account (${name}_device_<tag>) that vouches for this device at later logins.`,
  );
  const token = auth.apiKey
    ? {
        'WWW-Authenticate': {
          description: '`ApiKey <username>:<token>`: the new API token.',
          schema: { type: 'string' },
        },
      }
    : {};
  // Credentials come in the body: a ticket or token sent along changes nothing.
  const op = (id: string, method: string, spec: Json): Json => ({
    tags: [AUTH_TAG.name],
    operationId: ids.take(id, method),
    security: [],
    ...spec,
  });
  const login = () => json(ctx.sharedRef('Login'), true, loginExample(ctx, user));
  const paths: [string, Json][] = [
    [
      '/auth/register',
      {
        post: op('register', 'POST', {
          summary: `Create ${withArticle(user.name)} and log in`,
          description: 'Anyone may register; only admins set groups.',
          requestBody: json(ctx.modelRef(user.name, 'create'), true, registerExample(ctx, user)),
          responses: {
            '201': {
              description: 'The new user, logged in.',
              headers: { ...(userRoute ? LOCATION : {}), ...cookie, ...token },
              ...content(userBody),
              ...createLinks(userRoute, '/auth/register', routeIds),
            },
            ...errorResponses([400, 403, 409, 413, 415, 429, 500, 503]),
          },
          // An admin's credentials let them set groups.
          security: requirements(ctx, 'optional'),
        }),
      },
    ],
  ];
  if (auth.ticket) {
    paths.push([
      '/auth/login',
      {
        post: op('login', 'POST', {
          summary: 'Log in',
          parameters: RAMSES_REDIRECTS,
          requestBody: login(),
          responses: {
            '200': { description: 'The user, logged in.', headers: cookie, ...content(userBody) },
            ...errorResponses([400, 401, 403, 413, 415, 429, 500, 503]),
          },
        }),
      },
    ]);
    const logout = (method: string) =>
      op('logout', method, {
        summary: 'Log out (every ticket of the user stops working)',
        parameters: RAMSES_REDIRECTS,
        responses: {
          '200': {
            description: 'Logged out; the cookie is cleared.',
            headers: setCookie(`The ticket (${name}), cleared.`),
            ...content(ctx.sharedRef('Status')),
          },
          ...errorResponses([400, 403, 429, 500, 503]),
        },
        security: requirements(ctx, 'optional'),
      });
    // POST first: it is the one that keeps the plain name.
    const post = logout('POST');
    paths.push([
      '/auth/logout',
      inMethodOrder([
        ['get', logout('GET')],
        ['post', post],
      ]),
    ]);
  }
  if (auth.apiKey) {
    for (const [path, id, summary] of [
      ['/auth/token', 'createApiToken', 'Get a new API token'],
      ['/auth/reset_token', 'resetApiToken', 'Replace the API token'],
    ] as const) {
      paths.push([
        path,
        {
          post: op(id, 'POST', {
            summary,
            requestBody: login(),
            responses: {
              '200': {
                description: 'The new token (tokens are stored hashed: each call makes a new one).',
                headers: { ...token, ...setCookie(`The device cookie of the account (${name}_device_<tag>).`) },
                ...content(ctx.sharedRef('Token')),
              },
              ...errorResponses([400, 401, 413, 415, 429, 500, 503]),
            },
          }),
        },
      ]);
    }
  }
  // A users' route keyed by a number answers `self` too, but its key parameter says a number: the
  // document (and the README's table, read from it) names the path apart, as the route it is.
  if (!userRouteServesSelf(ctx.ir, user) || !keyedByText(user)) {
    paths.push([
      '/users/self',
      {
        get: op('getSelf', 'GET', {
          summary: 'The logged-in user',
          parameters: itemQuery(),
          responses: {
            '200': { description: 'The logged-in user.', ...content(userBody) },
            ...errorResponses([400, 401, 500, 503]),
          },
          security: requirements(ctx, 'required'),
        }),
      },
    ]);
  }
  return paths;
}

/** Ramses' login and logout redirects: taken and ignored (lib/auth/routes.ts `REDIRECTS`). */
const RAMSES_REDIRECTS: Json[] = ['next', 'unauthorized'].map((name) => ({
  name,
  in: 'query',
  required: false,
  description: "Ramses' redirect after the login or logout: taken, and ignored (the answer is the same without it).",
  schema: { type: 'string' },
}));

/** A user's create example without what a new user may not set (lib/auth/routes.ts): groups, hidden fields but the password. */
function registerExample(ctx: OpenApiContext, user: Model): Json {
  const refused = new Set(['groups', ...user.hiddenFields.filter((name) => name !== 'password')]);
  return Object.fromEntries(Object.entries(bodyExample(ctx, user, 'create')).filter(([name]) => !refused.has(name)));
}

/** The credentials of the user the register example makes. */
function loginExample(ctx: OpenApiContext, user: Model): Json {
  const registered = registerExample(ctx, user);
  const login = ['username', 'email'].map((name) => registered[name]).find((v) => typeof v === 'string');
  return {
    login: login ?? 'alice',
    password: typeof registered['password'] === 'string' ? registered['password'] : 'secret',
  };
}

/** Whether `self` is a value of the model's key (a text key), so that its item path covers `/users/self`. */
function keyedByText(model: Model): boolean {
  const type = model.fields.find((f) => f.name === model.primaryKey)?.type;
  return type === 'string' || type === 'unicode' || type === 'text' || type === 'unicode_text';
}
