// The generated service against a hand-written Fastify + better-sqlite3 server of the same model
// (ramses-starter's Item), with autocannon on 127.0.0.1: GET one item, GET a page of 20, POST.
// Target: the generated service reaches at least 0.8× the hand-written one on each.
//
// Both servers run as their own processes on their own SQLite file, seeded with the same 1,000
// items, logging requests at level info (to /dev/null). Rounds alternate A B A B … so that the
// VM's noise hits both alike; the table shows the median requests/s of the rounds.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../scripts/free-port.mjs';
import { linkDependencies } from '../scripts/project-deps.mjs';
import { median, table } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-serve');
const autocannon = createRequire(import.meta.url)('autocannon');

export const SCENARIOS = [
  { name: 'GET one item', path: '/v1/items/500' },
  { name: 'GET a page of 20', path: '/v1/items?_limit=20' },
  { name: 'POST create', path: '/v1/items', method: 'POST', body: JSON.stringify({ name: 'bench', description: 'a new item' }), headers: { 'content-type': 'application/json' } },
];

/** ramses-starter, generated (by the svcgen in `generator`, this one by default) and compiled into `work/generated`; returns its folder and node_modules. */
export async function builtStarter(work, generator = root) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const project = join(work, 'generated');
  execFileSync(process.execPath, [join(generator, 'bin/svcgen.js'), 'generate', join(root, 'fixtures/ramses-starter/api.raml'), '-o', project], { stdio: 'ignore' });
  const modules = await linkDependencies(project);
  execFileSync(join(modules, '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: project, stdio: 'inherit' });
  return { project, modules };
}

export async function run({ rounds = 3, seconds = 5, connections = 20 } = {}) {
  const { project, modules } = await builtStarter(work);

  const servers = {
    generated: await start(process.execPath, [join(project, 'dist/server.js')], { cwd: project, env: (port) => ({ PORT: String(port), SVC_DATABASE_URL: `sqlite:${join(work, 'generated.db')}`, SVC_CONFIG: join(work, 'none.ini') }) }),
    'hand-written': await start(process.execPath, [join(root, 'bench/hand-written/server.mjs'), modules, join(work, 'hand.db')], { portArg: true }),
  };
  try {
    for (const server of Object.values(servers)) await seed(server.url, 1000);
    const results = {};
    for (const scenario of SCENARIOS) {
      results[scenario.name] = { generated: [], 'hand-written': [] };
      for (const [name, server] of Object.entries(servers)) await load(server.url, scenario, 1, connections); // warm-up
      for (let r = 0; r < rounds; r++) {
        for (const [name, server] of Object.entries(servers)) results[scenario.name][name].push(await load(server.url, scenario, seconds, connections));
      }
    }
    const rows = [['', 'generated req/s', 'hand-written req/s', 'ratio']];
    const ratios = [];
    for (const [scenario, byServer] of Object.entries(results)) {
      const g = median(byServer.generated);
      const h = median(byServer['hand-written']);
      ratios.push(g / h);
      rows.push([scenario, Math.round(g), Math.round(h), `${(g / h).toFixed(2)}×`]);
    }
    const worst = Math.min(...ratios);
    return {
      title: 'Generated service vs. hand-written Fastify + better-sqlite3 (ramses-starter Item)',
      text: table(rows),
      summary: `autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s per server and scenario (medians). Worst ratio ${worst.toFixed(2)}× — target ≥ 0.8×: ${worst >= 0.8 ? 'met' : 'NOT met'}.`,
    };
  } finally {
    for (const server of Object.values(servers)) server.stop();
  }
}

export async function start(command, args, { cwd, env, portArg } = {}) {
  const port = await freePort();
  const child = spawn(command, portArg ? [...args, String(port)] : args, { cwd, env: { ...process.env, ...(env ? env(port) : {}) }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`${url}/v1/items?_limit=1`);
      return { url, pid: child.pid, stop: () => child.kill('SIGTERM') };
    } catch {
      await sleep(100);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`${command} ${args.join(' ')} did not start`);
}

export async function seed(url, count) {
  for (let i = 0; i < count; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, (_, j) =>
        fetch(`${url}/v1/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: `item ${i + j}`, description: `seeded item number ${i + j}` }) }).then((r) => {
          if (r.status !== 201) throw new Error(`seeding ${url}: ${r.status}`);
        }),
      ),
    );
  }
}

export function load(url, scenario, seconds, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${url}${scenario.path}`, method: scenario.method ?? 'GET', body: scenario.body, headers: scenario.headers, connections, duration: seconds }, (error, result) => {
      if (error) return reject(error);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${scenario.name} on ${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve(result.requests.average);
    });
  });
}
