/**
 * What the database says, as the client hears it (ramses-starter): PostgreSQL serialization
 * failures (40001) are run again a bounded number of times, then answered 503 with Retry-After; a
 * NOT NULL the database enforces beyond the schema is a 400 naming the field; a SQLite file
 * locked by another process past the busy timeout is a 503. The failures are made behind the
 * service's back: a trigger raising serialization_failure (counting its calls in a sequence, which
 * no rollback undoes), a column made NOT NULL, an exclusive lock held by another connection.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSql, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/v1';
type PgClient = {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
};

describe('PostgreSQL errors under a running service', () => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const sql = (text: string) => runSql('postgres', database.url, dir, text);
  const attempts = async () => {
    const pg = createRequire(join(dir, 'node_modules', 'noop.js'))('pg') as {
      Client: new (o: { connectionString: string }) => PgClient;
    };
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return Number((await client.query('select last_value, is_called from attempts')).rows[0]!['last_value']);
    } finally {
      await client.end();
    }
  };
  /** Makes the next `failures` inserts into item fail with serialization_failure. */
  const failInserts = (failures: number) =>
    sql(`
      drop trigger if exists serialization on item;
      drop sequence if exists attempts;
      create sequence attempts;
      create or replace function serialization() returns trigger language plpgsql as $$
      begin
        if nextval('attempts') <= ${failures} then
          raise exception 'could not serialize access' using errcode = 'serialization_failure';
        end if;
        return new;
      end $$;
      create trigger serialization before insert on item for each row execute function serialization();`);

  beforeAll(async () => {
    dir = await builtProject('ramses-starter', 'e2e-database-errors');
    database = await testDatabase('postgres', dir, 'database_errors');
    service = await startService(dir, database.env, BASE);
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('runs a transaction that failed to serialize again: two failures, then a 201', async () => {
    await failInserts(2);
    const reply = await api('POST', '/items', { name: 'third time lucky' });
    expect(reply.status, reply.text).toBe(201);
    expect(await attempts()).toBe(3);
  });

  it('gives up after four attempts: 503 with Retry-After, nothing written', async () => {
    await failInserts(1000);
    const reply = await api('POST', '/items', { name: 'never' });
    expect(reply.status, reply.text).toBe(503);
    expect(reply.headers.get('retry-after')).toBe('2');
    expect(reply.text).not.toMatch(/serializ|trigger|plpgsql/i);
    expect(await attempts()).toBe(4);
    await sql('drop trigger serialization on item');
    expect((await api('GET', '/items?name=never')).body.total).toBe(0);
  });

  it('answers a NOT NULL that only the database knows with a 400 naming the field', async () => {
    await sql(
      "update item set description = '' where description is null; alter table item alter column description set not null",
    );
    const reply = await api('POST', '/items', { name: 'no description' });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.errors).toEqual([{ field: 'description', message: 'is required' }]);
    await sql('alter table item alter column description drop not null');
  });
});

describe('a SQLite file locked by another process', () => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;

  beforeAll(async () => {
    dir = await builtProject('ramses-starter', 'e2e-database-errors');
    database = await testDatabase('sqlite', dir, 'database_errors');
    service = await startService(dir, database.env, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('answers a write 503 with Retry-After once the busy timeout has passed, and writes again when the lock goes', async () => {
    const api = apiClient(service.origin, BASE);
    const Database = createRequire(join(dir, 'node_modules', 'noop.js'))('better-sqlite3') as new (file: string) => {
      exec(sql: string): void;
      close(): void;
    };
    const other = new Database(database.url.slice('sqlite:'.length));
    try {
      other.exec('begin exclusive');
      const reply = await api('POST', '/items', { name: 'while locked' });
      expect(reply.status, reply.text).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('2');
      other.exec('rollback');
    } finally {
      other.close();
    }
    expect((await api('POST', '/items', { name: 'after the lock' })).status).toBe(201);
    expect((await api('GET', '/items?name=while locked')).body.total).toBe(0);
  }, 30_000);
});
