#!/usr/bin/env node
// Where the generated service spends its CPU under load: ramses-starter, built as bench/serve.mjs
// builds it, runs under `node --cpu-prof` while autocannon drives one scenario; the samples taken
// after the warm-up are summed per function (self time) and per file, and the top ones printed.
// Usage: node bench/profile.mjs [sqlite|postgres] ["GET one item"|"POST create"|…] [seconds] [top] [generated|hand-written|hand-written+]
// (`hand-written+`: the hand-written server with the contract's ETag, headers and events.)
// The .cpuprofile stays in .tmp/bench-profile/profiles/ for Chrome DevTools or speedscope.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { benchDatabases, builtStarter, measure, SCENARIOS, seed, startGenerated, startHandWritten } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-profile');
const [engine = 'sqlite', scenarioName = 'GET one item', seconds = '8', top = '40', contender = 'generated'] =
  process.argv.slice(2);
const scenario = SCENARIOS.find((s) => s.name === scenarioName);
if (!scenario) throw new Error(`no scenario "${scenarioName}": ${SCENARIOS.map((s) => s.name).join(', ')}`);

// SVCGEN_PROFILE_GENERATOR: a built checkout of another svcgen, to profile what it generated (before → after).
const { project, modules } = await builtStarter(work, process.env['SVCGEN_PROFILE_GENERATOR']);
const profiles = join(work, 'profiles');
rmSync(profiles, { recursive: true, force: true });
const { [contender]: database } = await benchDatabases(engine, work, [contender]);
const profiling = ['--cpu-prof', '--cpu-prof-dir', profiles];
const server =
  contender === 'generated'
    ? await startGenerated(project, database, { nodeArgs: profiling })
    : await startHandWritten(modules, database, {
        contract: contender === 'hand-written+',
        nodeArgs: [
          ...profiling,
          // It has no SIGTERM handler of its own: exit normally, so that the profile is written.
          '--import',
          'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))',
        ],
      });
await seed(server.url, 1000);
await measure(server.url, scenario, 2, 20); // warm-up, left out of the sums below
const warm = Date.now();
const result = await measure(server.url, scenario, Number(seconds), 20);
server.stop();
await sleep(1500);
const [file] = readdirSync(profiles);
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8'));
console.log(`${contender}, ${engine} ${scenario.name}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms`);
report(profile, warm, Number(top), result.total);

/** Self time per function and per file, over the samples taken after `since` (ms since the epoch). */
function report(profile, since, limit, requests) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const startedAt = profile.startTime; // µs, same clock as timeDeltas, not the epoch
  const wallStart = Date.now() * 1000 - (profile.endTime - startedAt) - 1_500_000;
  let t = startedAt;
  const selfTime = new Map();
  const byFile = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (wallStart + (t - startedAt) < since * 1000) return;
    const frame = nodes.get(id).callFrame;
    const where = frame.url ? frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/') : '(native)';
    const key = `${frame.functionName || '(anonymous)'}  ${where}:${frame.lineNumber + 1}`;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    selfTime.set(key, (selfTime.get(key) ?? 0) + delta);
    byFile.set(where, (byFile.get(where) ?? 0) + delta);
    total += delta;
  });
  const busy = total - (selfTime.get('(idle)  (native):0') ?? 0);
  console.log(
    `busy: ${(busy / requests).toFixed(1)} µs of CPU per request (samples other than idle, after the warm-up)`,
  );
  const print = (title, map) => {
    console.log(`\n${title}`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit))
      console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`);
  };
  print('self time by function', selfTime);
  print('self time by file', byFile);
}
