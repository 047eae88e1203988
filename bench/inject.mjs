// The generated service's own cost per request, without the network: ramses-starter's Item on
// SQLite, the generated app and the hand-written one (bench/hand-written/server.mjs), without and
// with the contract's ETag, headers and events, built in this process and sent the same requests
// with Fastify's `inject`, rounds alternating. CPU time per request (process.cpuUsage) is what is
// compared: sockets, HTTP parsing and the kernel are the same for all and left out, so this is the
// figure that moves when the runtime's hot path does.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { handWrittenApp } from './hand-written/server.mjs';
import { median, removeSqliteFiles, table } from './lib.mjs';
import { builtStarter, HAND_WRITTEN_ALL } from './serve.mjs';

const work = fileURLToPath(new URL('../.tmp/bench-inject', import.meta.url));

const SCENARIOS = [
  { name: 'GET one item', method: 'GET', url: () => '/v1/items/500' },
  { name: 'GET a page of 20', method: 'GET', url: () => '/v1/items?_limit=20' },
  { name: 'POST create', method: 'POST', url: () => '/v1/items', body: { name: 'bench', description: 'a new item' } },
];

export async function run({ rounds = 15, requests = 500, before } = {}) {
  // Both log each request at level info, as the served contenders do, to nowhere.
  const logger = { level: 'info', stream: createWriteStream('/dev/null') };
  const apps = {};
  if (before) apps['generated before'] = await generatedApp(await builtStarter(join(work, 'before'), before), logger);
  const starter = await builtStarter(join(work, 'now'));
  apps.generated = await generatedApp(starter, logger);
  apps['hand-written'] = await handApp(starter.modules, logger);
  apps[HAND_WRITTEN_ALL] = await handApp(starter.modules, logger, { contract: true });
  const names = Object.keys(apps);
  const references = ['hand-written', HAND_WRITTEN_ALL];
  const measured = names.filter((n) => !references.includes(n));
  const rows = [
    [
      'scenario',
      ...names.map((n) => `${n} µs/req`),
      ...measured.flatMap((n) => [`${n} ÷ hand-written`, `${n} ÷ hand-written +`]),
    ],
  ];
  try {
    for (const app of Object.values(apps)) await seed(app, 1000);
    for (const scenario of SCENARIOS) {
      const cost = Object.fromEntries(names.map((n) => [n, []]));
      for (const app of Object.values(apps)) await costPerRequest(app, scenario, requests); // warm-up
      for (let r = 0; r < rounds; r++)
        for (const name of names) cost[name].push(await costPerRequest(apps[name], scenario, requests));
      // The ratio of each round's pair, then their median: a slow stretch of the machine hits both.
      const ratio = (name, reference) => median(cost[name].map((c, r) => c / cost[reference][r]));
      rows.push([
        scenario.name,
        ...names.map((n) => median(cost[n]).toFixed(1)),
        ...measured.flatMap((n) => references.map((reference) => `${ratio(n, reference).toFixed(2)}×`)),
      ]);
    }
  } finally {
    for (const app of Object.values(apps)) await app.close();
  }
  return {
    title:
      'In process: CPU per request of the generated app vs. hand-written Fastify (ramses-starter Item, SQLite, inject)',
    text: table(rows),
    summary: `${rounds} alternating rounds of ${requests} requests sent one after another with Fastify's inject (medians of process CPU time per request, user + system; ratios are the medians of each round's ratio), 1,000 rows, all logging at level info. "${HAND_WRITTEN_ALL}" ("hand-written +"): the hand-written app with the item's ETag and If-Match, the security headers and each write's event in its transaction. No sockets: the runtime's own cost, which the served benchmark ("Serving: …") adds the network's to.`,
  };
}

async function generatedApp({ project }, logger) {
  const dbFile = join(project, '..', 'inject.db');
  removeSqliteFiles(dbFile);
  const { loadServiceConfig } = await import(join(project, 'dist/config.js'));
  const { openDatabase } = await import(join(project, 'dist/db/index.js'));
  const { buildApp } = await import(join(project, 'dist/app.js'));
  const config = loadServiceConfig({ SVC_CONFIG: join(work, 'none.ini'), SVC_DATABASE_URL: `sqlite:${dbFile}` });
  return buildApp(config, await openDatabase(config), { logger });
}

async function handApp(modules, logger, { contract = false } = {}) {
  const dbFile = join(work, contract ? 'hand-written-contract.db' : 'hand-written.db');
  removeSqliteFiles(dbFile);
  const app = handWrittenApp(modules, dbFile, logger, { contract });
  await app.ready();
  return app;
}

async function seed(app, count) {
  for (let i = 0; i < count; i++) {
    const body = { name: `item ${i}`, description: `seeded item number ${i}` };
    const response = await app.inject({ method: 'POST', url: '/v1/items', payload: body });
    if (response.statusCode !== 201) throw new Error(`seeding: ${response.statusCode} ${response.body}`);
  }
}

/** CPU µs per request of `count` requests sent one after another; any answer but 2xx fails the run. */
async function costPerRequest(app, scenario, count) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const response = await app.inject({
      method: scenario.method,
      url: scenario.url(i),
      ...(scenario.body ? { payload: scenario.body } : {}),
    });
    if (response.statusCode >= 300) throw new Error(`${scenario.name}: ${response.statusCode} ${response.body}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

// `node bench/inject.mjs [svcgen checkout]`: also the project generated by another build of svcgen
// (a worktree at an earlier commit, built), measured beside this one: a change's before and after.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run({ before: process.argv[2] });
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
