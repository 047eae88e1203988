/**
 * The generated Dockerfile, compose.yaml and `npm run dev` (issue 18). No Docker runs on the test
 * machines, so this checks what can be checked without one: that the paths, commands, ports and
 * base path they name agree with the rest of the generated project.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generateFixture, SNAPSHOT_FIXTURES } from '../support/generated.js';

/** The base path each fixture's baseUri gives. */
/** compose.yaml as parsed. */
// oxlint-disable-next-line typescript/no-explicit-any -- its services are walked by path: a member that is not there fails the test where it is read
type Compose = { services: Record<string, any>; volumes: Record<string, unknown> };

const BASE_PATHS: Record<string, string> = {
  'ramses-example': '/v1',
  'ramses-starter': '/v1',
  blog: '/api/v2',
  events: '/v1',
};

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
function instructions(dockerfile: string): string[] {
  return dockerfile
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'));
}

/** What `COPY <sources> <dest>` copies from the build context (not `--from` a stage). */
function contextSources(lines: readonly string[]): string[] {
  return lines
    .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
    .flatMap((line) =>
      line
        .split(/\s+/)
        .slice(1, -1)
        .filter((word) => !word.startsWith('--')),
    );
}

describe.each(SNAPSHOT_FIXTURES)('the container files of %s', (fixture) => {
  it('Dockerfile: two stages, copies files the project has, runs node dist/server.js as node, checks {base}/health', async () => {
    const tree = await generateFixture(fixture);
    const lines = instructions(tree.get('Dockerfile')!.content);
    const pkg = JSON.parse(tree.get('package.json')!.content) as { scripts: Record<string, string> };
    const ini = tree.get('service.ini')!.content;

    expect(lines.filter((l) => l.startsWith('FROM '))).toEqual([
      'FROM node:20-bookworm-slim AS build',
      'FROM node:20-bookworm-slim',
    ]);
    // A file or folder of the project (`package-lock.json*` is optional: a glob).
    const inProject = (source: string) =>
      source.endsWith('*') ||
      tree.has(source) ||
      [...tree.keys()].some((p) => p.startsWith(`${source.replace(/^\.\//, '')}/`));
    for (const source of contextSources(lines)) expect(inProject(source), `COPY ${source}`).toBe(true);
    expect(contextSources(lines)).toEqual([
      'package.json',
      'package-lock.json*',
      'tsconfig.json',
      'tsconfig.build.json',
      'src',
      // npm run build compiles the typed client too (client/tsconfig.json).
      'client',
      'package.json',
      'openapi.json',
    ]);
    // service.ini may hold the ticket secret and the admin's password: never in an image layer.
    expect(tree.get('.dockerignore')!.content).toMatch(/^service\.ini$/m);
    // src/app.ts reads the document from beside package.json: ../openapi.json from src/ and dist/ alike.
    expect(tree.get('src/app.ts')!.content).toContain("new URL('../openapi.json', import.meta.url)");
    // The build stage builds with the project's own script, into what the start script runs.
    expect(lines).toContain('RUN npm run build && npm prune --omit=dev');
    expect(pkg.scripts['build']).toBe('tsc -p tsconfig.build.json && tsc -p client/tsconfig.json');
    expect(JSON.parse(tree.get('tsconfig.build.json')!.content).compilerOptions.outDir).toBe('dist');
    expect(tree.has('src/server.ts')).toBe(true);
    expect(pkg.scripts['start']).toBe('node --enable-source-maps dist/server.js');
    // node is PID 1 (exec form: no shell, no npm), so it receives SIGTERM.
    expect(lines.at(-1)).toBe('CMD ["node", "--enable-source-maps", "dist/server.js"]');

    const runStage = lines.slice(lines.indexOf('FROM node:20-bookworm-slim'));
    expect(runStage).toContain('USER node');
    expect(runStage.indexOf('USER node')).toBeLessThan(
      runStage.indexOf('CMD ["node", "--enable-source-maps", "dist/server.js"]'),
    );
    // The port: the service's default, exposed, listened on by every interface.
    const port = /^; port = (\d+)$/m.exec(ini)![1];
    expect(port).toBe('3000');
    expect(runStage).toContain(`EXPOSE ${port}`);
    expect(runStage).toContain(`ENV NODE_ENV=production SVC_HOST=0.0.0.0 PORT=${port}`);
    const health = runStage.find((l) => l.startsWith('HEALTHCHECK'))!;
    expect(health).toContain(
      `CMD ["node", "-e", "fetch(\`http://127.0.0.1:\${process.env.PORT}${BASE_PATHS[fixture]}/health\`)`,
    );
    expect(tree.get('README.md')!.content).toContain(`\`${BASE_PATHS[fixture]}/health\``);
    // SQLite's default file is below the folder the unprivileged user may write.
    expect(ini).toContain('; database.url = sqlite:./data/service.db');
    expect(runStage).toContain('RUN mkdir data && chown node:node data');
    expect(tree.get('.dockerignore')!.content).toMatch(/^node_modules$/m);
  });

  it('compose.yaml: the service on PostgreSQL, with MongoDB as a one-member replica set commented out', async () => {
    const tree = await generateFixture(fixture);
    const text = tree.get('compose.yaml')!.content;
    const compose = parse(text) as Compose;
    const { service, postgres } = compose.services;
    expect(Object.keys(compose.services)).toEqual(['service', 'postgres']);
    expect(service.build).toBe('.');
    expect(service.ports).toEqual(['3000:3000']);
    expect(service.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    // The URL names the postgres service, its user, password and database.
    const url = new URL(service.environment.SVC_DATABASE_URL);
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('postgres');
    expect([url.username, url.password, url.pathname.slice(1)]).toEqual([
      postgres.environment.POSTGRES_USER,
      postgres.environment.POSTGRES_PASSWORD,
      postgres.environment.POSTGRES_DB,
    ]);
    expect(postgres.healthcheck.test).toEqual([
      'CMD',
      'pg_isready',
      '-U',
      'svc',
      '-d',
      postgres.environment.POSTGRES_DB,
    ]);
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    // An API with logins runs with them on: off, on 0.0.0.0, the service would refuse to start (lib/auth/off.ts).
    const withLogins = tree.get('src/app.ts')!.content.includes('startAuth(');
    expect(service.environment['SVC_AUTH']).toBe(withLogins ? 'true' : undefined);
    if (withLogins && service.environment['SVC_AUTH_TKT_SECRET'] !== undefined)
      expect(service.environment['SVC_AUTH_TKT_SECRET']).toBe('${AUTH_SECRET:?set AUTH_SECRET in .env}');

    // Uncommented, the MongoDB lines make a valid file: a replica set named as the URL says.
    const uncommented = parse(
      text.replace(/^(\s*)# (mongodb|  |SVC_ENGINE|SVC_MONGODB_URL|  condition)/gm, '$1$2'),
    ) as Compose;
    const mongo = uncommented.services['mongodb'];
    expect(mongo.command).toEqual(['--replSet', 'rs0', '--bind_ip_all']);
    expect(mongo.healthcheck.test.at(-1)).toContain(
      "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongodb:27017' }] })",
    );
    const env = uncommented.services['service'].environment;
    expect(env.SVC_ENGINE).toBe('svc_mongodb');
    const mongoUrl = new URL(env.SVC_MONGODB_URL);
    expect([mongoUrl.hostname, mongoUrl.port, mongoUrl.searchParams.get('replicaSet')]).toEqual([
      'mongodb',
      '27017',
      'rs0',
    ]);
    expect(uncommented.services['service'].depends_on.mongodb).toEqual({ condition: 'service_healthy' });
    expect(Object.keys(uncommented.volumes)).toEqual(['postgres-data', 'mongodb-data']);
  });

  it('npm run dev: scripts/dev.mjs watches with the tools the project has', async () => {
    const tree = await generateFixture(fixture);
    const pkg = JSON.parse(tree.get('package.json')!.content) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts['dev']).toBe('node scripts/dev.mjs');
    const dev = tree.get('scripts/dev.mjs')!.content;
    expect(dev).toContain("run('tsc', ['-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput'])");
    expect(dev).toContain(
      "run(process.execPath, ['--watch', '--watch-preserve-output', '--enable-source-maps', 'dist/server.js'])",
    );
    expect(pkg.devDependencies['typescript']).toBeDefined();
    // Readable logs on a terminal: lib/http/app.ts names pino-pretty as a transport, by name.
    expect(pkg.dependencies['pino-pretty']).toBeDefined();
    expect(tree.get('src/lib/http/app.ts')!.content).toContain("target: 'pino-pretty'");
  });
});
