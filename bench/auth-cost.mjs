// What auth costs a member (issue 28, item 2): the generated blog project (x-ApiKey tokens, the
// `readable` ACL on /authors), built twice in this process on SQLite — auth on, and auth off — and
// sent the same requests with Fastify's `inject`, rounds alternating. With auth on, a registered
// member sends `Authorization: ApiKey <name>:<token>` on every request: the token check, the ACL
// and field privacy are what the difference measures. Target: at most 1.15× the CPU per request.
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { linkDependencies } from '../scripts/project-deps.mjs';
import { median, table } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-auth-cost');

const SCENARIOS = [
  { name: 'GET one author', method: 'GET', url: ({ author }) => `/api/v2/authors/${author}` },
  { name: 'GET a page of 20 authors', method: 'GET', url: () => '/api/v2/authors?_limit=20' },
  {
    name: 'POST an author',
    method: 'POST',
    url: () => '/api/v2/authors',
    body: (i) => ({ name: `writer ${i}`, email: `w${i}-${Math.random()}@example.com` }),
  },
];

export async function run({ rounds = 15, requests = 400 } = {}) {
  const project = build();
  await linkDependencies(project);
  execFileSync(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: project });
  const logger = { level: 'info', stream: createWriteStream('/dev/null') };
  const apps = {
    'auth off': await app(project, 'off', logger),
    'auth on (a member)': await app(project, 'on', logger),
  };
  const headers = { 'auth off': {}, 'auth on (a member)': { authorization: await member(apps['auth on (a member)']) } };
  const author = {};
  for (const [name, app] of Object.entries(apps)) {
    for (let i = 0; i < 1000; i++) {
      const reply = await app.inject({
        method: 'POST',
        url: '/api/v2/authors',
        headers: headers[name],
        payload: { name: `author ${i}`, email: `a${i}@example.com` },
      });
      if (reply.statusCode !== 201) throw new Error(`seeding: ${reply.statusCode} ${reply.body}`);
      author[name] ??= reply.json().id;
    }
  }
  const names = Object.keys(apps);
  const rows = [['scenario', ...names.map((n) => `${n} µs/req`), 'on ÷ off']];
  try {
    for (const scenario of SCENARIOS) {
      const cost = Object.fromEntries(names.map((n) => [n, []]));
      const one = (name) => costPerRequest(apps[name], scenario, requests, headers[name], { author: author[name] });
      for (const name of names) await one(name); // warm-up
      for (let r = 0; r < rounds; r++) for (const name of names) cost[name].push(await one(name));
      const ratio = median(cost[names[1]].map((c, r) => c / cost[names[0]][r]));
      rows.push([scenario.name, ...names.map((n) => median(cost[n]).toFixed(1)), `${ratio.toFixed(2)}×`]);
    }
  } finally {
    for (const app of Object.values(apps)) await app.close();
  }
  return {
    title: 'What auth costs a member: CPU per request, auth on vs. off (blog, x-ApiKey, SQLite, inject)',
    text: table(rows),
    summary: `${rounds} alternating rounds of ${requests} requests sent one after another with Fastify's inject (medians of process CPU time per request, user + system; the ratio is the median of each round's), 1,000 authors, both logging at level info. Target (issue 28): at most 1.15×.`,
  };
}

function build() {
  rmSync(work, { recursive: true, force: true });
  const project = join(work, 'blog');
  execFileSync(
    process.execPath,
    [join(root, 'bin/svcgen.js'), 'generate', join(root, 'fixtures/blog/api.raml'), '-o', project],
    {
      stdio: 'ignore',
    },
  );
  return project;
}

async function app(project, auth, logger) {
  const { loadServiceConfig } = await import(join(project, 'dist/config.js'));
  const { openDatabase } = await import(join(project, 'dist/db/index.js'));
  const { buildApp } = await import(join(project, 'dist/app.js'));
  const config = loadServiceConfig({
    SVC_CONFIG: join(work, 'none.ini'),
    SVC_DATABASE_URL: `sqlite:${join(work, `auth-${auth}.db`)}`,
    SVC_AUTH: auth === 'on' ? 'true' : 'false',
  });
  return buildApp(config, await openDatabase(config), { logger });
}

/** A registered member's Authorization header. */
async function member(app) {
  const reply = await app.inject({
    method: 'POST',
    url: '/api/v2/auth/register',
    payload: { username: 'member', email: 'member@example.com', password: 'a long enough password' },
  });
  if (reply.statusCode !== 201) throw new Error(`register: ${reply.statusCode} ${reply.body}`);
  return reply.headers['www-authenticate'];
}

async function costPerRequest(app, scenario, count, headers, context) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const reply = await app.inject({
      method: scenario.method,
      url: scenario.url(context),
      headers,
      ...(scenario.body ? { payload: scenario.body(i) } : {}),
    });
    if (reply.statusCode >= 300) throw new Error(`${scenario.name}: ${reply.statusCode} ${reply.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
