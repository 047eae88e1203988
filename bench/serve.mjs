// The generated service against a hand-written Fastify server of the same model (ramses-starter's
// Item; better-sqlite3 or node-postgres, prepared statements), that server again with what the
// contract asks besides the shapes (ETag and If-Match, security headers, an event per write), and
// against Platformatic DB 2.x (the peer a user would pick instead), with autocannon on 127.0.0.1:
// GET one item, GET a page of 20 with its total, POST, PATCH and DELETE of one item. On SQLite and on PostgreSQL. Target:
// ≥ 1.0× the hand-written server with p99 at most 1.2× of it, and ≥ 1.3× Platformatic.
//
// Every server runs as its own process on its own database, seeded with the same 1,000 items,
// logging requests at level info (to /dev/null). Rounds alternate A B C A B C … so that the VM's
// noise hits all alike; the table shows the medians of the rounds.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../scripts/free-port.mjs';
import { linkDependencies } from '../scripts/project-deps.mjs';
import { median, percentile, removeSqliteFiles, table } from './lib.mjs';
import { platformaticModules } from './platformatic/install.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-serve');
const autocannon = createRequire(import.meta.url)('autocannon');

/**
 * A new description for each PATCH: one the item already has changes no row, and SQLite then
 * writes no page (it compares a row's new bytes with its old), which measured a PATCH that
 * changes nothing (bench/RESULTS.md, "One read transaction per turn").
 */
let patches = 0;
const changedDescription = () => `changed ${++patches}`;

export const SCENARIOS = [
  { name: 'GET one item', path: '/v1/items/500' },
  { name: 'GET a page of 20', path: '/v1/items?_limit=20' },
  {
    name: 'POST create',
    path: '/v1/items',
    method: 'POST',
    body: JSON.stringify({ name: 'bench', description: 'a new item' }),
    headers: { 'content-type': 'application/json' },
  },
  // One of the 1,000 seeded items after another.
  {
    name: 'PATCH one item',
    path: '/v1/items/{id}',
    method: 'PATCH',
    makeBody: () => JSON.stringify({ description: changedDescription() }),
    headers: { 'content-type': 'application/json' },
    ids: 'seeded',
  },
  // Each request deletes an item created for it beforehand (not timed): a fixed number of requests.
  { name: 'DELETE one item', path: '/v1/items/{id}', method: 'DELETE', ids: 'fresh', count: 10_000 },
];

/** ramses-starter, generated (by the svcgen in `generator`, this one by default) and compiled into `work/generated`; returns its folder and node_modules. */
export async function builtStarter(work, generator = root, api = join(root, 'fixtures/ramses-starter/api.raml')) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const project = join(work, 'generated');
  execFileSync(process.execPath, [join(generator, 'bin/svcgen.js'), 'generate', api, '-o', project], {
    stdio: 'ignore',
  });
  const modules = await linkDependencies(project);
  execFileSync(join(modules, '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: project, stdio: 'inherit' });
  return { project, modules };
}

/**
 * A copy of the built `project` in `dir` with `patches` ({ file, from, to }) applied to its
 * compiled `dist/`: a probe that measures what one part of the runtime costs by serving the service
 * without it. Never a build to run for anything else. Each `from` must occur exactly once, or this
 * throws: the probe no longer fits the runtime and must be written again. The rest of the project
 * (node_modules among it) is linked, not copied.
 */
export function probeBuild(project, dir, patches) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(project))
    if (entry === 'dist') cpSync(join(project, 'dist'), join(dir, 'dist'), { recursive: true });
    else symlinkSync(join(project, entry), join(dir, entry));
  for (const { file, from, to } of patches) {
    const path = join(dir, 'dist', file);
    const text = readFileSync(path, 'utf8');
    const at = text.indexOf(from);
    if (at < 0 || text.indexOf(from, at + 1) >= 0)
      throw new Error(`probe of ${dir}: ${JSON.stringify(from)} is not once in dist/${file}; write the probe again`);
    writeFileSync(path, text.slice(0, at) + to + text.slice(at + from.length));
  }
  return dir;
}

/**
 * `scenario` served by each of `servers` ({ name: started server }) in alternating rounds after a
 * warm-up: per server, in order, the medians of its req/s (and their ratio to the req/s of each
 * hand-written server among them, `handWrittenServers`'), p99 ms and CPU µs per request, as a
 * table's cells.
 */
export async function sideBySide(servers, scenario, { rounds, seconds, connections, rate, warmUp = 1 }) {
  const names = Object.keys(servers);
  const references = ['hand-written', HAND_WRITTEN_ALL].filter((name) => name in servers);
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) await measure(servers[name].url, scenario, warmUp, connections);
  for (let r = 0; r < rounds; r++)
    for (const name of names)
      results[name].push(await measuredWithCpu(servers[name], scenario, seconds, connections, rate));
  const m = (name, key) => median(results[name].map((x) => x[key]));
  return names.map((name) => [
    name,
    Math.round(m(name, 'rps')),
    ...references.map((reference) => `${(m(name, 'rps') / m(reference, 'rps')).toFixed(2)}×`),
    m(name, 'p99'),
    Math.round(m(name, 'cpuMicros')),
  ]);
}

/**
 * The hand-written server with what the contract asks besides the shapes (bench/hand-written,
 * `contract`): the item's ETag and If-Match, the security headers, an event per write.
 */
export const HAND_WRITTEN_ALL = 'hand-written + ETag, headers, events';

/** Both hand-written servers, bare and with the contract's duties, each on its database of `databases`. */
export async function handWrittenServers(modules, databases) {
  return {
    'hand-written': await startHandWritten(modules, databases['hand-written']),
    [HAND_WRITTEN_ALL]: await startHandWritten(modules, databases[HAND_WRITTEN_ALL], { contract: true }),
  };
}
const CONTENDERS = ['generated', 'hand-written', HAND_WRITTEN_ALL, 'Platformatic'];

/** Each contender's URLs for the scenarios: Platformatic names its routes after the table and pages with `limit`, counting with `totalCount`. */
const SAME = Object.fromEntries(SCENARIOS.map((s) => [s.name, s.path]));
const PATHS = {
  generated: SAME,
  'hand-written': SAME,
  [HAND_WRITTEN_ALL]: SAME,
  // Platformatic DB has no PATCH: its PUT of one item changes the fields it is given.
  Platformatic: {
    'GET one item': '/v1/item/500',
    'GET a page of 20': '/v1/item?limit=20&totalCount=true',
    'POST create': '/v1/item',
    'PATCH one item': '/v1/item/{id}',
    'DELETE one item': '/v1/item/{id}',
  },
};
const METHODS = { Platformatic: { 'PATCH one item': 'PUT' } };
// …and it wants every required field in that PUT.
const BODY_MAKERS = {
  Platformatic: { 'PATCH one item': () => JSON.stringify({ name: 'item', description: changedDescription() }) },
};

export async function run({ rounds = 3, seconds = 5, connections = 20 } = {}) {
  const { project, modules } = await builtStarter(work);
  const platformatic = platformaticModules(root, modules);
  const rows = [
    [
      'engine',
      'scenario',
      'generated req/s',
      'hand-written req/s',
      'hand-written + req/s',
      'Platformatic req/s',
      '÷ hand-written',
      '÷ hand-written +',
      '÷ Platformatic',
      'p99 ms gen / hand / hand + / Platf.',
      'p99 ÷ hand-written',
      'p99 ÷ hand-written +',
      'server CPU µs/request gen / hand / hand + / Platf.',
      'PostgreSQL CPU µs/request gen / hand / hand + / Platf.',
    ],
  ];
  const misses = [];
  const missesAll = [];
  // SVCGEN_BENCH_ENGINES=sqlite (or postgres): one engine's rows only, in half the time.
  const engines = (process.env['SVCGEN_BENCH_ENGINES'] ?? 'sqlite,postgres').split(',');
  for (const engine of engines) {
    const databases = await benchDatabases(engine);
    const servers = {
      generated: await startGenerated(project, databases.generated),
      ...(await handWrittenServers(modules, databases)),
      Platformatic: await start(
        process.execPath,
        [join(root, 'bench/platformatic/server.mjs'), platformatic, databases.Platformatic],
        { portArg: true, ready: '/v1/item?limit=1' },
      ),
    };
    try {
      for (const name of CONTENDERS) await seed(servers[name].url, 1000, PATHS[name]['POST create']);
      for (const scenario of SCENARIOS) {
        const results = Object.fromEntries(CONTENDERS.map((name) => [name, []]));
        const at = (name) => ({
          ...scenario,
          path: PATHS[name][scenario.name],
          method: METHODS[name]?.[scenario.name] ?? scenario.method,
          makeBody: BODY_MAKERS[name]?.[scenario.name] ?? scenario.makeBody,
          createPath: PATHS[name]['POST create'],
        });
        for (const name of CONTENDERS) await measure(servers[name].url, at(name), 1, connections); // warm-up
        for (let r = 0; r < rounds; r++)
          for (const name of CONTENDERS)
            results[name].push(
              await measuredWithCpu(servers[name], at(name), seconds, connections, undefined, {
                postgres: engine === 'postgres',
              }),
            );
        const rps = (name) => median(results[name].map((x) => x.rps));
        const p99 = (name) => median(results[name].map((x) => x.p99));
        const cpu = (name) => Math.round(median(results[name].map((x) => x.cpuMicros)));
        const databaseCpu = (name) => Math.round(median(results[name].map((x) => x.databaseMicros ?? 0)));
        const [g, h, a, p] = CONTENDERS.map(rps);
        const latency = p99('generated') / p99('hand-written');
        const latencyAll = p99('generated') / p99(HAND_WRITTEN_ALL);
        rows.push([
          engine,
          scenario.name,
          ...[g, h, a, p].map(Math.round),
          ...[h, a, p].map((other) => `${(g / other).toFixed(2)}×`),
          CONTENDERS.map((n) => p99(n)).join(' / '),
          `${latency.toFixed(2)}×`,
          `${latencyAll.toFixed(2)}×`,
          CONTENDERS.map(cpu).join(' / '),
          engine === 'postgres' ? CONTENDERS.map(databaseCpu).join(' / ') : '',
        ]);
        // A miss says each round's ratio (the rounds alternate, so round r of each is a pair): one
        // whose rounds straddle the target is the bench's spread as much as the service's.
        const byRound = (other) =>
          `÷ ${other} by round ${results.generated.map((x, r) => (x.rps / results[other][r].rps).toFixed(2)).join(', ')}`;
        if (g / h < 1 || latency > 1.2 || g / p < 1.3)
          misses.push(`${engine} ${scenario.name} (${byRound('hand-written')}; ${byRound('Platformatic')})`);
        if (g / a < 1 || latencyAll > 1.2) missesAll.push(`${engine} ${scenario.name} (${byRound(HAND_WRITTEN_ALL)})`);
      }
    } finally {
      for (const server of Object.values(servers)) server.stop();
    }
  }
  return {
    title:
      'Serving: generated vs. hand-written Fastify and Platformatic DB 2.x (ramses-starter Item, SQLite and PostgreSQL)',
    text: table(rows),
    summary: `autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per server and scenario (medians of req/s, of p99 and of the server process's CPU time per request, user + system from /proc; on PostgreSQL also the database cluster's, its processes' CPU time per request), 1,000 rows. Hand-written: Fastify with prepared statements (better-sqlite3 / node-postgres, page and count at once on PostgreSQL); Platformatic DB 2.61 (sql-mapper + sql-openapi, SQLite in WAL), counting its total, its PUT of one item standing for PATCH. PATCH changes one of the 1,000 seeded items after another; DELETE removes ${SCENARIOS.at(-1).count.toLocaleString('en')} items made for it before each round (a fixed number of requests, not ${seconds} s; its req/s are the answers over the time from the first request to the last answer). p99 from each answer's time, to the hundredth of a ms. "${HAND_WRITTEN_ALL}" ("hand +"): the same hand-written server with the contract's duties the bare one leaves out: the item's ETag (a digest of its row) and If-Match, X-Content-Type-Options and Cache-Control on every answer, each write's event in its transaction (PostgreSQL: in its statement); neither has a search index or kept counts. Target (issue 28) ≥ 1.0× hand-written with p99 ≤ 1.2× of it, and ≥ 1.3× Platformatic: ${misses.length ? `NOT met for ${misses.join(', ')}` : 'met'}. Against "hand +" (≥ 1.0×, p99 ≤ 1.2×): ${missesAll.length ? `NOT met for ${missesAll.join(', ')}` : 'met'}.`,
  };
}

/** A measurement with the CPU time the server process spent per request (user + system, from /proc), which the machine's noise does not inflate as it does latency. */
export async function measuredWithCpu(server, scenario, seconds, connections, rate, { postgres = false } = {}) {
  const prepared = await withItems(server.url, scenario);
  const before = cpuMicros(server.pid);
  const databaseBefore = postgres ? clusterCpuMicros() : 0;
  const result = await measure(server.url, prepared, seconds, connections, rate);
  const databaseMicros = postgres ? (clusterCpuMicros() - databaseBefore) / result.total : undefined;
  return { ...result, cpuMicros: (cpuMicros(server.pid) - before) / result.total, databaseMicros };
}

/**
 * The CPU time of scripts/postgres.sh's cluster (its postmaster and every process it started, from
 * /proc): what requests cost the database, which the service's own CPU leaves out. A backend that
 * exits (a pool that closes an idle connection) leaves the live processes' sum with its time, which
 * the postmaster's children's time (cutime + cstime, once it has reaped it) then counts: without
 * them a round that saw one exit read less than none (-20 µs a request, 2026-11-29). Anything else
 * using the cluster at the time is counted too: measure on a quiet machine.
 */
export function clusterCpuMicros() {
  const dir = process.env['SVCGEN_PG_DIR'] ?? '/tmp/svcgen-pg';
  const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuMicros(postmaster) + reapedChildrenMicros(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (parent === postmaster) total += cpuMicros(Number(entry));
    } catch {
      // The process exited between the listing and the read.
    }
  }
  return total;
}

/** cutime and cstime, fields 16 and 17 of stat: the CPU time of the children `pid` has waited for. */
function reapedChildrenMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10_000;
}

export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of stat (counted from 1, the command being field 2), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** A fresh database per contender: SQLite files in `dir` (any left from before removed), or PostgreSQL databases on the test cluster. */
export async function benchDatabases(engine, dir = work, names = CONTENDERS) {
  if (engine === 'sqlite') {
    const files = names.map((name) => [name, join(dir, `${name.replace(/\W+/g, '-')}.db`)]);
    for (const [, file] of files) removeSqliteFiles(file);
    return Object.fromEntries(files.map(([name, file]) => [name, `sqlite:${file}`]));
  }
  const admin = execFileSync('bash', [join(root, 'scripts/postgres.sh'), 'start'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  const { Client } = createRequire(join(dir, 'generated', 'node_modules', 'noop.js'))('pg');
  const client = new Client({ connectionString: admin });
  await client.connect();
  const urls = {};
  try {
    for (const name of names) {
      const database = `bench_serve_${name.replace(/\W/g, '_').toLowerCase()}`;
      await client.query(`drop database if exists ${database} with (force)`);
      await client.query(`create database ${database}`);
      const url = new URL(admin);
      url.pathname = `/${database}`;
      urls[name] = url.href;
    }
  } finally {
    await client.end();
  }
  return urls;
}

/** The generated service of `project` on `database` (a URL); `nodeArgs` go before its script, `env` adds variables. */
export function startGenerated(project, database, { nodeArgs = [], env = {} } = {}) {
  return start(process.execPath, [...nodeArgs, join(project, 'dist/server.js')], {
    cwd: project,
    env: (port) => ({ PORT: String(port), SVC_DATABASE_URL: database, SVC_CONFIG: join(work, 'none.ini'), ...env }),
  });
}

/**
 * bench/hand-written's server on `database` (`sqlite:<file>` or a PostgreSQL URL), with the packages
 * in `modules`; with `contract`, with the contract's ETag, security headers and events too.
 */
export function startHandWritten(modules, database, { nodeArgs = [], env = {}, contract = false } = {}) {
  const sqlite = database.startsWith('sqlite:');
  return start(
    process.execPath,
    [
      ...nodeArgs,
      join(root, 'bench/hand-written', sqlite ? 'server.mjs' : 'server-pg.mjs'),
      modules,
      sqlite ? database.slice('sqlite:'.length) : database,
    ],
    { portArg: true, afterPort: contract ? ['contract'] : [], env: () => env },
  );
}

export async function start(command, args, { cwd, env, portArg, afterPort = [], ready = '/v1/items?_limit=1' } = {}) {
  const port = await freePort();
  const child = spawn(command, portArg ? [...args, String(port), ...afterPort] : args, {
    cwd,
    env: { ...process.env, ...(env ? env(port) : {}) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`${url}${ready}`);
      return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
    } catch {
      await sleep(100);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`${command} ${args.join(' ')} did not start`);
}

/** Creates `count` items; returns their keys. */
export async function seed(url, count, path = '/v1/items') {
  const ids = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
        const r = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `item ${i + j}`, description: `seeded item number ${i + j}` }),
        });
        if (!r.ok) throw new Error(`seeding ${url}: ${r.status}`);
        return (await r.json()).id;
      }),
    );
    ids.push(...batch);
  }
  return ids;
}

/** A scenario that deletes what it is given: the items made for it first (untimed), by `ids`. */
export async function withItems(url, scenario) {
  if (scenario.ids !== 'fresh' || scenario.fresh) return scenario;
  return { ...scenario, fresh: await seed(url, scenario.count, scenario.createPath ?? '/v1/items') };
}

export async function load(url, scenario, seconds, connections) {
  return (await measure(url, scenario, seconds, connections)).rps;
}

/**
 * Requests per second (mean) and p99 latency (ms, to the hundredth) of one autocannon run; any
 * non-2xx answer or error fails it. The p99 is of the response times autocannon reports one by one
 * (its own histogram keeps whole milliseconds: on a machine that answers in under one, 1 ms and
 * 1.9 ms were both "1").
 */
export async function measure(url, given, seconds, connections, rate) {
  const scenario = await withItems(url, given);
  // `{id}` in the path: one seeded item (1 to 1,000) after another, or each item made for the run once.
  let n = 0;
  const nextId = scenario.ids === 'fresh' ? () => scenario.fresh[n++] : () => 1 + (n++ % 1000);
  const request = {
    method: scenario.method ?? 'GET',
    body: scenario.body,
    headers: scenario.headers,
  };
  // `makeBody`: each request's body of its own (a create of something unique).
  const setupRequest = (r) => ({
    ...r,
    path: scenario.ids ? scenario.path.replace('{id}', String(nextId())) : scenario.path,
    ...(scenario.makeBody ? { body: scenario.makeBody() } : {}),
  });
  const options =
    scenario.ids || scenario.makeBody
      ? {
          url,
          requests: [{ ...request, setupRequest }],
          ...(scenario.ids === 'fresh' ? { amount: scenario.fresh.length } : { duration: seconds }),
        }
      : { url: `${url}${scenario.path}`, ...request, duration: seconds };
  /** @type {number[]} */
  const times = [];
  let first = Infinity;
  let last = 0;
  return new Promise((resolve, reject) => {
    // `rate`: requests per second from all connections together, where a run otherwise sends as fast as it is answered.
    const paced = rate ? { overallRate: rate } : {};
    const instance = autocannon({ ...options, ...paced, connections }, (/** @type {Error | null} */ error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0)
        return reject(
          new Error(
            `${scenario.name} on ${url}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`,
          ),
        );
      // A run of a fixed number of requests (DELETE) ends on autocannon's next one-second tick, so
      // neither its per-second average nor its duration says how fast it went (10,000 requests came
      // out as 10,000 ÷ 2 or ÷ 3): its rate is the answers over the time from the first request
      // sent to the last answer.
      const rps = options.amount ? (times.length * 1000) / (last - first) : result.requests.average;
      resolve({ rps, p99: Math.round(percentile(times, 0.99) * 100) / 100, total: result.requests.total });
    });
    instance.on('response', (_client, _status, _bytes, /** @type {number} */ responseTime) => {
      const now = performance.now();
      times.push(responseTime);
      first = Math.min(first, now - responseTime);
      last = now;
    });
  });
}
