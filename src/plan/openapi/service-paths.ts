/**
 * The routes every service adds to its API's: `/health`, `/openapi.json`, and with auth the
 * auth routes (`lib/auth/routes.ts`): register, login and logout (x-Ticket), token and
 * reset_token (x-ApiKey), and `/users/self` when the API's own user route does not answer it.
 */
import type { Auth } from '../../ir/types.js';
import { userRouteServesSelf } from '../auth/views.js';
import { withArticle } from '../shared/names.js';
import { type Json, type OpenApiContext } from './context.js';
import { content, inMethodOrder, json, type OperationIds } from './paths.js';
import { errorResponses } from './responses.js';
import { requirements } from './security.js';

export const SERVICE_TAG = { name: 'service', description: 'The service itself: its health and this document.' };
export const AUTH_TAG = { name: 'auth', description: 'Logging in and out (when service.ini says auth = true).' };

export function servicePaths(ctx: OpenApiContext, ids: OperationIds): [string, Json][] {
  const paths: [string, Json][] = [
    [
      '/health',
      {
        get: {
          tags: [SERVICE_TAG.name],
          summary: 'Whether the service and its database answer',
          operationId: ids.take('GET', '/health'),
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
        },
      },
    ],
    [
      '/openapi.json',
      {
        get: {
          tags: [SERVICE_TAG.name],
          summary: 'This document',
          operationId: ids.take('GET', '/openapi.json'),
          responses: { '200': { description: 'The OpenAPI document of the service.', ...content({ type: 'object' }) } },
        },
      },
    ],
  ];
  return ctx.ir.auth ? [...paths, ...authPaths(ctx, ctx.ir.auth, ids)] : paths;
}

function authPaths(ctx: OpenApiContext, auth: Auth, ids: OperationIds): [string, Json][] {
  const user = ctx.model(auth.userModel);
  const userBody = ctx.modelRef(user.name, 'item');
  const cookie = auth.ticket
    ? { 'Set-Cookie': { description: `The ticket (${auth.ticket.cookieName}).`, schema: { type: 'string' } } }
    : {};
  const token = auth.apiKey
    ? {
        'WWW-Authenticate': {
          description: '`ApiKey <username>:<token>`: the new API token.',
          schema: { type: 'string' },
        },
      }
    : {};
  const op = (method: string, path: string, spec: Json): Json => ({
    tags: [AUTH_TAG.name],
    operationId: ids.take(method, path),
    ...spec,
  });
  const paths: [string, Json][] = [
    [
      '/auth/register',
      {
        post: op('POST', '/auth/register', {
          summary: `Create ${withArticle(user.name)} and log in`,
          description: 'Anyone may register; only admins set groups.',
          requestBody: json(ctx.modelRef(user.name, 'create'), true),
          responses: {
            '201': { description: 'The new user, logged in.', headers: { ...cookie, ...token }, ...content(userBody) },
            ...errorResponses([400, 403, 409, 413, 415, 429, 500, 503]),
          },
        }),
      },
    ],
  ];
  if (auth.ticket) {
    paths.push([
      '/auth/login',
      {
        post: op('POST', '/auth/login', {
          summary: 'Log in',
          requestBody: json(ctx.sharedRef('Login'), true),
          responses: {
            '200': { description: 'The user, logged in.', headers: cookie, ...content(userBody) },
            ...errorResponses([400, 401, 403, 413, 415, 429, 500, 503]),
          },
        }),
      },
    ]);
    const logout = (method: string) =>
      op(method, '/auth/logout', {
        summary: 'Log out (every ticket of the user stops working)',
        responses: {
          '200': {
            description: 'Logged out; the cookie is cleared.',
            headers: cookie,
            ...content(ctx.sharedRef('Status')),
          },
          ...errorResponses([403, 429, 500, 503]),
        },
        security: requirements(ctx, 'optional'),
      });
    paths.push([
      '/auth/logout',
      inMethodOrder([
        ['get', logout('GET')],
        ['post', logout('POST')],
      ]),
    ]);
  }
  if (auth.apiKey) {
    for (const [path, summary] of [
      ['/auth/token', 'Get a new API token'],
      ['/auth/reset_token', 'Replace the API token'],
    ] as const) {
      paths.push([
        path,
        {
          post: op('POST', path, {
            summary,
            requestBody: json(ctx.sharedRef('Login'), true),
            responses: {
              '200': {
                description: 'The new token (tokens are stored hashed: each call makes a new one).',
                headers: token,
                ...content(ctx.sharedRef('Token')),
              },
              ...errorResponses([400, 401, 413, 415, 429, 500, 503]),
            },
          }),
        },
      ]);
    }
  }
  if (!userRouteServesSelf(ctx.ir, user)) {
    paths.push([
      '/users/self',
      {
        get: op('GET', '/users/self', {
          summary: 'The logged-in user',
          responses: {
            '200': { description: 'The logged-in user.', ...content(userBody) },
            ...errorResponses([401, 500, 503]),
          },
          security: requirements(ctx, 'required'),
        }),
      },
    ]);
  }
  return paths;
}
