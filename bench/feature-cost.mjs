#!/usr/bin/env node
// What the contract's write features cost, served: the generated ramses-starter service as built,
// the same service with the full-text index's upkeep and the kept row counts held off in its
// database, and the hand-written server (bench/serve.mjs's contenders) without and with the
// contract's ETag, headers and events, side by side on SQLite and PostgreSQL under serve.mjs's
// writes. What is left between "held off" and the hand-written server is what the service's own
// code costs, with the durable event every write appends (which lives in the runtime's statements
// and cannot be held off from outside); the hand-written server with its events has it too.
//
// Held off by SQL on the service's database once it has started and been seeded, never by a
// switch in the runtime:
// - SQLite: the search triggers and the row-count triggers are dropped and the index is told it
//   has every row (`svc_search_state.indexed_to`), so no write leaves the index anything to do;
// - PostgreSQL: the row-count triggers are dropped, and the search columns (generated tsvector
//   columns, with their GIN indexes).
// Searches and totals are wrong afterwards; the scenarios are writes and read neither.
//
// "held off, no event" is, besides, a probe build (serve.mjs's `probeBuild`): the same compiled
// service with the event's insert taken out of the runtime's one-step writes, the path every write of
// these scenarios takes. It answers what the durable event costs, and what the service's own code
// costs without it; its writes have no event, so it is only ever a measurement.
//
// SVCGEN_BENCH_RATE=5000 sends that many requests per second instead of as many as are answered:
// every contender then does the same work in the same time, and its CPU per request compares
// without the batching a faster server gets from a fuller event loop (its req/s is the rate).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './lib.mjs';
import {
  benchDatabases,
  builtStarter,
  HAND_WRITTEN_ALL,
  handWrittenServers,
  probeBuild,
  SCENARIOS,
  seed,
  sideBySide,
  startGenerated,
} from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-feature-cost');
/** ramses-starter's one model's table. */
const TABLE = 'item';
const WRITES = SCENARIOS.filter((s) => s.method === 'POST' || s.method === 'PATCH' || s.method === 'DELETE');
const CONTENDERS = ['generated', 'held off', 'held off, no event', 'hand-written', HAND_WRITTEN_ALL];
/** Where the one-step writes append their event (lib/sql/repository.ts, `writeRecorded`; recorded-writes.ts), taken out. */
const NO_EVENT = [
  {
    file: 'lib/sql/repository.js',
    from: 'return appendStatement(this.dialect, [newEvent(models, model, action, record)]);',
    to: 'return undefined;',
  },
  // PostgreSQL: the events' CTE of every one-step write, alone or merged, a select nobody reads (not run).
  {
    file: 'lib/sql/recorded-writes.js',
    from: '`e as (insert into svc_events (id, type, model, pk, time, data) ` +',
    to: '`e as (` +',
  },
];

export async function run({ rounds = 3, seconds = 4, connections = 20 } = {}) {
  const rate = Number(process.env['SVCGEN_BENCH_RATE']) || undefined;
  const { project, modules } = await builtStarter(work);
  const noEvent = probeBuild(project, join(work, 'no-event'), NO_EVENT);
  const rows = [
    [
      'engine',
      'scenario',
      'contender',
      'req/s',
      '÷ hand-written',
      '÷ hand-written +',
      'p99 ms',
      'server CPU µs/request',
    ],
  ];
  for (const engine of ['sqlite', 'postgres']) {
    const databases = await benchDatabases(engine, work, CONTENDERS);
    const servers = {
      generated: await startGenerated(project, databases['generated']),
      'held off': await startGenerated(project, databases['held off']),
      'held off, no event': await startGenerated(noEvent, databases['held off, no event']),
      ...(await handWrittenServers(modules, databases)),
    };
    try {
      for (const server of Object.values(servers)) await seed(server.url, 1000);
      await holdOff(engine, databases['held off'], modules);
      await holdOff(engine, databases['held off, no event'], modules);
      for (const scenario of WRITES)
        for (const cells of await sideBySide(servers, scenario, { rounds, seconds, connections, rate }))
          rows.push([engine, scenario.name, ...cells]);
    } finally {
      for (const server of Object.values(servers)) server.stop();
    }
  }
  return {
    title: `What the write features cost, served${rate ? ` at ${rate.toLocaleString('en')} requests/s` : ''} (ramses-starter Item, SQLite and PostgreSQL)`,
    text: table(rows),
    summary: `autocannon, ${connections} connections${rate ? `, ${rate.toLocaleString('en')} requests per second` : ''}, ${rounds} alternating rounds of ${seconds} s per server and scenario (medians; CPU is the server process's user + system time from /proc), 1,000 rows. "held off": the same generated service with the full-text index's upkeep and the kept row counts held off in its database (SQLite: their triggers dropped, the index told it has every row; PostgreSQL: the row-count triggers and the tsvector columns dropped). Every write still appends its event, but in "held off, no event": the same held-off service built without the event's insert (a probe, bench/serve.mjs's probeBuild). Hand-written: bench/serve.mjs's, which has no search, no kept counts and no events; "${HAND_WRITTEN_ALL}" ("hand-written +"): the same server with the item's ETag, If-Match, the security headers and each write's event in the write's transaction (PostgreSQL: in its statement), still without search or kept counts (bench/hand-written, \`contract\`).`,
  };
}

/** Takes the search index's upkeep and the row counts off the table's writes in `database`. */
async function holdOff(engine, database, modules) {
  const require = createRequire(join(modules, 'noop.js'));
  if (engine === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(database.slice('sqlite:'.length));
    try {
      db.pragma('busy_timeout = 5000');
      const triggers = db
        .prepare(
          `select name from sqlite_master where type = 'trigger' and tbl_name = ? and (name like 'svc\\_search\\_%' escape '\\' or name like 'svc\\_count\\_%' escape '\\')`,
        )
        .pluck()
        .all(TABLE);
      for (const name of triggers) db.exec(`drop trigger "${name}"`);
      db.prepare(`update svc_search_state set indexed_to = 9007199254740991 where name = ?`).run(TABLE);
      db.exec(`delete from "svc_search_${TABLE}_stale"`);
      if (triggers.length === 0) throw new Error(`no search or row-count trigger on ${TABLE}: nothing held off`);
    } finally {
      db.close();
    }
    return;
  }
  const { Client } = require('pg');
  const client = new Client({ connectionString: database });
  await client.connect();
  try {
    const { rows: triggers } = await client.query(
      `select tgname from pg_trigger where tgrelid = $1::regclass and not tgisinternal and tgname like 'svc\\_count\\_%'`,
      [TABLE],
    );
    for (const { tgname } of triggers) await client.query(`drop trigger "${tgname}" on ${TABLE}`);
    const { rows: columns } = await client.query(
      `select attname from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped and attname like 'svc\\_search\\_%'`,
      [TABLE],
    );
    for (const { attname } of columns) await client.query(`alter table ${TABLE} drop column "${attname}"`);
    if (triggers.length === 0 || columns.length === 0)
      throw new Error(`${TABLE} has ${triggers.length} row-count triggers and ${columns.length} search columns`);
  } finally {
    await client.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`## ${result.title}\n\n${result.text}\n\n${result.summary}`);
}
