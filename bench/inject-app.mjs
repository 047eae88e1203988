// One contender of the in-process benchmarks (bench/inject.mjs, bench/auth-cost.mjs) in a process of
// its own: two builds of the runtime loaded in one process do not cost what each costs alone (the
// same build in two folders measured 133 against 100 µs a GET, 1.33×, by the order they were loaded
// in), nor do two configurations of one build (auth on and off share the runtime's call sites).
// Forked with one JSON argument, { kind, project, modules, database, env }; answers `inject`,
// `seed`, `measure` and `close` messages (see `answer`), one at a time.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { handWrittenApp } from './hand-written/server.mjs';
import { removeSqliteFiles } from './lib.mjs';

const { kind, project, modules, database, env = {} } = JSON.parse(process.argv[2]);
// Each request logged at level info to nowhere, as the served contenders write theirs to stdout
// (pino's synchronous destination; a Node stream would cost each line ~10 µs more).
const pino = createRequire(join(modules, 'package.json'))('pino');
const logger = { level: 'info', stream: pino.destination({ dest: '/dev/null', sync: true }) };
if (database.startsWith('sqlite:')) removeSqliteFiles(database.slice('sqlite:'.length));
const app =
  kind === 'generated'
    ? await generatedApp()
    : handWrittenApp(modules, database.slice('sqlite:'.length), logger, { contract: kind === 'contract' });
await app.ready();

process.on('message', (message) => void answer(message));
process.send({ ready: true });

/**
 * One message, answered when done: `inject` sends one request ({ request }) and answers its status,
 * headers and JSON; `seed` sends `count` requests ({ request }, `{i}` in its body's text replaced by
 * each one's number) and answers the first one's `id`; `measure` answers the CPU µs per request of
 * `count` requests of `scenario`; `close` ends the process.
 */
async function answer({ command, request, scenario, count }) {
  try {
    if (command === 'inject') {
      const reply = await app.inject(request);
      process.send({ status: reply.statusCode, headers: reply.headers, body: reply.body });
    } else if (command === 'seed') process.send({ id: await seed(request, count) });
    else if (command === 'measure') process.send({ cost: await costPerRequest(scenario, count) });
    else if (command === 'close') {
      await app.close();
      process.exit(0);
    }
  } catch (error) {
    process.send({ error: String(error) });
  }
}

async function generatedApp() {
  const { loadServiceConfig } = await import(join(project, 'dist/config.js'));
  const { openDatabase } = await import(join(project, 'dist/db/index.js'));
  const { buildApp } = await import(join(project, 'dist/app.js'));
  const config = loadServiceConfig({ SVC_CONFIG: join(project, 'none.ini'), SVC_DATABASE_URL: database, ...env });
  return buildApp(config, await openDatabase(config), { logger });
}

async function seed(request, count) {
  let first;
  for (let i = 0; i < count; i++) {
    const payload = JSON.parse(JSON.stringify(request.payload).replaceAll('{i}', String(i)));
    const response = await app.inject({ ...request, payload });
    if (response.statusCode !== 201) throw new Error(`seeding: ${response.statusCode} ${response.body}`);
    first ??= response.json().id;
  }
  return first;
}

/**
 * CPU µs per request of `count` requests sent one after another; any answer but 2xx fails the run.
 * `scenario.freshEmail`: each request's body gets an address no other has (a unique field).
 */
async function costPerRequest(scenario, count) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const payload = scenario.freshEmail ? { ...scenario.body, email: `${randomUUID()}@example.com` } : scenario.body;
    const response = await app.inject({
      method: scenario.method,
      url: scenario.url,
      ...(scenario.headers ? { headers: scenario.headers } : {}),
      ...(payload ? { payload } : {}),
    });
    if (response.statusCode >= 300) throw new Error(`${scenario.name}: ${response.statusCode} ${response.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}
