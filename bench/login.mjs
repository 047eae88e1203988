// Logins under load, and what they cost everybody else: the generated ramses-example service with
// auth on (argon2id, m=19 MiB t=2 p=1), autocannon on 127.0.0.1.
//
// A login costs one argon2id verify — tens of milliseconds of a libuv thread and 19 MiB — where an
// ordinary read costs well under a millisecond. The service runs at most 4 hashes at once and lets
// at most 32 more wait; beyond that it answers 503 with Retry-After. This measures
//   A. logins alone (32 connections): logins/s, latency of the successful ones, 503s;
//   B. ordinary reads alone (GET /v1/stories, 20 connections): req/s, p99;
//   C. both at once: how much the reads' p99 grows while logins run (the point of the cap).
// One run of each phase, so the numbers carry this VM's noise (about ±30 %).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '../scripts/free-port.mjs';
import { linkDependencies } from '../scripts/project-deps.mjs';
import { percentile, table } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const work = join(root, '.tmp', 'bench-login');
const autocannon = createRequire(import.meta.url)('autocannon');

const PASSWORD = 'password-123';
// A new object each time: autocannon writes content-length into the headers it is given.
const jsonHeaders = () => ({ 'content-type': 'application/json' });

export async function run({ seconds = 10, loginConnections = 32, readConnections = 20, users = 20 } = {}) {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const server = await start(await build());
  try {
    const cookie = await register(server.url, users);
    await seedStories(server.url, cookie, 20);
    const logins = { path: '/v1/auth/login', connections: loginConnections, setupRequest: rotatingLogin(users) };
    const reads = { path: '/v1/stories', connections: readConnections };
    const phase = async (...loads) => {
      const results = await Promise.all(loads.map((l) => load(server.url, l, seconds)));
      await drain(server.url); // logins still queued in the service would weigh on the next phase
      return results;
    };
    await Promise.all([load(server.url, logins, 1), load(server.url, reads, 1)]); // warm-up
    await drain(server.url);
    const alone = { logins: (await phase(logins))[0], reads: (await phase(reads))[0] };
    const [loginsMixed, readsMixed] = await phase(logins, reads);
    return report({
      alone,
      mixed: { logins: loginsMixed, reads: readsMixed },
      seconds,
      loginConnections,
      readConnections,
      users,
      server,
    });
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Generates ramses-example, links the shared dependencies and compiles it; returns the project folder. */
export async function build() {
  const project = join(work, 'generated');
  execFileSync(
    process.execPath,
    [join(root, 'bin/svcgen.js'), 'generate', join(root, 'fixtures/ramses-example/api.raml'), '-o', project],
    { stdio: 'ignore' },
  );
  const modules = await linkDependencies(project);
  execFileSync(join(modules, '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: project, stdio: 'inherit' });
  return project;
}

/** Starts the service with auth on and a system admin; resolves once GET /v1/health answers 200. */
export async function start(project) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    SVC_CONFIG: join(work, 'none.ini'),
    SVC_DATABASE_URL: `sqlite:${join(work, 'login.db')}`,
    SVC_LOG_LEVEL: 'warn',
    SVC_AUTH: 'true',
    SVC_AUTH_TKT_SECRET: 'ab'.repeat(32),
    SVC_SYSTEM_USER: 'admin',
    SVC_SYSTEM_PASSWORD: 'bench-admin-password',
    SVC_SYSTEM_EMAIL: 'admin@example.com',
  };
  const child = spawn(process.execPath, [join(project, 'dist/server.js')], {
    cwd: project,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  for (const stream of [child.stdout, child.stderr])
    stream.on('data', (chunk) => output.push(...String(chunk).split('\n').filter(Boolean)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) break;
    const status = await fetch(`${url}/v1/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { url, output, stop };
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`the generated service did not start:\n${output.join('\n')}`);
}

/** Registers u1…u<count> (201 each); returns u1's login cookie. */
export async function register(url, count) {
  let cookie;
  for (let i = 1; i <= count; i++) {
    const body = { username: `u${i}`, email: `u${i}@example.com`, password: PASSWORD };
    const response = await fetch(`${url}/v1/auth/register`, {
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`registering u${i}: ${response.status} ${await response.text()}`);
    cookie ??= response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
  }
  return cookie;
}

/** A few stories, so that GET /v1/stories answers a page rather than an empty list. */
async function seedStories(url, cookie, count) {
  for (let i = 0; i < count; i++) {
    const body = { name: `story ${i}`, description: `seeded story number ${i}` };
    const response = await fetch(`${url}/v1/stories`, {
      method: 'POST',
      headers: { ...jsonHeaders(), cookie },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`seeding story ${i}: ${response.status} ${await response.text()}`);
  }
}

/** An autocannon setupRequest that logs in as u1, u2, … u<count>, u1, … in turn. */
function rotatingLogin(count) {
  let next = 0;
  return (request) => {
    next = (next % count) + 1;
    return {
      ...request,
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify({ login: `u${next}`, password: PASSWORD }),
    };
  };
}

/**
 * Waits until the logins autocannon left behind are done: when it stops, up to 36 hashes may still
 * be running or queued in the service. One login per hashing slot, queued behind them (first in,
 * first out), comes back once they have been served.
 */
async function drain(url) {
  await Promise.all(
    Array.from({ length: 4 }, () =>
      fetch(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: jsonHeaders(),
        body: JSON.stringify({ login: 'u1', password: PASSWORD }),
      }).then((r) => r.text()),
    ),
  );
}

/** Runs autocannon; counts answers by status and keeps the latencies of the 2xx ones. */
function load(url, { path, connections, setupRequest }, seconds) {
  const statuses = {};
  const okLatencies = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: `${url}${path}`, connections, duration: seconds, requests: [setupRequest ? { setupRequest } : {}] },
      (/** @type {Error | null} */ error, result) => {
        if (error) return reject(error);
        const ok = okLatencies.length;
        resolve({
          ok,
          perSecond: ok / seconds,
          p50: percentile(okLatencies, 0.5),
          p99: percentile(okLatencies, 0.99),
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, latency) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status >= 200 && status < 300) okLatencies.push(latency);
    });
  });
}

function report({ alone, mixed, seconds, loginConnections, readConnections, users, server }) {
  const ms = (n) => `${n.toFixed(1)} ms`;
  const rows = [
    ['', 'ok/s', 'p50', 'p99', '503s', 'other non-2xx / errors'],
    [`A. logins alone (${loginConnections} conn.)`, ...columns(alone.logins)],
    [`B. GET /v1/stories alone (${readConnections} conn.)`, ...columns(alone.reads)],
    ['C. logins, during GETs', ...columns(mixed.logins)],
    ['C. GET /v1/stories, during logins', ...columns(mixed.reads)],
  ];
  function columns(r) {
    return [Math.round(r.perSecond), ms(r.p50), ms(r.p99), r.statuses[503] ?? 0, oddities(r)];
  }
  const ratio = mixed.reads.p99 / alone.reads.p99;
  const serverLines = server.output.length
    ? ` The service wrote ${server.output.length} lines at level warn or above; the first: ${server.output[0]}`
    : ' The service wrote nothing at level warn or above.';
  return {
    title: `Logins under load: argon2id m=19 MiB t=2 p=1, ${os.cpus().length}-core VM (ramses-example, auth on)`,
    text: table(rows),
    summary:
      `autocannon, ${seconds} s per phase, one run each; logins rotate over ${users} registered users (POST /v1/auth/login), ` +
      `latencies are of the 2xx answers. GET p99 with logins / alone: ${ratio.toFixed(1)}× ` +
      `(${ms(mixed.reads.p99)} vs ${ms(alone.reads.p99)}); GET req/s ${Math.round(mixed.reads.perSecond)} vs ${Math.round(alone.reads.perSecond)}. ` +
      `The service runs at most 4 hashes at once and queues 32, so ${loginConnections} connections stay within the cap.${serverLines}`,
  };
}

function oddities(r) {
  const other = Object.entries(r.statuses).filter(([s]) => (Number(s) < 200 || Number(s) >= 300) && s !== '503');
  const parts = other.map(([s, n]) => `${n}×${s}`);
  if (r.errors) parts.push(`${r.errors} errors`);
  if (r.timeouts) parts.push(`${r.timeouts} timeouts`);
  return parts.join(', ') || '-';
}
