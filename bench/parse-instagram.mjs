// Parsing + expanding the TCK's Instagram API (about 55 includes): svcgen's front end against
// raml-1-parser 1.1.67. Target: svcgen at least 10× faster.
//
// Warm: each contender runs in its own Node process (so one's garbage does not slow the other),
// the processes alternate A B A B …, each warms up and then times single runs. raml-1-parser's
// expand() is lazy; toJSON() materialises the expanded API, which is the work svcgen does.
// Cold: one process per run, timing a whole command from start to exit (what a user waits for).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, ms, table } from './lib.mjs';

// The RAML 0.8 TCK corpus, as the tests find it (RAML_TCK_DIR, default ../shared/conformance/raml-0.8-tck).
const tck =
  process.env.RAML_TCK_DIR ?? fileURLToPath(new URL('../../shared/conformance/raml-0.8-tck', import.meta.url));
const file = `${tck}/Instagram/api.raml`;
const self = fileURLToPath(import.meta.url);
const bin = fileURLToPath(new URL('../bin/svcgen.js', import.meta.url));

/** Untimed runs per process first, so both contenders are measured with their code optimised. */
const WARMUP = 100;

const contenders = {
  svcgen: async () => {
    const { readRaml } = await import('../dist/src/raml/front-end.js');
    return () => {
      const result = readRaml(file);
      if (!result.api || result.api.resources.length !== 6) throw new Error('svcgen did not read Instagram');
    };
  },
  'raml-1-parser': () => {
    const r1 = createRequire(import.meta.url)('raml-1-parser');
    return () => {
      const api = r1.loadRAMLSync(file, []).expand().toJSON({ serializeMetadata: false });
      if (api.resources.length !== 6) throw new Error('raml-1-parser did not read Instagram');
    };
  },
};

async function worker(name, iterations) {
  const fn = await contenders[name]();
  for (let i = 0; i < WARMUP; i++) fn();
  const times = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  process.stdout.write(JSON.stringify(times));
}

function coldRun(args) {
  const start = performance.now();
  execFileSync(process.execPath, args, { stdio: 'ignore', maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - start;
}

export function run({ rounds = 5, iterations = 20, coldRounds = 5 } = {}) {
  const warm = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of Object.keys(contenders)) {
      const out = execFileSync(process.execPath, [self, '--worker', name, String(iterations)], { encoding: 'utf8' });
      warm[name].push(...JSON.parse(out));
    }
  }
  const cold = { svcgen: [], 'raml-1-parser': [] };
  const r1Script = `require('raml-1-parser').loadRAMLSync(${JSON.stringify(file)}, []).expand().toJSON({ serializeMetadata: false })`;
  for (let r = 0; r < coldRounds; r++) {
    // `inspect --tck`: the front end only (reading and expanding), the work raml-1-parser does;
    // `validate` would go on to build a service model, which Instagram is not written for.
    cold.svcgen.push(coldRun([bin, 'inspect', '--tck', file]));
    cold['raml-1-parser'].push(coldRun(['-e', r1Script]));
  }
  const w = (k) => median(warm[k]);
  const c = (k) => median(cold[k]);
  const warmRatio = w('raml-1-parser') / w('svcgen');
  const coldRatio = c('raml-1-parser') / c('svcgen');
  return {
    title: 'Parse + expand Instagram (TCK, ~55 includes)',
    text: table([
      ['', 'svcgen', 'raml-1-parser', 'ratio'],
      [
        `warm, median of ${rounds * iterations} runs`,
        ms(w('svcgen')),
        ms(w('raml-1-parser')),
        `${warmRatio.toFixed(1)}×`,
      ],
      [
        `cold process (start → exit), median of ${coldRounds}`,
        ms(c('svcgen')),
        ms(c('raml-1-parser')),
        `${coldRatio.toFixed(1)}×`,
      ],
    ]),
    metrics: {
      warmSvcgenMs: w('svcgen'),
      warmR1Ms: w('raml-1-parser'),
      warmRatio,
      coldSvcgenMs: c('svcgen'),
      coldR1Ms: c('raml-1-parser'),
      coldRatio,
    },
    summary: `warm: svcgen is ${warmRatio.toFixed(1)}× faster than raml-1-parser (target ≥ 10×); cold: ${coldRatio.toFixed(1)}× (Node's own start-up, ~80 ms, bounds this one)`,
  };
}

const args = process.argv.slice(2);
if (args[0] === '--worker') {
  await worker(args[1], Number(args[2]));
} else if (process.argv[1] === self) {
  const result = run();
  console.log(`${result.title}\n${result.text}\n${result.summary}`);
}
