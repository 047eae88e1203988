// The generated service's own cost per request, without the network: ramses-starter's Item on
// SQLite, the generated app and the hand-written one (bench/hand-written/server.mjs), without and
// with the contract's ETag, headers and events, each built in a process of its own
// (inject-app.mjs) and sent the same requests with Fastify's `inject`, rounds alternating. CPU time per request (process.cpuUsage) is what is
// compared: sockets, HTTP parsing and the kernel are the same for all and left out, so this is the
// figure that moves when the runtime's hot path does.
import { execFileSync, fork, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './lib.mjs';
import { builtStarter, HAND_WRITTEN_ALL } from './serve.mjs';

const work = fileURLToPath(new URL('../.tmp/bench-inject', import.meta.url));

/** Whether taskset can pin the contenders to one core (util-linux; not on every machine). */
const PIN = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true']);
    return true;
  } catch {
    return false;
  }
})();

const SCENARIOS = [
  { name: 'GET one item', method: 'GET', url: '/v1/items/500' },
  { name: 'GET a page of 20', method: 'GET', url: '/v1/items?_limit=20' },
  { name: 'POST create', method: 'POST', url: '/v1/items', body: { name: 'bench', description: 'a new item' } },
];

export async function run({ rounds = 15, requests = 500, before } = {}) {
  const built = before ? await builtStarter(join(work, 'before'), before) : undefined;
  const starter = await builtStarter(join(work, 'now'));
  const apps = {};
  if (built) apps['generated before'] = await contender('generated', built, 'before.db');
  apps.generated = await contender('generated', starter, 'now.db');
  apps['hand-written'] = await contender('hand-written', starter, 'hand-written.db');
  apps[HAND_WRITTEN_ALL] = await contender('contract', starter, 'hand-written-contract.db');
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
    for (const app of Object.values(apps)) await app.ask({ command: 'seed', count: 1000 });
    for (const scenario of SCENARIOS) {
      const cost = Object.fromEntries(names.map((n) => [n, []]));
      const measure = async (name) => (await apps[name].ask({ command: 'measure', scenario, count: requests })).cost;
      for (const name of names) await measure(name); // warm-up
      for (let r = 0; r < rounds; r++) for (const name of names) cost[name].push(await measure(name));
      // The ratio of each round's pair, then their median: a slow stretch of the machine hits both.
      const ratio = (name, reference) => median(cost[name].map((c, r) => c / cost[reference][r]));
      rows.push([
        scenario.name,
        ...names.map((n) => median(cost[n]).toFixed(1)),
        ...measured.flatMap((n) => references.map((reference) => `${ratio(n, reference).toFixed(2)}×`)),
      ]);
    }
  } finally {
    for (const app of Object.values(apps)) app.close();
  }
  return {
    title:
      'In process: CPU per request of the generated app vs. hand-written Fastify (ramses-starter Item, SQLite, inject)',
    text: table(rows),
    summary: `${rounds} alternating rounds of ${requests} requests sent one after another with Fastify's inject, each contender in a process of its own${PIN ? ', all pinned to one core' : ''}, one at a time (medians of process CPU time per request, user + system; ratios are the medians of each round's ratio), 1,000 rows, all logging each request at level info. "${HAND_WRITTEN_ALL}" ("hand-written +"): the hand-written app with the item's ETag and If-Match, the security headers and each write's event in its transaction. No sockets: the runtime's own cost, which the served benchmark ("Serving: …") adds the network's to.`,
  };
}

/** A contender of its own process (inject-app.mjs), asked one thing at a time. */
async function contender(kind, { project, modules }, db) {
  const script = fileURLToPath(new URL('inject-app.mjs', import.meta.url));
  const args = [script, kind, project, modules, join(work, db)];
  // On one core, all of them: this VM's two cores differ, and a process stays on the one it starts
  // on (the same build measured 108 against 156 µs a GET on two).
  const child = PIN
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : fork(script, args.slice(1));
  let pending;
  const next = () => new Promise((resolve, reject) => (pending = { resolve, reject }));
  child.on('message', (message) =>
    message.error ? pending.reject(new Error(message.error)) : pending.resolve(message),
  );
  child.on('exit', (code) => pending.reject(new Error(`${kind} exited (${code})`)));
  const ready = next();
  await ready;
  return {
    ask: (message) => {
      const answer = next();
      child.send(message);
      return answer;
    },
    close: () => child.send({ command: 'close' }),
  };
}

// `node bench/inject.mjs [svcgen checkout]`: also the project generated by another build of svcgen
// (a worktree at an earlier commit, built), measured beside this one: a change's before and after.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run({ before: process.argv[2] });
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
