// Parsing + expanding the TCK's Instagram API (about 55 includes): svcgen's front end against
// raml-1-parser 1.1.67, side by side in one process. Target: svcgen at least 10× faster.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { readRaml } from '../dist/raml/front-end.js';
import { ms, sideBySide, table } from './lib.mjs';

const require = createRequire(import.meta.url);
const file = fileURLToPath(new URL('../../shared/conformance/raml-0.8-tck/Instagram/api.raml', import.meta.url));

export function run({ rounds = 15 } = {}) {
  const r1 = require('raml-1-parser');
  const contenders = {
    svcgen: () => {
      const result = readRaml(file);
      if (!result.api || result.api.resources.length !== 6) throw new Error('svcgen did not read Instagram');
    },
    // expand() is lazy in raml-1-parser; toJSON() materialises the expanded API (as the TCK does).
    'raml-1-parser': () => {
      const api = r1.loadRAMLSync(file, []).expand().toJSON({ serializeMetadata: false });
      if (api.resources.length !== 6) throw new Error('raml-1-parser did not read Instagram');
    },
  };
  const t = sideBySide(contenders, { warmup: 3, rounds });
  const ratio = t['raml-1-parser'].median / t.svcgen.median;
  return {
    title: 'Parse + expand Instagram (TCK, ~55 includes)',
    text: table([
      ['parser', 'median', 'min', 'max'],
      ...Object.entries(t).map(([k, v]) => [k, ms(v.median), ms(v.min), ms(v.max)]),
    ]),
    metrics: { svcgenMs: t.svcgen.median, r1Ms: t['raml-1-parser'].median, ratio },
    summary: `svcgen is ${ratio.toFixed(1)}× faster than raml-1-parser (target ≥ 10×)`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = run();
  console.log(`${result.title}\n${result.text}\n${result.summary}`);
}
