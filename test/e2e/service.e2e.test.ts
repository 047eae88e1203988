/**
 * The generated service as an operator meets it: `npm start` in the generated folder serves
 * every route the RAML lists; start-up refuses bad settings with a message naming the key;
 * SIGTERM lets requests in flight finish; the database file lives where service.ini says.
 */
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { runSql, testDatabase } from '../support/databases.js';
import { apiClient } from '../support/http.js';
import { builtProject, fixtureRaml, generatedProject, openProjectDatabase } from '../support/project.js';
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

/**
 * The paths of `app.printRoutes({ commonPrefix: false })`: a tree, one node a line, indented four
 * characters a level, each node's text the part of the path after its parent's.
 */
function routeTable(printed: string): string[] {
  const stack: string[] = [];
  const paths: string[] = [];
  for (const line of printed.split('\n')) {
    const node = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!node) continue;
    stack.length = node[1]!.length / 4;
    stack.push(node[2]!);
    if (node[3] && node[3] !== '-') paths.push(stack.join(''));
  }
  return paths;
}

describe.each(['ramses-starter', 'ramses-example', 'blog'])(
  '%s: nothing is served that the OpenAPI document does not list',
  (fixture) => {
    const ir = analyze(fixtureRaml(fixture)).ir!;
    beforeAll(() => builtProject(fixture, 'e2e-service'));

    it('has a route table of the document’s paths (auth on where the API has auth) and the docs page, and refuses TRACE', async () => {
      const dir = await builtProject(fixture, 'e2e-service');
      const auth: Record<string, string> =
        fixture === 'ramses-starter'
          ? {}
          : { SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'route-table-secret-0123456789abcdef' };
      type App = {
        ready(): Promise<void>;
        printRoutes(o: object): string;
        inject(o: object): Promise<{ statusCode: number; json(): { paths: object } }>;
        close(): Promise<void>;
      };
      const db = await openProjectDatabase<{ close(): Promise<void> }>(dir, {
        SVC_DATABASE_URL: 'sqlite::memory:',
        ...auth,
      });
      const { loadServiceConfig } = await import(pathToFileURL(join(dir, 'dist/config.js')).href);
      const { buildApp } = await import(pathToFileURL(join(dir, 'dist/app.js')).href);
      const app = (await buildApp(
        loadServiceConfig({ SVC_CONFIG: join(dir, 'none.ini'), SVC_DATABASE_URL: 'sqlite::memory:', ...auth }),
        db,
        { logger: false },
      )) as App;
      try {
        await app.ready();
        const document = (await app.inject({ method: 'GET', url: `${ir.basePath}/openapi.json` })).json();
        const documented = Object.keys(document.paths).map((p) => `${ir.basePath}${p.replace(/\{(\w+)\}/g, ':$1')}`);
        const docsPage = ['', '/', '/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png'].map(
          (asset) => `${ir.basePath}/docs${asset}`,
        );
        expect(routeTable(app.printRoutes({ commonPrefix: false })).sort()).toEqual(
          [...documented, ...docsPage].sort(),
        );
        for (const path of documented.slice(0, 3)) {
          const trace = await app.inject({ method: 'TRACE', url: path.replace(/:\w+/g, '1') });
          expect([404, 405], path).toContain(trace.statusCode);
        }
      } finally {
        await app.close();
        await db.close();
      }
    });
  },
);

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
      // Where the API and its reference are, said once it listens; `/docs/` leads to the page.
      expect(output).toContain(`"msg":"serving the API at ${origin!}/v1/ (reference: ${origin!}/v1/docs)"`);
      const docs = await fetch(`${origin!}/v1/docs/`, { redirect: 'manual' });
      expect([docs.status, docs.headers.get('location')]).toEqual([301, '../docs']);
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
    return execa('node', ['dist/server.js'], {
      cwd: dir,
      env: { SVC_CONFIG: file, PORT: '0', ...env },
      reject: false,
      all: true,
      timeout: 30_000,
    });
  };

  it.each([
    // The variable that set it is named (a new user's PORT was blamed on SVC_PORT).
    [{ PORT: 'eighty' }, /port must be a whole number from 0 to 65535, not "eighty" \(set by PORT\)/],
    [
      { PORT: '', SVC_PORT: '99999' },
      /port must be a whole number from 0 to 65535, not "99999" \(set in service.ini or SVC_PORT\)/,
    ],
    [{ SVC_ENGINE: 'oracle' }, /engine must be one of svc_sqla, svc_mongodb, not "oracle"/],
    [{ SVC_DATABASE_URL: 'mysql://x' }, /database.url must start with sqlite: or postgres:\/\//],
    [{ SVC_DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:1/db' }, /cannot open the database: .*check database.url/],
    [{ SVC_AUTH: 'true' }, /auth = true/],
    [
      { SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(31) },
      /auth_tkt_secret is too short: each secret needs 32 bytes or more/,
    ],
    [{ SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: `${'n'.repeat(32)},${'o'.repeat(31)}` }, /auth_tkt_secret is too short/],
    [{ SVC_CORS_ALLOW_CREDENTIALS: 'true', SVC_CORS_ALLOW_ORIGINS: '*' }, /cors.allow_origins cannot be \*/],
    [
      { SVC_CORS_ALLOW_CREDENTIALS: 'true', SVC_CORS_ALLOW_ORIGINS: 'https://app.example,null' },
      /cors.allow_origins cannot name null when cors.allow_credentials is true/,
    ],
    [{ SVC_HTTP_HANDLER_TIMEOUT: '0' }, /http.handler_timeout must be a whole number from 1 to/],
    [{ SVC_RATE_LIMIT_WRITES: '-5' }, /rate_limit.writes must be a whole number from 0 to/],
    [{ SVC_RATE_LIMIT_WINDOW: '10' }, /rate_limit.window must be a whole number from 1000 to/],
    [{ SVC_FEED_MAX_PER_USER: 'many' }, /feed.max_per_user must be a whole number from 0 to/],
    [{ SVC_BULK_MAX: 'all' }, /bulk_max must be a whole number from 1 to/],
    [{ SVC_MAX_OFFSET: '1.5' }, /max_offset must be a whole number from 0 to/],
    // An API with x-ACLs served open, as an admin to anyone, where other machines reach it (the Dockerfile's host).
    [{ SVC_HOST: '0.0.0.0' }, /auth is off \(the default\) and the service would listen on 0\.0\.0\.0.*SVC_AUTH=false/],
    [{ SVC_HOST: '::' }, /auth is off \(the default\) and the service would listen on ::/],
  ])('refuses %o with a message that names the setting', async (env, message) => {
    const result = await start(env);
    expect(result.exitCode).toBe(1);
    expect(result.all).toMatch(message);
    expect(result.all).toMatch(/^The service could not start: /m);
    expect(result.all).not.toContain('hunter2');
    expect(result.all).not.toMatch(/\n\s+at /);
  });

  it('says in one line that its port is taken, with no stack trace', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      const result = await start({ PORT: port });
      expect(result.exitCode).toBe(1);
      expect(result.all).toMatch(
        new RegExp(`^The service could not start: 127\\.0\\.0\\.1 port ${port} is in use \\(another program`, 'm'),
      );
      // The system's code stays in it: what scripts look for (test/support/server.ts does).
      expect(result.all).toContain('[EADDRINUSE]');
      expect(result.all).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('refuses settings that cannot serve before it opens the database: nothing is migrated', async () => {
    // A new build with a settings mistake migrated production and then stopped; the old build then refused the database.
    const file = join(dir, 'data', `refused-${process.pid}.db`);
    const refused: Record<string, string>[] = [
      { SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: '' },
      { SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'short' },
      { SVC_AUTH: 'true', SVC_AUTH_TKT_SECRET: 'x'.repeat(32), SVC_AUTH_REISSUE_TIME: '9999999' },
      { SVC_HOST: '0.0.0.0' },
    ];
    for (const env of refused) {
      const result = await start({ ...env, SVC_DATABASE_URL: `sqlite:${file}` });
      expect(result.exitCode, result.all).toBe(1);
      expect(result.all).toMatch(/^The service could not start: /m);
      expect(result.all).not.toMatch(/migration/);
      expect(existsSync(file), JSON.stringify(env)).toBe(false);
    }
  });

  /** What the service logs from its start until it serves (or stops), then stopped. */
  const served = async (env: Record<string, string>) => {
    const child = execa('node', ['dist/server.js'], {
      cwd: dir,
      env: { SVC_CONFIG: join(dir, 'none.ini'), SVC_DATABASE_URL: 'sqlite::memory:', PORT: '0', ...env },
      reject: false,
      all: true,
    });
    let log = '';
    child.all.on('data', (chunk: Buffer) => (log += chunk.toString()));
    for (let i = 0; i < 300 && !log.includes('serving the API') && child.exitCode === null; i++) await sleep(50);
    child.kill('SIGTERM');
    await child;
    return log;
  };

  it('serves with auth off only where asked, and says at every start that anyone is an admin', async () => {
    for (const env of [{}, { SVC_HOST: '0.0.0.0', SVC_AUTH: 'false' }] as Record<string, string>[]) {
      const log = await served(env);
      expect(log, JSON.stringify(env)).toContain('serving the API');
      expect(log).toMatch(/"level":40,.*"msg":"auth is off: the API's x-ACLs and field privacy are not applied/);
    }
  });

  it('names a key of service.ini that nothing reads, with the setting it meant, and starts', async () => {
    const file = join(dir, 'unread-key.ini');
    writeFileSync(file, 'auth_timeout = 60\n');
    const log = await served({ SVC_CONFIG: file });
    expect(log).toContain('serving the API');
    expect(log).toMatch(
      /"level":40,.*"msg":".*unread-key\.ini sets auth_timeout, which is not a setting of the service and changes nothing: did you mean auth\.timeout\?"/,
    );
  });

  it('reads service.ini, with environment variables over it', async () => {
    const result = await start({ SVC_LOG_LEVEL: 'loud' }, 'log.level = debug\n[database]\nurl = sqlite::memory:\n');
    expect(result.all).toMatch(/log.level must be one of .* not "loud"/);
  });

  it('npm run migrate applies the migrations once, then finds the database up to date', async () => {
    const database = await testDatabase('sqlite', dir, 'migrate');
    const migrate = () =>
      execa('node', ['dist/db/migrate.js'], {
        cwd: dir,
        env: { SVC_CONFIG: join(dir, 'none.ini'), SVC_DATABASE_URL: database.url },
        reject: false,
        all: true,
      });
    const first = await migrate();
    expect(first.exitCode, first.all).toBe(0);
    expect(first.all).toContain('applied 0001_initial');
    expect((await migrate()).all).toContain('the database is up to date');
    await database.drop();
  });

  it('several instances starting at once on one PostgreSQL database migrate it once', async () => {
    const database = await testDatabase('postgres', dir, 'concurrent-migrate');
    const services = await Promise.all(
      [0, 1, 2].map(() => startService(dir, { SVC_DATABASE_URL: database.url }, '/v1')),
    );
    for (const service of services) expect((await fetch(`${service.origin}/v1/health`)).status).toBe(200);
    await Promise.all(services.map((s) => s.stop()));
    await database.drop();
  });

  it('refuses to start on a database whose applied migration has changed', async () => {
    const database = await testDatabase('sqlite', dir, 'migration-changed');
    await runSql(
      'sqlite',
      database.url,
      dir,
      "create table svc_migrations (name varchar(200) primary key, checksum varchar(64) not null, applied_at varchar(32) not null); insert into svc_migrations values ('0001_initial', 'old', 'then')",
    );
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
      expect(await reply.json()).toMatchObject({
        status_code: 503,
        message: 'the database does not answer; try again in a moment',
      });
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
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        service.signal('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    expect(await response).toBe(201);
    expect(await service.stop()).toBe(0);
    await expect(fetch(`${service.origin}/v1/health`)).rejects.toThrow('fetch failed');
    await database.drop();
  });

  it('drains under load on kept-alive connections: each answer a 201 or a 503, every 201 kept, exit 0', async () => {
    const database = await testDatabase('sqlite', dir, 'drain');
    const service = await startService(dir, { SVC_DATABASE_URL: database.url }, '/v1');
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const statuses: Record<string, number> = {};
    const acknowledged: number[] = [];
    let signalled = false;
    const create = (name: string) =>
      new Promise<{ status: number; text: string; closes: boolean } | null>((resolve) => {
        const req = request(
          `${service.origin}/v1/items`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => void (text += chunk.toString()));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, text, closes: res.headers.connection === 'close' }),
            );
          },
        );
        req.on('error', () => resolve(null));
        req.end(JSON.stringify({ name }));
      });
    const client = async (c: number) => {
      for (let i = 0; ; i++) {
        const reply = await create(`drain ${c}-${i}`);
        const status = reply ? String(reply.status) : 'connection closed';
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (!reply) return expect(signalled, 'a connection failed before SIGTERM').toBe(true);
        if (reply.status === 201) acknowledged.push(JSON.parse(reply.text).id);
        else {
          expect(reply.status, reply.text).toBe(503);
          expect(signalled).toBe(true);
        }
        if (signalled && reply.status === 503) expect(reply.closes).toBe(true);
      }
    };
    const load = Promise.all(Array.from({ length: 20 }, (_, c) => client(c)));
    await sleep(1000);
    signalled = true;
    service.signal('SIGTERM');
    await load;
    agent.destroy();
    expect(await service.stop()).toBe(0);
    const again = await startService(dir, { SVC_DATABASE_URL: database.url }, '/v1');
    try {
      // Every page: more than a page of 1,000 is acknowledged when writes are fast.
      const present = new Set<number>();
      for (let start = 0; ; start += 1000) {
        const page = (await (
          await fetch(`${again.origin}/v1/items?_limit=1000&_start=${start}&_fields=id`)
        ).json()) as { data: { id: number }[] };
        for (const o of page.data) present.add(o.id);
        if (page.data.length < 1000) break;
      }
      expect(acknowledged.length).toBeGreaterThan(20);
      expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
      console.log(`SIGTERM under load: ${JSON.stringify(statuses)}`);
    } finally {
      await again.stop();
      await database.drop();
    }
  });
});
