// What auth costs a member (issue 28, item 2): the generated blog project (x-ApiKey tokens, the
// `readable` ACL on /authors), built twice — auth on, and auth off — each app in a process of its
// own (app-process.mjs), on SQLite and then on PostgreSQL, and sent the same requests with
// Fastify's `inject`, rounds alternating; then
// the GET of one author and the create of one served by two server processes, under autocannon. With auth on, a
// registered member sends `Authorization: ApiKey <name>:<token>` on every request: the token
// check, the ACL and field privacy are what the difference measures. Target: at most 1.15× the
// CPU per request.
//
// SVCGEN_BASELINE=<a built checkout of another svcgen>: its blog too, in the same rounds (four
// app processes; the served ones: four server processes), each scenario a row
// of its own: a change measured side by side.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appProcess, PINNED } from './app-process.mjs';
import { median, table } from './lib.mjs';
import { benchDatabases, builtStarter, cpuMicros, measure, start } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-auth-cost');

const SCENARIOS = [
  { name: 'GET one author', method: 'GET', url: ({ author }) => `/api/v2/authors/${author}` },
  { name: 'GET a page of 20 authors', method: 'GET', url: () => '/api/v2/authors?_limit=20' },
  {
    name: 'POST an author',
    method: 'POST',
    url: () => '/api/v2/authors',
    body: { name: 'writer' },
    freshEmail: true,
  },
];

export async function run({ rounds = 15, requests = 400, engines = ['sqlite', 'postgres'], inProcess = true } = {}) {
  // Named as bench/serve.mjs names its projects (`generated`): benchDatabases finds the pg driver there.
  const api = join(root, 'fixtures/blog/api.raml');
  const { project } = await builtStarter(work, root, api);
  const projects = [{ label: '', project }];
  const baseline = process.env['SVCGEN_BASELINE'];
  if (baseline)
    projects.push({ label: ' (baseline)', project: (await builtStarter(`${work}-baseline`, baseline, api)).project });
  const rows = [['engine', 'scenario', 'auth off µs/req', 'auth on (a member) µs/req', 'on ÷ off']];
  if (inProcess) for (const engine of engines) rows.push(...(await measured(projects, engine, rounds, requests)));
  for (const engine of engines) rows.push(...(await served(projects, engine)));
  return {
    title: 'What auth costs a member: CPU per request, auth on vs. off (blog, x-ApiKey, SQLite and PostgreSQL, inject)',
    text: table(rows),
    summary: `${rounds} alternating rounds of ${requests} requests sent one after another with Fastify's inject, each app in a process of its own${PINNED ? ', all pinned to one core' : ''} (medians of its CPU time per request, user + system: PostgreSQL's own is not in it; the ratio is the median of each round's), 1,000 authors, both logging at level info${baseline ? '; "(baseline)": the checkout SVCGEN_BASELINE names, its apps in the same rounds' : ''}. "served": each its own server process, 50 authors, 20 connections, ${SERVED_ROUNDS} alternating rounds of 4 s (medians of the server's CPU per request from /proc, the ratio the median of each round's; a create sends a new email each time). Target (issue 28): at most 1.15×.`,
  };
}

/**
 * The rows of one engine: each scenario's CPU per request with auth off and on, for each project,
 * every app in a process of its own (bench/app-process.mjs: one build in two configurations in one
 * process shares its call sites between them).
 */
async function measured(projects, engine, rounds, requests) {
  const contenders = [];
  for (const [i, { label, project }] of projects.entries()) {
    const urls = await benchDatabases(engine, work, [`auth_off_${i}`, `auth_on_${i}`]);
    const side = async (auth) => {
      const app = await appProcess({
        kind: 'generated',
        project,
        modules: join(project, 'node_modules'),
        database: urls[`auth_${auth}_${i}`],
        env: { SVC_AUTH: auth === 'on' ? 'true' : 'false' },
      });
      const headers = auth === 'on' ? { authorization: await member(app) } : {};
      const author = (
        await app.ask({
          command: 'seed',
          count: 1000,
          request: {
            method: 'POST',
            url: '/api/v2/authors',
            headers,
            payload: { name: 'author {i}', email: 'a{i}@example.com' },
          },
        })
      ).id;
      return { app, headers, author };
    };
    contenders.push({ label, off: await side('off'), on: await side('on') });
  }
  const all = contenders.flatMap((c) => [c.off, c.on]);
  const rows = [];
  try {
    for (const scenario of SCENARIOS) {
      const one = async (c) =>
        (
          await c.app.ask({
            command: 'measure',
            count: requests,
            scenario: { ...scenario, url: scenario.url({ author: c.author }), headers: c.headers },
          })
        ).cost;
      for (const c of all) await one(c); // warm-up
      const cost = new Map(all.map((c) => [c, []]));
      for (let r = 0; r < rounds; r++) for (const c of all) cost.get(c).push(await one(c));
      for (const { label, off, on } of contenders) {
        const ratio = median(cost.get(on).map((c, r) => c / cost.get(off)[r]));
        rows.push([
          engine,
          `${scenario.name}${label}`,
          median(cost.get(off)).toFixed(1),
          median(cost.get(on)).toFixed(1),
          `${ratio.toFixed(2)}×`,
        ]);
      }
    }
  } finally {
    for (const c of all) c.app.close();
  }
  return rows;
}

// Ten: with five, SQLite's GET came out 1.20× where runs of 12 rounds of the same build gave 1.09–1.11×
// (this VM's rounds spread ±10 %).
const SERVED_ROUNDS = 10;

/** What `served` measures: a member's GET of one author, and their create of an author (each one of its own). */
const SERVED = [
  { name: 'GET one author, served', path: '/api/v2/authors/7' },
  {
    name: 'POST an author, served',
    path: '/api/v2/authors',
    method: 'POST',
    makeBody: () => JSON.stringify({ name: 'served', email: `s-${randomUUID()}@example.com` }),
  },
];

/**
 * Each scenario of SERVED by a server with auth off and one with auth on (a member), for each
 * project: rows of the table. Every server its own process, all of them in the same rounds.
 */
async function served(projects, engine) {
  const contenders = projects.flatMap(({ label, project }, i) =>
    ['off', 'on'].map((auth) => ({ label, project, auth, database: `served_${auth}_${i}` })),
  );
  const urls = await benchDatabases(
    engine,
    work,
    contenders.map((c) => c.database),
  );
  try {
    for (const contender of contenders) {
      contender.server = await start(process.execPath, [join(contender.project, 'dist/server.js')], {
        cwd: contender.project,
        ready: '/api/v2/authors?_limit=1',
        env: (port) => ({
          PORT: String(port),
          SVC_DATABASE_URL: urls[contender.database],
          SVC_CONFIG: join(work, 'none.ini'),
          SVC_AUTH: contender.auth === 'on' ? 'true' : 'false',
        }),
      });
      const url = contender.server.url;
      contender.headers = { 'content-type': 'application/json' };
      if (contender.auth === 'on') contender.headers.authorization = await registered(url);
      for (let i = 0; i < 50; i++) {
        const body = JSON.stringify({ name: `author ${i}`, email: `a${i}@example.com` });
        const reply = await fetch(`${url}/api/v2/authors`, { method: 'POST', headers: contender.headers, body });
        if (reply.status !== 201) throw new Error(`seeding ${contender.auth}: ${reply.status} ${await reply.text()}`);
      }
    }
    const rows = [];
    for (const scenario of SERVED) {
      const run = (c, seconds) => measure(c.server.url, { ...scenario, headers: c.headers }, seconds, 20);
      for (const c of contenders) await run(c, 2); // warm-up
      const cpu = new Map(contenders.map((c) => [c, []]));
      for (let r = 0; r < SERVED_ROUNDS; r++)
        for (const c of contenders) {
          const before = cpuMicros(c.server.pid);
          const result = await run(c, 4);
          cpu.get(c).push((cpuMicros(c.server.pid) - before) / result.total);
        }
      for (const { label } of projects) {
        const [off, on] = ['off', 'on'].map((auth) =>
          cpu.get(contenders.find((c) => c.label === label && c.auth === auth)),
        );
        // As in process: the median of each round's ratio, the two servers measured one after the other.
        const ratio = median(on.map((c, r) => c / off[r]));
        rows.push([
          engine,
          `${scenario.name}${label}`,
          median(off).toFixed(1),
          median(on).toFixed(1),
          `${ratio.toFixed(2)}×`,
        ]);
      }
    }
    return rows;
  } finally {
    for (const c of contenders) c.server?.stop();
  }
}

/** A member registered over HTTP: their Authorization header. */
async function registered(url) {
  const reply = await fetch(`${url}/api/v2/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'member', email: 'member@example.com', password: 'a long enough password' }),
  });
  if (reply.status !== 201) throw new Error(`register: ${reply.status} ${await reply.text()}`);
  return reply.headers.get('www-authenticate');
}

/** A member registered in `app` (an app process): their Authorization header. */
async function member(app) {
  const reply = await app.ask({
    command: 'inject',
    request: {
      method: 'POST',
      url: '/api/v2/auth/register',
      payload: { username: 'member', email: 'member@example.com', password: 'a long enough password' },
    },
  });
  if (reply.status !== 201) throw new Error(`register: ${reply.status} ${reply.body}`);
  return reply.headers['www-authenticate'];
}

// `node bench/auth-cost.mjs [--served] [sqlite|postgres]`: the served rows alone, of one engine.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const engines = args.filter((a) => a === 'sqlite' || a === 'postgres');
  const result = await run({ inProcess: !args.includes('--served'), ...(engines.length ? { engines } : {}) });
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
