/**
 * The blog with `auth = true`: API tokens (x-ApiKey) and the user model svcgen synthesizes, on
 * SQLite and PostgreSQL. A token works only with the user it was issued to and only in the
 * Authorization header; the database holds its digest, never the token; passwords follow the
 * synthesized model's policy (8 characters at least) and are always hashed, whatever they look like.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiKeyHeader } from '../../runtime/src/lib/auth/tokens.js';
import { runSql, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';

type Row = Record<string, unknown>;

/** Every row of `table`, read behind the service's back. */
async function dump(engine: 'sqlite' | 'postgres', url: string, dir: string, table: string): Promise<Row[]> {
  const require = createRequire(join(dir, 'node_modules', 'noop.js'));
  if (engine === 'postgres') {
    const { Client } = require('pg') as {
      Client: new (o: { connectionString: string }) => {
        connect(): Promise<void>;
        query(sql: string): Promise<{ rows: Row[] }>;
        end(): Promise<void>;
      };
    };
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(`select * from "${table}"`)).rows;
    } finally {
      await client.end();
    }
  }
  const Database = require('better-sqlite3') as new (file: string) => {
    prepare(sql: string): { all(): Row[] };
    close(): void;
  };
  const db = new Database(url.slice('sqlite:'.length));
  try {
    return db.prepare(`select * from "${table}"`).all();
  } finally {
    db.close();
  }
}

describe.each(['sqlite', 'postgres'] as const)(
  'the blog with auth (x-ApiKey, synthesized user model) on %s',
  (engine) => {
    let dir: string;
    let database: TestDatabase;
    let service: RunningService;
    let api: Api;
    const tokens = new Map<string, string>();

    const keyOf = (reply: Reply) => readApiKeyHeader(reply.headers.get('www-authenticate') ?? undefined)?.token;
    const register = async (username: string, password: string) => {
      const reply = await api('POST', '/auth/register', { username, email: `${username}@example.com`, password });
      if (reply.status === 201) tokens.set(username, keyOf(reply)!);
      return reply;
    };
    const self = (authorization: string, query = '') =>
      api('GET', `/users/self${query}`, undefined, { headers: { authorization } });

    beforeAll(async () => {
      dir = await builtProject('blog', 'e2e-api-key');
      database = await testDatabase(engine, dir, 'api_key');
      service = await startService(dir, { ...database.env, SVC_AUTH: 'true' }, BASE);
      api = apiClient(service.origin, BASE);
      for (const name of ['alice', 'bob']) expect((await register(name, 'password-123')).status).toBe(201);
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      await database?.drop();
    });

    it("accepts a token only for its own user and only in the Authorization header: `ApiKey alice:<bob's token>` and ?api_key= are anonymous", async () => {
      expect((await self(`ApiKey alice:${tokens.get('alice')}`)).body.username).toBe('alice');
      expect((await self(`ApiKey alice:${tokens.get('bob')}`)).status).toBe(401);
      // The name as a login reads it: ALICE logs in as alice, so her key names her too.
      expect((await self(`ApiKey ALICE:${tokens.get('alice')}`)).body.username).toBe('alice');
      expect((await self(`ApiKey BOB:${tokens.get('alice')}`)).status).toBe(401);
      expect((await self(`ApiKey bob:${tokens.get('alice')}`)).status).toBe(401);
      // A key in the query is no credential: a parameter /users/self does not take (400).
      const byQuery = await api('GET', `/users/self?api_key=${tokens.get('alice')}`);
      expect([byQuery.status, byQuery.body.errors]).toEqual([
        400,
        [{ field: 'api_key', message: 'is not a query parameter here' }],
      ]);
      expect((await api('GET', `/users/self?api_key=alice:${tokens.get('alice')}`)).status).toBe(400);
    });

    it('refuses a query parameter on the auth routes, where it would be dropped', async () => {
      const alice = { headers: { authorization: `ApiKey alice:${tokens.get('alice')}` } };
      for (const [method, path, body, options] of [
        ['POST', '/auth/register?invite=1', { username: 'carl', email: 'carl@example.com', password: 'password-123' }],
        ['POST', '/auth/token?x=1', { login: 'alice', password: 'password-123' }],
        ['POST', '/auth/reset_token?x=1', { login: 'alice', password: 'password-123' }],
        ['GET', '/users/self?x=1', undefined, alice],
      ] as const) {
        const reply = await api(method, path, body, options);
        expect(reply.status, `${method} ${path}: ${reply.text}`).toBe(400);
      }
      // /users/self takes _fields, as the user's own URL does: of the fields they read of themselves.
      const fields = await api('GET', '/users/self?_fields=username,email', undefined, alice);
      expect(Object.keys(fields.body).filter((k) => !k.startsWith('_'))).toEqual(['username', 'email']);
      expect((await api('GET', '/users/self?_fields=password', undefined, alice)).status).toBe(400);
      // Nothing was done: no carl, and alice's token still works.
      expect((await register('carl', 'password-123')).status).toBe(201);
      expect((await self(`ApiKey alice:${tokens.get('alice')}`)).status).toBe(200);
    });

    it('writes a username beyond ASCII percent-encoded in the key, and reads it back so', async () => {
      // Cyrillic letters (all of them: a name of Latin and Cyrillic mixed is refused as a look-alike): a
      // header carries bytes, and Node refuses a value with these characters as they are.
      const name = '\u0430\u043b\u0451\u043d\u0430';
      const registered = await api('POST', '/auth/register', {
        username: name,
        email: 'alyona@example.com',
        password: 'password-123',
      });
      expect(registered.status, registered.text).toBe(201);
      const header = registered.headers.get('www-authenticate')!;
      expect(header).toBe(`ApiKey ${encodeURIComponent(name)}:${keyOf(registered)}`);
      expect(header).toMatch(/^ApiKey %D0%B0%D0%BB/);
      expect((await self(header)).body.username).toBe(name);
      const claimed = await api('POST', '/auth/token', { login: name, password: 'password-123' });
      expect(claimed.status, claimed.text).toBe(200);
      expect((await self(claimed.headers.get('www-authenticate')!)).body.username).toBe(name);
      // A broken percent-encoding names no one.
      expect((await self(`ApiKey %D0lyona:${String(claimed.body['token'])}`)).status).toBe(401);
      // The name as curl sends it, its UTF-8 bytes as they are (a probe's `josé` was a 401).
      const utf8 = Buffer.from(name, 'utf8').toString('latin1');
      expect((await self(`ApiKey ${utf8}:${String(claimed.body['token'])}`)).body.username).toBe(name);
    });

    it('answers a key that identifies no one with 401 on every route, even one anyone may read', async () => {
      const wrong = `ApiKey alice:${'0'.repeat(64)}`;
      // A NUL in the name, percent-encoded, was a 500 on PostgreSQL (which refuses it in text).
      const nul = `ApiKey a%00:${'0'.repeat(64)}`;
      for (const authorization of [wrong, nul, 'ApiKey alice', 'apikey nobody:x']) {
        const reply = await api('GET', '/authors', undefined, { headers: { authorization } });
        expect([reply.status, reply.headers.get('www-authenticate')], authorization).toEqual([401, 'ApiKey']);
        expect(reply.body.message).toMatch(/^the API key identifies no one/);
      }
      expect((await api('GET', '/authors')).status).toBe(200);
      // Another scheme's header is not this one's to judge: the request is anonymous.
      expect(
        (await api('GET', '/authors', undefined, { headers: { authorization: 'Basic dXNlcjpwdw==' } })).status,
      ).toBe(200);
      // The right key still identifies its user.
      expect((await self(`ApiKey alice:${tokens.get('alice')}`)).status).toBe(200);
    });

    it('finds a name stored before usernames had one form by its key, beside a newer lower-cased one', async () => {
      for (const name of ['iris', 'ivy']) expect((await register(name, 'password-123')).status).toBe(201);
      const sql = (text: string) => runSql(engine, database.url, dir, text);
      // iris's record as an older version stored it: `Iris`, beside `ivy` renamed `iris` (a newer one).
      await sql(`update auth_credential set user_key = 'Iris' where user_key = 'iris'`);
      await sql(`update "user" set username = 'Iris' where username = 'iris'`);
      await sql(`update auth_credential set user_key = 'iris' where user_key = 'ivy'`);
      await sql(`update "user" set username = 'iris' where username = 'ivy'`);
      expect((await self(`ApiKey Iris:${tokens.get('iris')}`)).body.username).toBe('Iris');
      expect((await self(`ApiKey IRIS:${tokens.get('ivy')}`)).body.username).toBe('iris');
      expect((await self(`ApiKey Iris:${tokens.get('ivy')}`)).body.username).toBe('iris');
      expect((await self(`ApiKey iris:${tokens.get('iris')}`)).status).toBe(401);
    });

    it('sees at the next read what was changed behind its back: groups, a password, a credential', async () => {
      // Reads of the same caller in a row are answered without reading the user again while the
      // user and credential tables are unchanged (lib/auth/unchanged-reads.ts): any commit by
      // another connection counts as a change.
      for (const name of ['gwen', 'hugo']) expect((await register(name, 'password-123')).status).toBe(201);
      const sql = (text: string) => runSql(engine, database.url, dir, text);
      const gwen = `ApiKey gwen:${tokens.get('gwen')}`;
      const hugo = `ApiKey hugo:${tokens.get('hugo')}`;
      for (let i = 0; i < 3; i++) expect((await self(gwen)).body.groups).not.toContain('admin');
      await sql(`update "user" set groups = '["admin"]' where username = 'gwen'`);
      expect((await self(gwen)).body.groups).toEqual(['admin']);
      await sql(`update "user" set groups = '[]' where username = 'gwen'`);
      expect((await self(gwen)).body.groups).toEqual([]);
      // Another password hash revokes the token; so does a credential that is gone.
      expect((await self(hugo)).status).toBe(200);
      await sql(`update "user" set password = password || 'x' where username = 'hugo'`);
      expect((await self(hugo)).status).toBe(401);
      expect((await self(gwen)).status).toBe(200);
      // The user's key is the username.
      await sql(`delete from auth_credential where user_key = 'gwen'`);
      expect((await self(gwen)).status).toBe(401);
    });

    it('sees at the next write what was changed behind its back, however many writes of other tables came between', async () => {
      // Writes too are answered from the last identification while the user and credential
      // tables are unchanged (SQLite; lib/sql/table-versions.ts): other tables' writes keep it.
      expect((await register('ivan', 'password-123')).status).toBe(201);
      const sql = (text: string) => runSql(engine, database.url, dir, text);
      const as = (method: string, path: string, body?: unknown) =>
        api(method, path, body, { headers: { authorization: `ApiKey ivan:${tokens.get('ivan')}` } });
      const created = await as('POST', '/authors', { name: 'Ivan', email: 'ivan.author@example.com' });
      expect(created.status, created.text).toBe(201);
      const path = `/authors/${String(created.body.id)}`;
      const write = async (name: string) => {
        // A write of another table first: the caller's identification must outlive it.
        const other = await as('POST', '/authors', { name, email: `${name}@example.com` });
        expect(other.status, other.text).toBe(201);
        return (await as('PATCH', path, { name })).status;
      };
      for (const name of ['m1', 'm2', 'm3']) expect(await write(name)).toBe(403);
      await sql(`update "user" set groups = '["admin"]' where username = 'ivan'`);
      expect(await write('a1')).toBe(200);
      expect(await write('a2')).toBe(200);
      await sql(`update "user" set groups = '[]' where username = 'ivan'`);
      expect(await write('m4')).toBe(403);
      // A token revoked behind its back: the next write is anonymous.
      await sql(`update "user" set groups = '["admin"]' where username = 'ivan'`);
      expect(await write('a3')).toBe(200);
      await sql(`delete from auth_credential where user_key = 'ivan'`);
      expect((await as('PATCH', path, { name: 'gone' })).status).toBe(401);
      expect((await api('GET', path)).body).toMatchObject({ name: 'a3' });
    });

    it('stores only a digest of each token, and a hash of each password', async () => {
      const credentials = await dump(engine, database.url, dir, 'auth_credential');
      const users = await dump(engine, database.url, dir, 'user');
      const stored = JSON.stringify([credentials, users]);
      for (const token of tokens.values()) expect(stored).not.toContain(token);
      expect(stored).not.toContain('password-123');
      expect(credentials.map((c) => c['token_digest'])).toEqual(
        expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{64}$/), expect.stringMatching(/^[0-9a-f]{64}$/)]),
      );
      for (const user of users) expect(user['password']).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    });

    it('takes passwords of 8 to 1,024 bytes: 7 characters is a 400, 8 and 64 are accepted', async () => {
      const short = await register('carol', '7-chars');
      expect(short.status).toBe(400);
      expect(short.body.errors).toEqual([expect.objectContaining({ field: 'password' })]);
      expect((await register('carol', '8-chars!')).status).toBe(201);
      expect((await register('dave', 'd'.repeat(64))).status).toBe(201);
      expect((await api('POST', '/auth/token', { login: 'dave', password: 'd'.repeat(64) })).status).toBe(200);
    });

    it("refuses a member's change or deletion of an author, whether or not it exists, and changes nothing", async () => {
      // Authors' item rules let members only view, and decide without the author: nothing is read.
      const as = (method: string, path: string, body?: unknown) =>
        api(method, path, body, { headers: { authorization: `ApiKey alice:${tokens.get('alice')}` } });
      const created = await as('POST', '/authors', { name: 'Alice', email: 'alice.author@example.com' });
      expect(created.status, created.text).toBe(201);
      const path = `/authors/${String(created.body.id)}`;
      for (const target of [path, '/authors/999999']) {
        expect((await as('PATCH', target, { name: 'changed' })).status).toBe(403);
        expect((await as('PUT', target, { name: 'changed', email: 'changed@example.com' })).status).toBe(403);
        expect((await as('DELETE', target)).status).toBe(403);
        expect((await api('PATCH', target, { name: 'changed' })).status).toBe(401);
      }
      // A token of another scheme is no credential, and the 401 says which to send (a probe sent Bearer).
      const bearer = await api('PATCH', path, { name: 'changed' }, { headers: { authorization: 'Bearer abc' } });
      expect([bearer.status, bearer.body.message]).toEqual([
        401,
        'log in to change this object (the Authorization header\'s "Bearer" is no scheme of this service: send ApiKey <username>:<token>, from POST /auth/token)',
      ]);
      expect((await as('GET', path)).body).toMatchObject({ name: 'Alice', email: 'alice.author@example.com' });
    });

    it('hashes a password that looks like a hash: it is a password like any other', async () => {
      const lookalike =
        '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$3J2wJ1dJr2n7fM6fBqUxqcm4yJv8Dqf9WY6xFSgHQzE';
      expect((await register('erin', lookalike)).status).toBe(201);
      const [erin] = (await dump(engine, database.url, dir, 'user')).filter((u) => u['username'] === 'erin');
      expect(erin!['password']).not.toBe(lookalike);
      expect(erin!['password']).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
      expect((await api('POST', '/auth/token', { login: 'erin', password: lookalike })).status).toBe(200);
    });
  },
);
