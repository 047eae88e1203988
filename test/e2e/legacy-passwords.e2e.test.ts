/**
 * Users brought over from Ramses (issue 18): their bcrypt hashes (`$2a$`, `$2b$`, `$2y$`) verify
 * at login and are replaced by argon2id on the first success. The hasher is the built project's
 * (dist/lib/auth/passwords.js), checked against hashes from bcryptjs and Openwall's
 * crypt_blowfish test vectors; then a user row written straight into SQLite, PostgreSQL and
 * MongoDB, as a migration script would, logs in over HTTP. A Ramses ApiKey token is no credential (not carried over).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiKeyHeader } from '../../runtime/src/lib/auth/tokens.js';
import { MongoClient, type Collection } from 'mongodb';
import { ENGINES, runSql, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';

interface Hasher {
  verify(stored: string | null | undefined, password: string): Promise<{ ok: boolean; rehash: boolean }>;
}
type PgClient = {
  connect(): Promise<void>;
  query(sql: string, values: unknown[]): Promise<{ rows: { password: string }[] }>;
  end(): Promise<void>;
};
type SqliteDb = { prepare(sql: string): { get(...args: unknown[]): { password: string } | undefined }; close(): void };
interface Argon2 {
  readonly argon2id: number;
  hash(
    password: string,
    options: { type: number; memoryCost: number; timeCost: number; parallelism: number },
  ): Promise<string>;
}
interface Bcrypt {
  hash(password: string, rounds: number): Promise<string>;
}

/** Openwall crypt_blowfish's test vectors (the reference implementation's own), cost 5. */
const VECTORS: [password: string, hash: string][] = [
  ['U*U', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW'],
  ['U*U*', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK'],
  ['U*U*U', '$2a$05$XXXXXXXXXXXXXXXXXXXXXOAcXxm9kjPGEMsLznoKqmqw7tc8WCx4a'],
  [
    // bcrypt reads 72 bytes of the password: the rest never mattered, in Ramses either.
    '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789chars after 72 are ignored',
    '$2a$05$abcdefghijklmnopqrstuu5s2v8.iXieOjg/.AySBTTZIIVFJeBui',
  ],
];

/** The same hash under another prefix: the three compute the same digest for these passwords. */
const withPrefix = (hash: string, minor: 'a' | 'b' | 'y') => `$2${minor}${hash.slice(3)}`;

let dir: string;

beforeAll(async () => {
  dir = await builtProject('ramses-example', 'e2e-legacy-passwords');
}, 300_000);

describe('the PasswordHasher of a generated project', () => {
  let hasher: Hasher;
  let bcrypt: Bcrypt;

  beforeAll(async () => {
    const passwords = await import(pathToFileURL(join(dir, 'dist/lib/auth/passwords.js')).href);
    hasher = new passwords.PasswordHasher() as Hasher;
    bcrypt = createRequire(join(dir, 'node_modules', 'noop.js'))('bcryptjs') as Bcrypt;
  });

  it('verifies the crypt_blowfish vectors under $2a$, $2b$ and $2y$, and asks for a rehash', async () => {
    for (const [password, hash] of VECTORS) {
      for (const minor of ['a', 'b', 'y'] as const) {
        const stored = withPrefix(hash, minor);
        expect(await hasher.verify(stored, password), stored).toEqual({ ok: true, rehash: true });
        // A change in the first byte (one past the 72nd would not count: see the last vector).
        expect(await hasher.verify(stored, `x${password}`)).toEqual({ ok: false, rehash: false });
      }
    }
  });

  it('verifies hashes bcryptjs makes (cost 4) and refuses a wrong password', async () => {
    const made = await bcrypt.hash('correct horse battery', 4);
    expect(made).toMatch(/^\$2[ab]\$04\$/);
    for (const minor of ['a', 'b', 'y'] as const) {
      expect(await hasher.verify(withPrefix(made, minor), 'correct horse battery')).toEqual({ ok: true, rehash: true });
      expect(await hasher.verify(withPrefix(made, minor), 'correct horse battery ')).toEqual({
        ok: false,
        rehash: false,
      });
    }
    const unicode = await bcrypt.hash('pässwörd ✓', 4);
    expect((await hasher.verify(unicode, 'pässwörd ✓')).ok).toBe(true);
  });

  it('asks for a rehash of an argon2id hash made with weaker settings than the current ones, not of a current one', async () => {
    const argon2 = createRequire(join(dir, 'node_modules', 'noop.js'))('argon2') as Argon2;
    const weak = await argon2.hash('correct horse battery', {
      type: argon2.argon2id,
      memoryCost: 4096,
      timeCost: 1,
      parallelism: 1,
    });
    expect(await hasher.verify(weak, 'correct horse battery')).toEqual({ ok: true, rehash: true });
    expect(await hasher.verify(weak, 'wrong horse battery')).toEqual({ ok: false, rehash: false });
    const current = await argon2.hash('correct horse battery', {
      type: argon2.argon2id,
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    expect(await hasher.verify(current, 'correct horse battery')).toEqual({ ok: true, rehash: false });
  });

  it('treats anything that is not a well-formed bcrypt or argon2 hash as no password at all', async () => {
    const [password, hash] = VECTORS[0]!;
    for (const stored of [
      withPrefix(hash, 'x' as 'a'), // $2x$: crypt_blowfish's marker for hashes of the sign-extension bug
      `$2$05${hash.slice(6)}`,
      hash.slice(0, -1),
      `${hash}A`,
      hash.replace('$05$', '$03$'),
      password,
      '',
      null,
    ]) {
      expect(await hasher.verify(stored, password), String(stored)).toEqual({ ok: false, rehash: false });
    }
  });
});

describe('an ApiKey token of Ramses (docs/migrating-from-ramses.md: not carried over)', () => {
  it('is not a credential: 32 hex characters (a uuid4) are read as no ApiKey header at all', () => {
    expect(readApiKeyHeader(`ApiKey ada:${'0123456789abcdef'.repeat(2)}`)).toBeNull();
    expect(readApiKeyHeader(`ApiKey ada:${'0123456789abcdef'.repeat(4)}`)).toEqual({
      user: 'ada',
      token: '0123456789abcdef'.repeat(4),
    });
  });
});

describe.each(ENGINES)('a user row with a bcrypt hash, written into the database (%s)', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let bcrypt: Bcrypt;

  /** The `user` collection (the primary key, username, is `_id`), behind the service's back. */
  const onMongo = async <R>(work: (users: Collection) => Promise<R>): Promise<R> => {
    const client = new MongoClient(database.url);
    try {
      return await work(client.db().collection('user'));
    } finally {
      await client.close();
    }
  };

  /** The user's stored hash, read behind the service's back. */
  const storedPassword = async (): Promise<string | undefined> => {
    const modules = createRequire(join(dir, 'node_modules', 'noop.js'));
    const sql = 'select password from "user" where username = $1';
    if (engine === 'mongodb')
      return onMongo(
        async (users) => (await users.findOne({ _id: 'ada' as never }))?.['password'] as string | undefined,
      );
    if (engine === 'postgres') {
      const pg = modules('pg') as { Client: new (options: { connectionString: string }) => PgClient };
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql, ['ada'])).rows[0]?.password;
      } finally {
        await client.end();
      }
    }
    const Database = modules('better-sqlite3') as new (file: string, options: object) => SqliteDb;
    const db = new Database(database.url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare(sql.replace('$1', '?')).get('ada')?.password;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    bcrypt = createRequire(join(dir, 'node_modules', 'noop.js'))('bcryptjs') as Bcrypt;
    database = await testDatabase(engine, dir, 'legacy_passwords');
    service = await startService(dir, { ...database.env, SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(48) }, BASE);
    api = apiClient(service.origin, BASE);
    // As Ramses (py-bcrypt through cryptacular) stored it: `$2a$`, here at cost 4 to keep the test quick.
    const legacy = withPrefix(await bcrypt.hash('ramses password', 4), 'a');
    if (engine === 'mongodb')
      await onMongo((users) =>
        users.insertOne({ _id: 'ada' as never, email: 'ada@example.com', password: legacy, groups: ['user'] }),
      );
    else
      await runSql(
        engine,
        database.url,
        dir,
        `insert into "user" (username, email, password, groups) values ('ada', 'ada@example.com', '${legacy}', '["user"]')`,
      );
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('refuses a wrong password and leaves the hash alone', async () => {
    const before = await storedPassword();
    const wrong = await api('POST', '/auth/login', { login: 'ada', password: 'not the password' });
    expect(wrong.status, wrong.text).toBe(401);
    expect(await storedPassword()).toBe(before);
    expect(before).toMatch(/^\$2a\$04\$/);
  });

  it('logs in with the old password, stores an argon2id hash instead, and logs in again with it', async () => {
    const login = await api('POST', '/auth/login', { login: 'ada@example.com', password: 'ramses password' });
    expect(login.status, login.text).toBe(200);
    expect(login.body).toMatchObject({ username: 'ada' });
    expect(login.text).not.toContain('$2a$');
    const cookie = /^(ramses_auth_tkt=[^;]+)/.exec(login.headers.get('set-cookie')!)![1]!;
    expect((await api('GET', '/users/self', undefined, { headers: { cookie } })).status).toBe(200);

    expect(await storedPassword()).toMatch(/^\$argon2id\$/);
    const again = await api('POST', '/auth/login', { login: 'ada', password: 'ramses password' });
    expect(again.status, again.text).toBe(200);
    expect((await api('POST', '/auth/login', { login: 'ada', password: 'Ramses password' })).status).toBe(401);
  });
});
