/**
 * The user code of fixtures/library, as its users would write it: the `{{owner}}` principal with
 * its `where` (so that lists apply the item rules in the database), `{{self}}`, and the handlers
 * that make the caller the owner of what they create.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { testDatabase, type Engine, type TestDatabase } from './databases.js';
import { apiClient, type Api, type Reply } from './http.js';
import { tool } from './project.js';
import { startService, type RunningService } from './server.js';

const OWNER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { Book } from '../../models/book.js';
import type { Note } from '../../models/note.js';

/** A book's or note's owner gets the line's permissions on it. */
export function owner(_request: FastifyRequest, object: Book | Note | undefined, rule: AclRule): AclResult {
  return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
}

/** The books and notes the caller owns. */
owner.where = (request: FastifyRequest, _rule: AclRule): PrincipalWhere<Book | Note> =>
  request.user ? { owner: String(request.user['username']) } : false;
`;

/** The same principal without \`where\`: lists show what the collection rules allow, as Ramses did. */
export const OWNER_WITHOUT_WHERE = OWNER.slice(0, OWNER.indexOf('/** The books and notes the caller owns.'));

const SELF = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';

export function self(_request: FastifyRequest, object: User | undefined, rule: AclRule): AclResult {
  return object ? grant(rule, user(object.username)) : undefined;
}

self.where = (request: FastifyRequest, _rule: AclRule): PrincipalWhere<User> =>
  request.user ? { username: String(request.user['username']) } : false;
`;

/** The caller owns what they create (one handler per model: each is typed by its model). */
const setOwner = (model: string) => `import type { Set${model}OwnerEvent } from '../../events.js';

export async function set${model}Owner(event: Set${model}OwnerEvent): Promise<void> {
  const user = event.view.request.user;
  if (user) event.setFieldValue('owner', String(user['username']));
}
`;

/** An after handler that sets a field of the answer, as handlers that tidy answers do. */
const SHOW_BOOK_TITLE = `import type { ShowBookTitleEvent } from '../../events.js';

export async function showBookTitle(event: ShowBookTitleEvent): Promise<void> {
  if (event.instance) event.setFieldValue('title', event.instance.title);
}
`;

/** Writes the library's user code into the generated project `dir` and builds it. */
export async function withLibraryFunctions(dir: string, ownerCode: string = OWNER): Promise<void> {
  writeFileSync(join(dir, 'src/custom/principals/owner.ts'), ownerCode);
  writeFileSync(join(dir, 'src/custom/principals/self.ts'), SELF);
  writeFileSync(join(dir, 'src/custom/handlers/set-book-owner.ts'), setOwner('Book'));
  writeFileSync(join(dir, 'src/custom/handlers/set-note-owner.ts'), setOwner('Note'));
  writeFileSync(join(dir, 'src/custom/handlers/show-book-title.ts'), SHOW_BOOK_TITLE);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}

/** The settings of a service with auth on: an admin `root` (password `root-password`), and no limit on logins (the tests log in often). */
export function rootAuthEnv(): Record<string, string> {
  return {
    SVC_AUTH: 'true',
    SVC_AUTH_TKT_SECRET: 'library-secret-0123456789abcdef0123456789',
    SVC_SYSTEM_USER: 'root',
    SVC_SYSTEM_PASSWORD: 'root-password',
    SVC_SYSTEM_EMAIL: 'root@example.com',
    SVC_RATE_LIMIT_AUTH: '0',
  };
}

/** The password of the members `libraryService` registers. */
export const MEMBER_PASSWORD = 'password-123';

/**
 * A running library service (below `/v1`) with logged-in callers: `root` (an admin), and the
 * members ann, ben and olga, who is banned (in group `banned`). `as(who, …)` sends a request
 * with their cookie (`null`: anonymous). `env`: more settings.
 */
export function libraryService(engine: Engine, label: string, env: Record<string, string> = {}) {
  const cookies = new Map<string, string>();
  const state = {
    database: undefined as TestDatabase | undefined,
    service: undefined as RunningService | undefined,
    api: undefined as Api | undefined,
  };
  const as = (who: string | null, method: string, path: string, body?: unknown): Promise<Reply> =>
    state.api!(method, path, body, { headers: who ? { cookie: cookies.get(who)! } : {} });
  const start = async (project: string) => {
    state.database = await testDatabase(engine, project, label);
    state.service = await startService(project, { ...state.database.env, ...rootAuthEnv(), ...env }, '/v1');
    state.api = apiClient(state.service.origin, '/v1');
    const keep = (name: string, reply: Reply) => {
      expect(reply.status, reply.text).toBeLessThan(300);
      cookies.set(name, /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0]);
    };
    keep('root', await state.api('POST', '/auth/login', { login: 'root', password: 'root-password' }));
    for (const name of ['ann', 'ben', 'olga'])
      keep(
        name,
        await state.api('POST', '/auth/register', {
          username: name,
          email: `${name}@example.com`,
          password: MEMBER_PASSWORD,
        }),
      );
    // olga is banned: an admin puts her in the group.
    expect((await as('root', 'PATCH', '/users/olga', { groups: ['user', 'banned'] })).status).toBe(200);
  };
  const stop = async () => {
    await state.service?.stop();
    await state.database?.drop();
  };
  return {
    as,
    start,
    stop,
    /** The cookie a caller logged in with. */
    cookie: (who: string) => cookies.get(who)!,
    /** A request with the login cookie `cookie` (one a test got itself). */
    withCookie: (cookie: string, method: string, path: string, body?: unknown): Promise<Reply> =>
      state.api!(method, path, body, { headers: { cookie } }),
    get service(): RunningService {
      return state.service!;
    },
  };
}
