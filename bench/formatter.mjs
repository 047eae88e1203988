// Cold generation with each formatter of src/format/format.ts, side by side: oxfmt (the default)
// against prettier (SVCGEN_FORMATTER=prettier), each run a fresh `svcgen generate` process into an
// empty folder, alternating, for the 100-resource API of generate-api.mjs and for ramses-example.
// Wall time, and CPU time (user + system of the process, all threads) where /usr/bin/time exists.
// The two trees must be byte-identical, or the benchmark fails.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generateApi } from './generate-api.mjs';
import { median, table } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-formatter');
const TIME = '/usr/bin/time';

function generate(raml, out, formatter) {
  rmSync(out, { recursive: true, force: true });
  const env = { ...process.env, SVCGEN_FORMATTER: formatter };
  const command = [process.execPath, join(root, 'bin/svcgen.js'), 'generate', raml, '-o', out];
  const start = performance.now();
  if (!existsSync(TIME)) {
    execFileSync(command[0], command.slice(1), { stdio: 'ignore', env });
    return { wall: performance.now() - start, cpu: NaN };
  }
  const { status, stderr } = spawnSync(TIME, ['-f', 'cpu %U %S', ...command], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (status !== 0) throw new Error(`svcgen generate failed:\n${stderr}`);
  const wall = performance.now() - start;
  const [user, system] = stderr.trim().split('\n').pop().split(' ').slice(1).map(Number);
  return { wall, cpu: (user + system) * 1000 };
}

function files(dir, prefix = '') {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? files(path, `${prefix}${name}/`)
      : [[`${prefix}${name}`, readFileSync(path, 'utf8')]];
  });
}

function assertSameTrees(a, b) {
  const [left, right] = [new Map(files(a)), new Map(files(b))];
  for (const [path, content] of left) {
    if (path === '.svcgen/manifest.json') continue;
    if (right.get(path) !== content) throw new Error(`oxfmt and prettier disagree on ${path}`);
  }
  if (left.size !== right.size) throw new Error('oxfmt and prettier generated different sets of files');
}

export function run({ rounds = 5 } = {}) {
  rmSync(work, { recursive: true, force: true });
  const apis = [
    ['100 resources', generateApi(join(work, 'api'), 100)],
    ['ramses-example', join(root, 'fixtures/ramses-example/api.raml')],
  ];
  const rows = [
    [
      'cold, fresh process, empty folder',
      'oxfmt wall',
      'prettier wall',
      'oxfmt CPU',
      'prettier CPU',
      'prettier ÷ oxfmt (wall)',
    ],
  ];
  for (const [name, raml] of apis) {
    const times = { oxfmt: [], prettier: [] };
    for (let r = 0; r < rounds; r++) {
      for (const formatter of ['oxfmt', 'prettier'])
        times[formatter].push(generate(raml, join(work, formatter), formatter));
    }
    assertSameTrees(join(work, 'oxfmt'), join(work, 'prettier'));
    const m = (f, k) => median(times[f].map((t) => t[k]));
    const s = (v) => (Number.isNaN(v) ? 'n/a' : `${(v / 1000).toFixed(2)} s`);
    rows.push([
      name,
      s(m('oxfmt', 'wall')),
      s(m('prettier', 'wall')),
      s(m('oxfmt', 'cpu')),
      s(m('prettier', 'cpu')),
      `${(m('prettier', 'wall') / m('oxfmt', 'wall')).toFixed(1)}×`,
    ]);
  }
  rmSync(work, { recursive: true, force: true });
  return {
    title: 'Cold generation: oxfmt vs. prettier',
    text: table(rows),
    summary: `${rounds} alternating rounds, medians; the same svcgen build, SVCGEN_FORMATTER=prettier for prettier. The two trees were byte-identical (checked). Targets: 100 resources under 2 s, ramses-example under 0.8 s (wall, oxfmt).`,
  };
}
