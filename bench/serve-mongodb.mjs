// The generated ramses-starter service on MongoDB next to the same service on SQLite: GET one
// item, GET a page of 20, POST, with autocannon on 127.0.0.1. MongoDB here is svcgen's TEST
// server (scripts/mongo-test-server, in memory, one transaction at a time, every query a full
// scan in JavaScript), run as its own process: the numbers say what the engine's code costs
// against that server, not how fast a real MongoDB deployment is. With MONGO_URL set, that server
// is used instead. Rounds alternate the two services; the table shows medians.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../scripts/free-port.mjs';
import { median, table } from './lib.mjs';
import { SCENARIOS, builtStarter, load, seed, start } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-serve-mongodb');

export async function run({ rounds = 3, seconds = 5, connections = 20 } = {}) {
  const { project } = await builtStarter(work);
  const mongo = process.env.MONGO_URL ? null : await startTestServer();
  const mongoUrl = new URL(process.env.MONGO_URL ?? mongo.url);
  mongoUrl.pathname = `/svcgen_bench_${Date.now()}`;
  const service = (env) =>
    start(process.execPath, [join(project, 'dist/server.js')], {
      cwd: project,
      env: (port) => ({ PORT: String(port), SVC_CONFIG: join(work, 'none.ini'), ...env }),
    });
  const servers = {
    SQLite: await service({ SVC_DATABASE_URL: `sqlite:${join(work, 'generated.db')}` }),
    MongoDB: await service({ SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: mongoUrl.href }),
  };
  try {
    for (const server of Object.values(servers)) await seed(server.url, 1000);
    const rows = [['', 'SQLite req/s', 'MongoDB (test server) req/s', 'MongoDB ÷ SQLite']];
    for (const scenario of SCENARIOS) {
      const results = { SQLite: [], MongoDB: [] };
      for (const server of Object.values(servers)) await load(server.url, scenario, 1, connections); // warm-up
      for (let r = 0; r < rounds; r++) {
        for (const [name, server] of Object.entries(servers))
          results[name].push(await load(server.url, scenario, seconds, connections));
      }
      const s = median(results.SQLite);
      const m = median(results.MongoDB);
      rows.push([scenario.name, Math.round(s), Math.round(m), `${(m / s).toFixed(2)}×`]);
    }
    return {
      title: `The MongoDB engine against ${mongo ? "svcgen's MongoDB TEST server (not MongoDB's speed)" : 'MONGO_URL'}, next to SQLite (ramses-starter Item)`,
      text: table(rows),
      summary: `autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per service and scenario (medians), 1,000 items seeded. ${mongo ? 'The test server keeps data in memory, scans every collection in JavaScript (mingo) and runs one transaction at a time, on the same 2 cores as the service and autocannon: these ratios are a floor for the engine, not a measure of MongoDB.' : ''} Reported, no target.`,
    };
  } finally {
    for (const server of Object.values(servers)) server.stop();
    mongo?.stop();
  }
}

async function startTestServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'scripts/mongo-test-server/index.mjs'), '--port', String(port)], {
    stdio: 'ignore',
  });
  const { connect } = await import('node:net');
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket.end() && true)).on('error', () => resolve(false));
    });
    if (ok) return { url: `mongodb://127.0.0.1:${port}/?directConnection=true`, stop: () => child.kill('SIGTERM') };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the MongoDB test server did not start');
}
