/**
 * An API a test states whole, built and served (on SQLite unless told) below `/v1`, for the end-to-end tests
 * that need nothing else of a project: the folder, a client, and `stop` (the service, then its
 * database).
 */
import { expect } from 'vitest';
import { querySql, testDatabase, type Engine } from './databases.js';
import { apiClient, type Api } from './http.js';
import { MEMBER_PASSWORD } from './library.js';
import { projectOf, tool } from './project.js';
import { startService } from './server.js';

export interface ServedApi {
  readonly dir: string;
  /** `http://127.0.0.1:<port>`: the service's origin (its API is below `/v1`). */
  readonly origin: string;
  readonly api: Api;
  /** The rows of `sql` on its database (SQLite or PostgreSQL), read behind the service's back. */
  query(sql: string): Promise<unknown[]>;
  /** What the service has printed so far (its log). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `files` generated into `.tmp/<area>`, `prepare`d (user code written into it), built and
 * started with `env` besides its database's settings.
 */
export async function servedApi(
  files: Record<string, string>,
  area: string,
  options: {
    readonly env?: Record<string, string>;
    readonly prepare?: (dir: string) => void;
    readonly engine?: Engine;
  } = {},
): Promise<ServedApi> {
  const dir = await projectOf(files, area);
  options.prepare?.(dir);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
  const database = await testDatabase(options.engine ?? 'sqlite', dir, area.replace(/\W/g, '_'));
  const service = await startService(dir, { ...database.env, ...options.env }, '/v1');
  return {
    dir,
    origin: service.origin,
    api: apiClient(service.origin, '/v1'),
    query(sql) {
      const engine = options.engine ?? 'sqlite';
      if (engine === 'mongodb') throw new Error('query: SQL on a MongoDB database');
      return querySql(engine, database.url, dir, sql);
    },
    output: () => service.output(),
    async stop() {
      await service.stop();
      await database.drop();
    },
  };
}

/** The `Authorization` header of a fresh API token of `login` (x-ApiKey's `POST /auth/token`). */
export async function apiToken(api: Api, login: string, password: string): Promise<string> {
  const reply = await api('POST', '/auth/token', { login, password });
  expect(reply.status, reply.text).toBe(200);
  return reply.headers.get('www-authenticate')!;
}

/**
 * Registers each of `names` (`<name>@example.com`, MEMBER_PASSWORD) and answers an API token of
 * each, and of `root`, the admin of `rootAuthEnv()`, by name.
 */
export async function memberTokens(api: Api, names: readonly string[]): Promise<Map<string, string>> {
  const tokens = new Map([['root', await apiToken(api, 'root', 'root-password')]]);
  for (const name of names) {
    const body = { username: name, email: `${name}@example.com`, password: MEMBER_PASSWORD };
    const registered = await api('POST', '/auth/register', body);
    expect(registered.status, registered.text).toBe(201);
    tokens.set(name, await apiToken(api, name, MEMBER_PASSWORD));
  }
  return tokens;
}
