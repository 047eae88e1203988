// A sustained mixed load on the generated ramses-starter, on SQLite and on PostgreSQL: 60 s of
// autocannon with 20 connections, each going round 4 item reads, 3 page reads, 2 creates and
// 1 change (70 % reads, 30 % writes) of a table seeded with 1,000 items. Reports the latency
// percentiles, and the errors and non-2xx answers, which must be 0: every request is valid.
//
// The load average before and after is printed with the figures: this machine's cores are shared,
// and latencies measured while something else runs are not the service's alone. The service's
// resident memory and open file descriptors are read (Linux /proc) before and after the run: a
// leak shows as growth.
// LOAD_SECONDS shortens the run (e.g. to try the script); the results file holds 60 s runs.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './lib.mjs';
import { builtStarter, seed, start } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-load');
const autocannon = createRequire(import.meta.url)('autocannon');
const SEEDED = 1000;

const json = { 'content-type': 'application/json' };
const anItem = (request) => ({ ...request, path: `/v1/items/${1 + Math.floor(Math.random() * SEEDED)}` });
const itemRead = { method: 'GET', setupRequest: anItem };
const pageRead = { method: 'GET', path: '/v1/items?_limit=20&_sort=-id' };
const create = {
  method: 'POST',
  path: '/v1/items',
  headers: json,
  body: JSON.stringify({ name: 'load', description: 'written under load' }),
};
const change = {
  method: 'PATCH',
  headers: json,
  body: JSON.stringify({ description: 'changed under load' }),
  setupRequest: anItem,
};
/** One round of a connection: 7 reads, 3 writes. */
const MIX = [itemRead, pageRead, create, itemRead, pageRead, change, itemRead, create, pageRead, itemRead];

export async function run({ seconds = Number(process.env.LOAD_SECONDS ?? 60), connections = 20 } = {}) {
  const { project } = await builtStarter(work);
  const requireProject = createRequire(join(project, 'node_modules', 'noop.js'));
  const rows = [
    [
      'engine',
      'requests',
      'req/s',
      'p50',
      'p99',
      'max',
      'errors',
      'timeouts',
      'non-2xx',
      'RSS MiB before → after',
      'open fds',
      'load avg before → after',
    ],
  ];
  const failures = [];
  for (const engine of ['sqlite', 'postgres']) {
    const database = await freshDatabase(engine, requireProject);
    const server = await start(process.execPath, [join(project, 'dist/server.js')], {
      cwd: project,
      env: (port) => ({ PORT: String(port), SVC_DATABASE_URL: database.url, SVC_CONFIG: join(work, 'none.ini') }),
    });
    try {
      await seed(server.url, SEEDED);
      await mixedLoad(server.url, 5, connections); // warm-up: the measured run starts from a warm process
      const before = { load: os.loadavg()[0], ...processUse(server.pid) };
      const result = await mixedLoad(server.url, seconds, connections);
      const after = { load: os.loadavg()[0], ...processUse(server.pid) };
      rows.push([
        engine,
        result.requests.total,
        Math.round(result.requests.average),
        `${result.latency.p50} ms`,
        `${result.latency.p99} ms`,
        `${result.latency.max} ms`,
        result.errors,
        result.timeouts,
        result.non2xx,
        `${before.rssMiB} → ${after.rssMiB}`,
        `${before.fds} → ${after.fds}`,
        `${before.load.toFixed(2)} → ${after.load.toFixed(2)}`,
      ]);
      if (result.errors || result.timeouts || result.non2xx) failures.push(engine);
    } finally {
      server.stop();
      await database.drop();
    }
  }
  return {
    title: 'Mixed read/write load, 60 s (ramses-starter on SQLite and PostgreSQL)',
    text: table(rows),
    summary:
      `autocannon, ${connections} connections, ${seconds} s per engine; each connection repeats 4 GET /items/{random seeded id}, 3 GET /items?_limit=20, 2 POST /items, 1 PATCH /items/{random seeded id} ` +
      `on a table seeded with ${SEEDED} items, after a 5 s warm-up. Errors, timeouts and non-2xx must be 0: ${failures.length ? `NOT met on ${failures.join(', ')}` : 'met'}. ` +
      `${os.cpus().length} cores, shared with whatever else runs (the load average is the machine's, 1-minute).`,
  };
}

/** The resident memory (MiB) and the open file descriptors of process `pid`. */
function processUse(pid) {
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return { rssMiB: Math.round(Number(rss) / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
}

function mixedLoad(url, seconds, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, requests: MIX }, (/** @type {Error | null} */ error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** A new SQLite file, or a new database on the test cluster of scripts/postgres.sh. */
async function freshDatabase(engine, requireProject) {
  if (engine === 'sqlite')
    return { url: `sqlite:${join(work, `load-${Date.now()}.db`)}`, drop: () => Promise.resolve() };
  const admin = execFileSync('bash', [join(root, 'scripts/postgres.sh'), 'start'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  const name = `svcgen_bench_load_${Date.now()}`;
  const { Client } = requireProject('pg');
  const sql = async (text) => {
    const client = new Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await sql(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => sql(`drop database if exists ${name} with (force)`) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`## ${result.title}\n\n${result.text}\n\n${result.summary}`);
}
