/**
 * The service's authentication routes (lib/auth/routes.ts): register, log in and out, the
 * logged-in user, and API tokens. The credentials they hand out stay in the client's `Http`:
 * the ticket cookie, or the token as `Authorization: ApiKey <username>:<token>`.
 */
import type { Http, StatusBody } from './http.js';

/** What logs a user in: their username or e-mail address, and password. */
export interface Credentials {
  readonly login: string;
  readonly password: string;
}

/** `POST /auth/register`: the new user, logged in (with x-ApiKey, their first token is used from now on). */
export async function register<U>(http: Http, body: object): Promise<U> {
  const answer = await http.send<U>('POST', '/auth/register', { body });
  useIssuedToken(http, answer.headers.get('www-authenticate'));
  return answer.body;
}

/** `POST /auth/login`: the ticket cookie is kept for the next requests. */
export async function login<U>(http: Http, credentials: Credentials): Promise<U> {
  return (await http.send<U>('POST', '/auth/login', { body: credentials })).body;
}

/** `POST /auth/logout`: every ticket of the user stops working; the client forgets its own. */
export async function logout(http: Http): Promise<StatusBody> {
  const answer = await http.send<StatusBody>('POST', '/auth/logout');
  http.forgetCredentials();
  return answer.body;
}

/** `GET /users/self`: the logged-in user. */
export async function self<U>(http: Http): Promise<U> {
  return (await http.send<U>('GET', '/users/self')).body;
}

/** `POST /auth/token` (or `/auth/reset_token`): a new API token, used from now on; answers the token. */
export async function claimToken(http: Http, credentials: Credentials, reset = false): Promise<string> {
  const answer = await http.send<StatusBody & { token: string }>('POST', reset ? '/auth/reset_token' : '/auth/token', {
    body: credentials,
  });
  useIssuedToken(http, answer.headers.get('www-authenticate'));
  return answer.body.token;
}

/** `WWW-Authenticate: ApiKey <username>:<token>`, as the service sends a new token. */
function useIssuedToken(http: Http, header: string | null): void {
  const match = header === null ? null : /^ApiKey +([^:\s]+):(\S+)$/i.exec(header.trim());
  if (match) http.useToken(match[1]!, match[2]!);
}
