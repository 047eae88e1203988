#!/usr/bin/env node
// Two builds of ramses-starter's service side by side, served on SQLite (or PostgreSQL with
// --postgres, on databases of its own in scripts/postgres.sh's cluster): how a change to the runtime
// moves the CPU per request (user + system from /proc), requests per second and p99 of one request.
// Build each with `builtStarter(dir, generator)` (bench/serve.mjs) from the svcgen before and after;
// `hand-written` in place of a project serves bench/hand-written's server (modules from the first project),
// `hand-written+` the same with the contract's ETag, headers and events. On PostgreSQL it reports the
// cluster's CPU per request too (SVCGEN_PG_DIR, _PORT: another cluster of scripts/postgres.sh, say one
// started with SVCGEN_PG_DURABLE=on).
// Usage: node bench/ab.mjs <scenario name of bench/serve.mjs, or a path like "/v1/items?name=x"> <project A> <project B> [rounds] [--postgres]
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeSqliteFiles } from './lib.mjs';
import {
  benchDatabases,
  measure,
  measuredWithCpu,
  seed,
  SCENARIOS,
  startGenerated,
  startHandWritten,
} from './serve.mjs';

const [what = 'GET one item', ...rest] = process.argv.slice(2);
const postgres = rest.includes('--postgres');
const projects = rest.filter((arg) => !/^\d+$/.test(arg) && arg !== '--postgres');
const rounds = Number(rest.find((arg) => /^\d+$/.test(arg)) ?? 5);
if (projects.length < 2)
  throw new Error('usage: node bench/ab.mjs <scenario or path> <project A> <project B> [rounds]');
const scenario = what.startsWith('/') ? { name: what, path: what } : SCENARIOS.find((s) => s.name === what);
if (!scenario) throw new Error(`no scenario "${what}": ${SCENARIOS.map((s) => s.name).join(', ')}, or a path`);

/** @type {{ project: string, server: Awaited<ReturnType<typeof start>>, file: string, rows: { cpu: number, rps: number, p99: number }[] }[]} */
const servers = [];
// benchDatabases finds the pg driver in <dir>/generated, where builtStarter puts a project.
const databases = postgres
  ? await benchDatabases(
      'postgres',
      dirname(projects[0]),
      projects.map((_, i) => `ab_${i}`),
    )
  : undefined;
for (const [i, project] of projects.entries()) {
  const file = join(tmpdir(), `svcgen-ab-${process.pid}-${i}.db`);
  removeSqliteFiles(file);
  const url = databases ? databases[`ab_${i}`] : `sqlite:${file}`;
  const server = project.startsWith('hand-written')
    ? await handWritten(url, project === 'hand-written+')
    : await startGenerated(project, url);
  await seed(server.url, 1000);
  servers.push({ project, server, file, rows: [] });
}
try {
  for (const s of servers) await measure(s.server.url, scenario, 2, 20); // warm-up
  for (let round = 0; round < rounds; round++)
    for (const s of servers) {
      const result = await measuredWithCpu(s.server, scenario, 4, 20, undefined, { postgres });
      s.rows.push({ cpu: result.cpuMicros, rps: result.rps, p99: result.p99, database: result.databaseMicros ?? 0 });
    }
} finally {
  for (const s of servers) s.server.stop();
}
for (const s of servers) {
  const median = (key) => s.rows.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(s.rows.length / 2)];
  console.log(
    `${s.project}: CPU ${median('cpu').toFixed(0)} µs/request, ${median('rps').toFixed(0)} req/s, p99 ${median('p99')} ms` +
      (postgres ? `, PostgreSQL's CPU ${median('database').toFixed(0)} µs/request` : '') +
      ` (rounds: ${s.rows.map((r) => r.cpu.toFixed(0)).join(' ')} µs; p99 ${s.rows.map((r) => r.p99).join(' ')} ms)`,
  );
  removeSqliteFiles(s.file);
}

/** bench/serve.mjs's hand-written contender (`contract`: with the ETag, headers and events), with the dependencies of the first generated project. */
function handWritten(url, contract) {
  const generated = projects.find((p) => !p.startsWith('hand-written'));
  if (!generated) throw new Error('hand-written needs a generated project beside it, for its node_modules');
  return startHandWritten(join(generated, 'node_modules'), url, { contract });
}
