/**
 * Authentication in the document: the x-Ticket cookie and the x-ApiKey
 * `Authorization` header as security schemes, named as the RAML names them, and for each operation
 * whether it needs them: an operation an anonymous caller may use (the ACL matrix of
 * `svcgen inspect --acl` says so) takes them optionally (`{}` first), the others require one.
 * It all applies when service.ini says `auth = true`; with `auth = false` nothing is checked.
 */
import { CALLERS } from '../../acl/matrix.js';
import type { Operation, Route } from '../../ir/types.js';
import { type Json, type OpenApiContext } from './context.js';

/** The operation's extension naming who its ACL lets in (read by src/apidiff/access.ts). */
export const ACCESS_EXTENSION = 'x-svcgen-access';
/**
 * The document's: the groups `x-svcgen-access` may name (the matrix's group columns). A member of
 * a group not named there is a plain member: `svcgen diff` reads a group named in one version only
 * as `member` in the other (a probe's new `allow g:planner create` opened 21 routes "to g:planner").
 */
export const GROUPS_EXTENSION = 'x-svcgen-groups';

export function securitySchemes(ctx: OpenApiContext): [string, Json][] {
  const auth = ctx.ir.auth;
  if (!auth) return [];
  const schemes: [string, Json][] = [];
  if (auth.ticket) {
    schemes.push([
      schemeName(auth.ticket.scheme),
      {
        type: 'apiKey',
        in: 'cookie',
        name: auth.ticket.cookieName,
        description: 'The signed ticket set by POST /auth/login and /auth/register (x-Ticket).',
      },
    ]);
  }
  if (auth.apiKey) {
    schemes.push([
      schemeName(auth.apiKey.scheme),
      {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description:
          '`ApiKey <username>:<token>`, with the token from POST /auth/token (x-ApiKey); a username with letters beyond ASCII as UTF-8 or percent-encoded UTF-8, a `%` in it as `%25`.',
      },
    ]);
  }
  return schemes;
}

/**
 * The security of a route's operation, or nothing when the API has no auth. `x-svcgen-access`
 * names the kinds of caller its ACL lets in (the matrix's columns), which `security` cannot say:
 * `svcgen diff` and `generate` compare it to tell a route newly guarded more strictly. Tools
 * that do not know the extension ignore it, as OpenAPI says they must.
 */
export function operationSecurity(ctx: OpenApiContext, route: Route, operation: Operation): Json {
  if (!ctx.ir.auth) return {};
  const row = ctx.matrixRow(route, operation);
  // The matrix's columns, then the groups the x-ACLs name that are let in (`g:kitchen`).
  const allowed = row
    ? [...CALLERS.filter((caller) => row.outcomes[caller] === 'allow'), ...row.groupsAllowed.map((g) => `g:${g}`)]
    : [];
  return {
    security: requirements(ctx, row?.outcomes.anonymous === 'allow' ? 'optional' : 'required'),
    [ACCESS_EXTENSION]: allowed,
  };
}

/** `optional`: anyone may call it, and a logged-in caller is recognised (what they see may differ). */
export function requirements(ctx: OpenApiContext, kind: 'optional' | 'required'): Json[] {
  const each = securitySchemes(ctx).map(([name]) => ({ [name]: [] }));
  return kind === 'optional' ? [{}, ...each] : each;
}

/** The security of an operation anyone may call with no credentials (they change nothing there). */
export function publicSecurity(ctx: OpenApiContext): Json {
  return ctx.ir.auth ? { security: [] } : {};
}

/** Component names allow letters, digits, `.`, `-` and `_`. */
function schemeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}
