#!/usr/bin/env node
// What a GET of one item pays for the contract's ETag and security headers, served: the generated
// ramses-starter service as built, a probe build of it without the two (bench/serve.mjs's
// `probeBuild`: the ETag's digest and the onSend hook that sets nosniff and no-store taken out of
// its compiled runtime), the hand-written server, which sends neither, and the hand-written server
// with both (and the contract's events, which a GET does not write). Side by side on SQLite and
// PostgreSQL; what is left between the probe and the hand-written server, or between the generated
// service and the hand-written one with the same duties, is the generic read path itself (policy,
// route context, repository, serializer, hooks).
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
const work = join(root, '.tmp', 'bench-read-cost');
const CONTENDERS = ['generated', 'no ETag or headers', 'hand-written', HAND_WRITTEN_ALL];
const GET_ONE = SCENARIOS.find((s) => s.name === 'GET one item');
/** The item's ETag (lib/http/reads.ts, `show`) and the security headers' hook (lib/http/app.ts), taken out. */
const BARE = [
  { file: 'lib/http/reads.js', from: "reply.header('etag', etagOf(whole));", to: '' },
  { file: 'lib/http/app.js', from: "app.addHook('onSend',", to: "(() => undefined)('onSend'," },
];

export async function run({ rounds = 7, seconds = 4, connections = 20 } = {}) {
  const { project, modules } = await builtStarter(work);
  const bare = probeBuild(project, join(work, 'bare'), BARE);
  const rows = [
    ['engine', 'contender', 'req/s', '÷ hand-written', '÷ hand-written +', 'p99 ms', 'server CPU µs/request'],
  ];
  for (const engine of ['sqlite', 'postgres']) {
    const databases = await benchDatabases(engine, work, CONTENDERS);
    const servers = {
      generated: await startGenerated(project, databases['generated']),
      'no ETag or headers': await startGenerated(bare, databases['no ETag or headers']),
      ...(await handWrittenServers(modules, databases)),
    };
    try {
      for (const server of Object.values(servers)) await seed(server.url, 1000);
      for (const cells of await sideBySide(servers, GET_ONE, { rounds, seconds, connections, warmUp: 2 }))
        rows.push([engine, ...cells]);
    } finally {
      for (const server of Object.values(servers)) server.stop();
    }
  }
  return {
    title:
      'What GET one item pays for its ETag and security headers, served (ramses-starter Item, SQLite and PostgreSQL)',
    text: table(rows),
    summary: `autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per server (medians; CPU is the server process's user + system time from /proc), 1,000 rows. "no ETag or headers": the same compiled service without the item's ETag and without the onSend hook that sets X-Content-Type-Options and Cache-Control (a probe, bench/serve.mjs's probeBuild). Hand-written: bench/serve.mjs's, which sends neither; "${HAND_WRITTEN_ALL}" ("hand-written +"): the same server with the item's ETag (a digest of its row), If-Match on writes, the two headers in a callback onSend hook and each write's event in its transaction (bench/hand-written, \`contract\`).`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`## ${result.title}\n\n${result.text}\n\n${result.summary}`);
}
