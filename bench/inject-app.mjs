// One contender of bench/inject.mjs in a process of its own: two builds of the runtime loaded in one
// process do not cost what each costs alone (the same build in two folders measured 133 against
// 100 µs a GET, 1.33×, by the order they were loaded in). Forked with the contender's name, the
// project and the modules; answers `seed` and `measure` messages with the CPU time they took.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { handWrittenApp } from './hand-written/server.mjs';
import { removeSqliteFiles } from './lib.mjs';

const [kind, project, modules, dbFile] = process.argv.slice(2);
// Each request logged at level info to nowhere, as the served contenders write theirs to stdout
// (pino's synchronous destination; a Node stream would cost each line ~10 µs more).
const pino = createRequire(join(modules, 'package.json'))('pino');
const logger = { level: 'info', stream: pino.destination({ dest: '/dev/null', sync: true }) };
removeSqliteFiles(dbFile);
const app =
  kind === 'generated'
    ? await generatedApp()
    : handWrittenApp(modules, dbFile, logger, { contract: kind === 'contract' });
await app.ready();

process.on('message', (message) => void answer(message));
process.send({ ready: true });

/** One message of bench/inject.mjs's, answered when done: `seed`, `measure` (its cost) or `close`. */
async function answer({ command, scenario, count }) {
  try {
    if (command === 'seed') {
      await seed(count);
      process.send({ done: true });
    } else if (command === 'measure') process.send({ cost: await costPerRequest(scenario, count) });
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
  const config = loadServiceConfig({ SVC_CONFIG: join(project, 'none.ini'), SVC_DATABASE_URL: `sqlite:${dbFile}` });
  return buildApp(config, await openDatabase(config), { logger });
}

async function seed(count) {
  for (let i = 0; i < count; i++) {
    const body = { name: `item ${i}`, description: `seeded item number ${i}` };
    const response = await app.inject({ method: 'POST', url: '/v1/items', payload: body });
    if (response.statusCode !== 201) throw new Error(`seeding: ${response.statusCode} ${response.body}`);
  }
}

/** CPU µs per request of `count` requests sent one after another; any answer but 2xx fails the run. */
async function costPerRequest(scenario, count) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const response = await app.inject({
      method: scenario.method,
      url: scenario.url,
      ...(scenario.body ? { payload: scenario.body } : {}),
    });
    if (response.statusCode >= 300) throw new Error(`${scenario.name}: ${response.statusCode} ${response.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}
