#!/usr/bin/env node
// The garbage collector's share of serving: the generated service and the hand-written server
// (bench/serve.mjs's contenders, SQLite) under each scenario, with bench/gc-observer.mjs preloaded
// to sum the collector's pauses. A request's objects should die young: a runtime that keeps them
// past a scavenge (as a Map of requests in flight did, bench/RESULTS.md "The collector's work on
// writes") shows here as more mark-compacts per request and more pause per request.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { median, removeSqliteFiles, table } from './lib.mjs';
import {
  builtStarter,
  cpuMicros,
  measure,
  SCENARIOS,
  seed,
  startGenerated,
  startHandWritten,
  withItems,
} from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-gc');
const observer = ['--import', fileURLToPath(new URL('gc-observer.mjs', import.meta.url))];

// SVCGEN_BENCH_PROJECT: a project bench/serve.mjs's builtStarter built earlier (by another svcgen: before → after).
export async function run({ rounds = 3, seconds = 4, connections = 20 } = {}) {
  const given = process.env['SVCGEN_BENCH_PROJECT'];
  const { project, modules } = given
    ? { project: given, modules: join(given, 'node_modules') }
    : await builtStarter(work);
  mkdirSync(work, { recursive: true });
  const rows = [
    [
      'scenario',
      'contender',
      'scavenges / 1,000 req',
      'mark-compacts / 1,000 req',
      'pause µs / request',
      'server CPU µs / request',
      'pause ÷ CPU',
    ],
  ];
  for (const scenario of SCENARIOS) {
    const servers = await contenders(project, modules);
    try {
      const results = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
      for (const server of Object.values(servers)) await measure(server.url, scenario, 1, connections);
      for (let round = 0; round < rounds; round++)
        for (const [name, server] of Object.entries(servers))
          results[name].push(await observed(server, scenario, seconds, connections));
      for (const [name, measured] of Object.entries(results)) {
        const m = (key) => median(measured.map((r) => r[key]));
        rows.push([
          scenario.name,
          name,
          m('scavenges').toFixed(1),
          m('markCompacts').toFixed(2),
          m('pause').toFixed(1),
          m('cpu').toFixed(0),
          `${((100 * m('pause')) / m('cpu')).toFixed(1)} %`,
        ]);
      }
    } finally {
      for (const server of Object.values(servers)) server.stop();
    }
  }
  return {
    title: "The collector's share: generated vs. hand-written Fastify (ramses-starter Item, SQLite)",
    text: table(rows),
    summary: `autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per server and scenario (medians), 1,000 rows, a server of each kind per scenario. Pauses are the collector's, summed from Node's performance timeline (perf_hooks 'gc' entries) in the server; CPU is the server process's user + system time from /proc. "mark-compacts" counts full collections: objects that outlive the young generation end there.`,
  };
}

/** A fresh server of each kind, seeded with 1,000 items, with the collector observed. */
async function contenders(project, modules) {
  for (const name of ['generated', 'hand-written']) removeSqliteFiles(join(work, `${name}.db`));
  const gcFile = (name) => join(work, `${name}.gc.json`);
  const generated = await startGenerated(project, `sqlite:${join(work, 'generated.db')}`, {
    nodeArgs: observer,
    env: { SVC_BENCH_GC_FILE: gcFile('generated') },
  });
  const handWritten = await startHandWritten(modules, `sqlite:${join(work, 'hand-written.db')}`, {
    nodeArgs: observer,
    env: { SVC_BENCH_GC_FILE: gcFile('hand-written') },
  });
  const servers = {
    generated: { ...generated, gcFile: gcFile('generated') },
    'hand-written': { ...handWritten, gcFile: gcFile('hand-written') },
  };
  for (const server of Object.values(servers)) await seed(server.url, 1000);
  return servers;
}

/** One round: the collector's pauses and the server's CPU over the measured requests only. */
async function observed(server, scenario, seconds, connections) {
  const prepared = await withItems(server.url, scenario);
  process.kill(server.pid, 'SIGUSR2');
  await sleep(50);
  const cpu = cpuMicros(server.pid);
  const result = await measure(server.url, prepared, seconds, connections);
  const cpuPerRequest = (cpuMicros(server.pid) - cpu) / result.total;
  rmSync(server.gcFile, { force: true });
  process.kill(server.pid, 'SIGUSR1');
  const sums = await readWhenWritten(server.gcFile);
  const per1000 = (kind) => ((sums[kind]?.count ?? 0) * 1000) / result.total;
  const pauseMs = Object.values(sums).reduce((total, s) => total + s.ms, 0);
  return {
    scavenges: per1000('scavenge'),
    markCompacts: per1000('mark-compact'),
    pause: (pauseMs * 1000) / result.total,
    cpu: cpuPerRequest,
  };
}

async function readWhenWritten(file) {
  for (let i = 0; i < 100; i++) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      await sleep(20);
    }
  }
  throw new Error(`${file} was not written`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
