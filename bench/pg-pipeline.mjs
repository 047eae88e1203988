#!/usr/bin/env node
// Reads by key on PostgreSQL, the mechanism alone (no HTTP): 20 callers in this process, each
// reading one row of 1,000 by its key after another, through node-postgres's pool of 10 (as the
// runtime sends every other statement), through one client in pipeline mode, and through the
// runtime's own PipelinedReads (lib/sql/pipelined-reads.ts: the same client, the statements of
// one turn of the event loop in one write). Rounds alternate; the figures are medians. CPU: this
// process's (user + system), and the machine's (/proc/stat, every core: PostgreSQL's backends
// too) per read.
// Usage: node bench/pg-pipeline.mjs, or `npm run bench -- pg-pipeline`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, table } from './lib.mjs';
import { benchDatabases, builtStarter } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-pg-pipeline');
const ROUNDS = 5;
const SECONDS = 3;
const CALLERS = 20;
const TEXT = 'select id, name, description from items where id = $1';

export async function run() {
  const { project } = await builtStarter(work);
  const pg = createRequire(join(project, 'node_modules', 'noop.js'))('pg');
  const { PipelinedReads } = await import(pathToFileURL(join(project, 'dist/lib/sql/pipelined-reads.js')).href);
  const { url } = await benchDatabases('postgres', work, ['pipeline']).then((urls) => ({ url: urls['pipeline'] }));
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query('create table items (id integer primary key, name text, description text)');
  await setup.query(`insert into items select g, 'item ' || g, 'seeded item ' || g from generate_series(1, 1000) g`);
  await setup.end();

  const contenders = {
    'pool of 10': () => {
      const pool = new pg.Pool({ connectionString: url, max: 10 });
      return { send: (query, answered) => pool.query(query, answered), close: () => pool.end() };
    },
    'one client, pipeline mode': () => {
      const client = new pg.Client({ connectionString: url, pipeline: true });
      void client.connect();
      return { send: (query, answered) => client.query(query, answered), close: () => client.end() };
    },
    'PipelinedReads (runtime)': () => {
      const reads = new PipelinedReads({ connectionString: url });
      return { send: (query, answered) => reads.send(query, answered), close: () => reads.close() };
    },
  };
  const results = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, open] of Object.entries(contenders)) {
      const sender = open();
      await reads(pg, sender, 0.5); // connected, statements prepared
      results[name].push(await reads(pg, sender, SECONDS));
      await sender.close();
    }
  }
  const rows = [
    ['contender', 'reads/s', 'process CPU µs/read', 'machine CPU µs/read'],
    ...Object.entries(results).map(([name, runs]) => [
      name,
      Math.round(median(runs.map((r) => r.perSecond))),
      median(runs.map((r) => r.process)).toFixed(1),
      median(runs.map((r) => r.machine)).toFixed(1),
    ]),
  ];
  return {
    title: 'Reads by key on PostgreSQL: the pool, pipeline mode, and the runtime PipelinedReads',
    text: table(rows),
    summary: `${CALLERS} callers, each reading one row of 1,000 by its key after another (a prepared statement), ${ROUNDS} alternating rounds of ${SECONDS} s (medians); no HTTP. Process CPU: this process's user + system time; machine CPU: every core's busy time from /proc/stat, PostgreSQL's backends included (this VM's other jobs too: run it on a quiet machine).`,
  };
}

/** `CALLERS` loops reading by key through `sender` for `seconds`: reads per second and CPU per read. */
async function reads(pg, sender, seconds) {
  let count = 0;
  const end = Date.now() + seconds * 1000;
  const machineBefore = machineBusy();
  const processBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      let id = caller;
      while (Date.now() < end) {
        id = (id * 7 + 3) % 1000;
        const query = new pg.Query(TEXT, [id + 1]);
        query.name = 'item_by_key';
        await new Promise((resolve, reject) =>
          sender.send(query, (error, result) => {
            if (error) reject(error instanceof Error ? error : new Error(String(error)));
            else resolve(result);
          }),
        );
        count++;
      }
    }),
  );
  const used = process.cpuUsage(processBefore);
  return {
    perSecond: count / seconds,
    process: (used.user + used.system) / count,
    machine: (machineBusy() - machineBefore) / count,
  };
}

/** Every core's busy time so far, µs (/proc/stat's first line, in ticks of 10 ms). */
function machineBusy() {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * 10_000;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { title, text, summary } = await run();
  console.log(`## ${title}\n\n${text}\n\n${summary}`);
}
