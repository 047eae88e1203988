/**
 * On PostgreSQL a member's requests are identified from the last identification of the same
 * credentials while the user and credential tables are unchanged (lib/sql/pg-table-versions.ts:
 * a version row moved by triggers in the writing transaction, read once per turn). What must hold:
 * the member's user is read once, not per request; and nothing the service is not told of lets a
 * demoted member keep their rights: a demotion behind the service's back, in a session whose
 * triggers are off (`session_replication_role = replica`), after the triggers were dropped or
 * disabled, or the tables made again. ramses-example (a login cookie), auth on.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { querySql, runSql, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { statementsDuring } from '../support/query-log.js';
import { startService, type RunningService } from '../support/server.js';

const ROOT = { SVC_SYSTEM_USER: 'root', SVC_SYSTEM_PASSWORD: 'root-password', SVC_SYSTEM_EMAIL: 'root@example.com' };

describe('remembered callers on PostgreSQL', () => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService;
  const cookies = new Map<string, string>();

  const sql = (text: string) => runSql('postgres', database.url, dir, text);
  /** What `name` is answered reading their own record. */
  const self = async (name: string) => {
    const reply = await fetch(`${service.origin}/v1/users/${name}`, { headers: { cookie: cookies.get(name)! } });
    return { status: reply.status, body: (await reply.json()) as Record<string, unknown> };
  };
  /**
   * Whether `name` reads the other member's record as an admin does: members are shown others'
   * `_auth_fields` only, admins the e-mail address too. A read: it moves no version itself.
   */
  const readsAsAdmin = async (name: string) => {
    const other = name === 'mira' ? 'noor' : 'mira';
    const reply = await fetch(`${service.origin}/v1/users/${other}`, { headers: { cookie: cookies.get(name)! } });
    expect(reply.status).toBe(200);
    return 'email' in ((await reply.json()) as object);
  };

  const start = () =>
    startService(
      dir,
      { ...database.env, SVC_LOG_LEVEL: 'debug', SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(64), ...ROOT },
      '/v1',
    );
  const restart = async () => {
    await service.stop();
    service = await start();
  };

  /** The service's triggers on the user and credential tables, once its first identifications made them (in the background). */
  const watched = async () => {
    for (let i = 0; i < 100; i++) {
      const [row] = (await querySql(
        'postgres',
        database.url,
        dir,
        `select count(*)::int as n from pg_trigger where tgname like 'svc_watch_%' and tgenabled = 'A'`,
      )) as { n: number }[];
      if (row?.n === 4) return;
      expect((await self('mira')).status).toBe(200);
      await sleep(50);
    }
    throw new Error('the triggers were not made');
  };

  beforeAll(async () => {
    dir = await builtProject('ramses-example', 'e2e-pg-remembered');
    database = await testDatabase('postgres', dir, 'pg_remembered');
    service = await start();
    const api = apiClient(service.origin, '/v1');
    for (const name of ['mira', 'noor']) {
      const made = await api('POST', '/auth/register', {
        username: name,
        email: `${name}@example.com`,
        password: 'password-123',
      });
      expect(made.status, made.text).toBe(201);
      cookies.set(name, made.headers.get('set-cookie')!.split(';')[0]!);
    }
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it("reads a member's user once, then only the tables' version, while nothing changes", async () => {
    await watched();
    // Identified once more: read, and kept.
    expect((await self('mira')).status).toBe(200);
    const statements = await statementsDuring(service, async () => {
      for (let i = 0; i < 3; i++) expect((await self('mira')).body).toHaveProperty('email');
    });
    const identity = statements.filter((s) => /"auth_credential"/.test(s));
    expect(identity, statements.join('\n')).toEqual([]);
    expect(statements.filter((s) => /from svc_table_versions/.test(s)).length, statements.join('\n')).toBe(3);
    const triggers = await querySql(
      'postgres',
      database.url,
      dir,
      `select c.relname, t.tgname like '%_truncate' as truncate from pg_trigger t join pg_class c on c.oid = t.tgrelid
        where t.tgname like 'svc_watch_%' and t.tgenabled = 'A' order by 1, 2`,
    );
    expect(triggers).toEqual([
      { relname: 'auth_credential', truncate: false },
      { relname: 'auth_credential', truncate: true },
      { relname: 'user', truncate: false },
      { relname: 'user', truncate: true },
    ]);
  });

  it('sees a demotion or a promotion behind its back at the next request', async () => {
    expect(await readsAsAdmin('mira')).toBe(false);
    await sql(`update "user" set groups = '["admin"]' where username = 'mira'`);
    expect(await readsAsAdmin('mira')).toBe(true);
    await sql(`update "user" set groups = '[]' where username = 'mira'`);
    expect(await readsAsAdmin('mira')).toBe(false);
  });

  it("sees a promotion made where triggers are off for the session (replica: a restore's, a replication's)", async () => {
    expect(await readsAsAdmin('noor')).toBe(false);
    await sql(
      `set session_replication_role = replica; update "user" set groups = '["admin"]' where username = 'noor'; reset session_replication_role`,
    );
    expect(await readsAsAdmin('noor')).toBe(true);
    await sql(`update "user" set groups = '[]' where username = 'noor'`);
    expect(await readsAsAdmin('noor')).toBe(false);
  });

  it('remembers nothing once a trigger is dropped or disabled: a promotion then is seen too', async () => {
    for (const [off, name] of [
      [`drop trigger %s on "user"`, 'dropped'],
      [`alter table "user" disable trigger %s`, 'disabled'],
    ] as const) {
      // A service started now makes the triggers at its first identification.
      await restart();
      await watched();
      expect(await readsAsAdmin('mira'), name).toBe(false);
      expect(await readsAsAdmin('mira'), name).toBe(false);
      const [trigger] = (await querySql(
        'postgres',
        database.url,
        dir,
        `select tgname from pg_trigger where tgrelid = '"user"'::regclass and tgname like 'svc_watch_%' and tgname not like '%_truncate' and tgenabled = 'A'`,
      )) as { tgname: string }[];
      expect(trigger, name).toBeDefined();
      await sql(off.replace('%s', trigger!.tgname));
      // No version moves for this one: only reading the user again sees it.
      await sql(`update "user" set groups = '["admin"]' where username = 'mira'`);
      expect(await readsAsAdmin('mira'), name).toBe(true);
      await sql(`update "user" set groups = '[]' where username = 'mira'`);
      expect(await readsAsAdmin('mira'), name).toBe(false);
      await sql(`drop trigger if exists ${trigger!.tgname} on "user"`);
    }
  });

  it('sees a demotion made with the triggers off and on again around it, in one transaction (pg_restore --disable-triggers)', async () => {
    await restart();
    await watched();
    const [{ tgname }] = (await querySql(
      'postgres',
      database.url,
      dir,
      `select tgname from pg_trigger where tgrelid = '"user"'::regclass and tgname like 'svc_watch_%' and tgname not like '%_truncate'`,
    )) as [{ tgname: string }];
    await sql(`update "user" set groups = '["admin"]' where username = 'mira'`);
    expect(await readsAsAdmin('mira')).toBe(true);
    expect(await readsAsAdmin('mira')).toBe(true);
    await sql(
      `begin; alter table "user" disable trigger all; update "user" set groups = '[]' where username = 'mira'; alter table "user" enable always trigger ${tgname}; alter table "user" enable trigger all; commit`,
    );
    expect(await readsAsAdmin('mira')).toBe(false);
  });

  it('sees a new password or a logout everywhere made behind its back', async () => {
    await restart();
    // Identified, a member reads their own e-mail address; the anonymous caller a stale cookie makes does not.
    const identified = async (name: string) => 'email' in (await self(name)).body;
    expect(await identified('noor')).toBe(true);
    expect(await identified('noor')).toBe(true);
    // A logout everywhere: the user's credential (none yet: their tickets are of epoch 0) moves the epoch on.
    await sql(`insert into auth_credential (user_key, session_epoch) values ('noor', 1)`);
    expect(await identified('noor')).toBe(false);
    expect(await identified('mira')).toBe(true);
    await sql(`update "user" set password = password || 'x' where username = 'mira'`);
    expect(await identified('mira')).toBe(false);
  });
});
