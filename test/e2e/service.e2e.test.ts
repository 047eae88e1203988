/**
 * The generated service as an operator meets it: `npm start` in the generated folder serves
 * every route the RAML lists; start-up refuses bad settings with a message naming the key;
 * SIGTERM lets requests in flight finish; the database file lives where service.ini says.
 */
import { request } from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { runSql, testDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { builtProject, fixtureRaml, generatedProject } from '../support/project.js';
import { startService } from '../support/server.js';

describe.each(['ramses-starter', 'ramses-example', 'blog'])('%s: every route the RAML lists is served', (fixture) => {
  const ir = analyze(fixtureRaml(fixture)).ir!;
  // Building may install the generated project's dependencies first (minutes on a fresh machine): a hook's time.
  beforeAll(() => builtProject(fixture, 'e2e-service'));

  it('answers each listed method on each route (never 405, never "not a resource")', async () => {
    const dir = await builtProject(fixture, 'e2e-service');
    const database = await testDatabase('sqlite', dir, `routes-${fixture}`);
    const service = await startService(dir, { SVC_DATABASE_URL: database.url }, ir.basePath);
    try {
      const api = apiClient(service.origin, ir.basePath);
      for (const route of ir.routes) {
        const path = route.path.replace(/:[^/]+/g, '1');
        for (const op of route.operations) {
          const reply = await api(op.method, path, ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined);
          const what = `${op.method} ${route.path}`;
          expect(reply.status, what).not.toBe(405);
          if (reply.status === 404) expect(reply.body?.message ?? '', what).not.toMatch(/is not a resource/);
          expect(reply.status, what).toBeLessThan(500);
        }
      }
    } finally {
      await service.stop();
      await database.drop();
    }
  });
});

describe('npm start', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await generatedProject('ramses-starter', 'npm-start');
  });

  it('builds, migrates a SQLite database under ./data and serves', async () => {
    // npm does not pass signals on to the service: run it in its own process group and signal the group.
    const child = execa('npm', ['start'], { cwd: dir, env: { PORT: '0' }, reject: false, all: true, detached: true });
    let output = '';
    child.all?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    try {
      let origin: string | undefined;
      for (let i = 0; i < 600 && !origin; i++) {
        origin = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(output)?.[1];
        if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
        await sleep(100);
      }
      expect(origin, output).toBeDefined();
      const api = apiClient(origin!, '/v1');
      expect((await api('POST', '/items', { name: 'first' })).status).toBe(201);
      expect((await api('GET', '/items')).body.total).toBe(1);
      expect(existsSync(join(dir, 'data', 'service.db'))).toBe(true);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await child;
    }
  });
});

describe('start-up', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await builtProject('ramses-example', 'e2e-service');
  });

  const start = (env: Record<string, string>, ini?: string) => {
    const file = join(dir, `startup-${Object.keys(env).join('-') || 'ini'}.ini`);
    if (ini !== undefined) writeFileSync(file, ini);
    return execa('node', ['dist/server.js'], { cwd: dir, env: { SVC_CONFIG: file, PORT: '0', ...env }, reject: false, all: true, timeout: 30_000 });
  };

  it.each([
    [{ PORT: 'eighty' }, /port must be a whole number from 0 to 65535, not "eighty"/],
    [{ SVC_ENGINE: 'oracle' }, /engine must be one of svc_sqla, svc_mongodb, not "oracle"/],
    [{ SVC_DATABASE_URL: 'mysql://x' }, /database.url must start with sqlite: or postgres:\/\//],
    [{ SVC_DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:1/db' }, /cannot open the database: .*check database.url/],
    [{ SVC_AUTH: 'true' }, /auth = true/],
    [{ SVC_CORS_ALLOW_CREDENTIALS: 'true', SVC_CORS_ALLOW_ORIGINS: '*' }, /cors.allow_origins cannot be \*/],
    [{ SVC_HTTP_HANDLER_TIMEOUT: '0' }, /http.handler_timeout must be a whole number from 1 to/],
    [{ SVC_RATE_LIMIT_WRITES: '-5' }, /rate_limit.writes must be a whole number from 0 to/],
    [{ SVC_RATE_LIMIT_WINDOW: '10' }, /rate_limit.window must be a whole number from 1000 to/],
    [{ SVC_BULK_MAX: 'all' }, /bulk_max must be a whole number from 1 to/],
    [{ SVC_MAX_OFFSET: '1.5' }, /max_offset must be a whole number from 0 to/],
  ])('refuses %o with a message that names the setting', async (env, message) => {
    const result = await start(env);
    expect(result.exitCode).toBe(1);
    expect(result.all).toMatch(message);
    expect(result.all).toMatch(/^The service could not start: /m);
    expect(result.all).not.toContain('hunter2');
    expect(result.all).not.toMatch(/\n\s+at /);
  });

  it('reads service.ini, with environment variables over it', async () => {
    const result = await start({ SVC_LOG_LEVEL: 'loud' }, 'log.level = debug\n[database]\nurl = sqlite::memory:\n');
    expect(result.all).toMatch(/log.level must be one of .* not "loud"/);
  });

  it('npm run migrate applies the migrations once, then finds the database up to date', async () => {
    const database = await testDatabase('sqlite', dir, 'migrate');
    const migrate = () => execa('node', ['dist/db/migrate.js'], { cwd: dir, env: { SVC_CONFIG: join(dir, 'none.ini'), SVC_DATABASE_URL: database.url }, reject: false, all: true });
    const first = await migrate();
    expect(first.exitCode, first.all).toBe(0);
    expect(first.all).toContain('applied 0001_initial');
    expect((await migrate()).all).toContain('the database is up to date');
    await database.drop();
  });

  it('several instances starting at once on one PostgreSQL database migrate it once', async () => {
    const database = await testDatabase('postgres', dir, 'concurrent-migrate');
    const services = await Promise.all([0, 1, 2].map(() => startService(dir, { SVC_DATABASE_URL: database.url }, '/v1')));
    for (const service of services) expect((await fetch(`${service.origin}/v1/health`)).status).toBe(200);
    await Promise.all(services.map((s) => s.stop()));
    await database.drop();
  });

  it('refuses to start on a database whose applied migration has changed', async () => {
    const database = await testDatabase('sqlite', dir, 'migration-changed');
    await runSql('sqlite', database.url, dir, "create table svc_migrations (name varchar(200) primary key, checksum varchar(64) not null, applied_at varchar(32) not null); insert into svc_migrations values ('0001_initial', 'old', 'then')");
    const result = await start({ SVC_DATABASE_URL: database.url });
    expect(result.exitCode).toBe(1);
    expect(result.all).toMatch(/migration 0001_initial was applied to this database but has changed since/);
    await database.drop();
  });
});

describe('/health', () => {
  it('answers 503 when the database stops answering', async () => {
    const dir = await builtProject('ramses-starter', 'e2e-service');
    const database = await testDatabase('postgres', dir, 'health');
    const service = await startService(dir, { SVC_DATABASE_URL: database.url }, '/v1');
    try {
      expect((await fetch(`${service.origin}/v1/health`)).status).toBe(200);
      await database.drop();
      const reply = await fetch(`${service.origin}/v1/health`);
      expect(reply.status).toBe(503);
      expect(await reply.json()).toMatchObject({ status_code: 503, message: 'the database does not answer; try again in a moment' });
      expect(reply.headers.get('retry-after')).toBe('2');
    } finally {
      await service.stop();
    }
  });
});

describe('SIGTERM', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await builtProject('ramses-starter', 'e2e-service');
  });

  afterAll(() => undefined);

  it('lets a request in flight finish, refuses new connections, then exits 0', async () => {
    const database = await testDatabase('sqlite', dir, 'sigterm');
    const service = await startService(dir, { SVC_DATABASE_URL: database.url }, '/v1');
    const url = new URL(`${service.origin}/v1/items`);
    const body = JSON.stringify({ name: 'in flight' });
    const response = new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        service.signal('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    expect(await response).toBe(201);
    expect(await service.stop()).toBe(0);
    await expect(fetch(`${service.origin}/v1/health`)).rejects.toThrow();
    await database.drop();
  });
});
