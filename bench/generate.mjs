// Time to generate ramses-example: cold (a fresh `svcgen generate` process into an empty folder:
// what a user waits for the first time), regeneration of an unchanged project (a fresh process
// that finds nothing to write), and warm (analysis + generation again in a process that has done
// it once: templates compiled, the formatter loaded).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, ms, table } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const raml = join(root, 'fixtures/ramses-example/api.raml');
const out = join(root, '.tmp', 'bench-generate');

function cli() {
  const start = performance.now();
  execFileSync(process.execPath, [join(root, 'bin/svcgen.js'), 'generate', raml, '-o', out], { stdio: 'ignore' });
  return performance.now() - start;
}

export async function run({ rounds = 5, warmRounds = 10 } = {}) {
  const cold = [];
  const unchanged = [];
  for (let r = 0; r < rounds; r++) {
    rmSync(out, { recursive: true, force: true });
    cold.push(cli());
    unchanged.push(cli());
  }
  const { analyze } = await import('../dist/src/pipeline.js');
  const { generateProject } = await import('../dist/src/generate.js');
  const once = async () => {
    const start = performance.now();
    const { ir } = analyze(raml);
    const { tree } = await generateProject(ir, { ramlFile: 'api.raml' });
    if (tree.size < 40) throw new Error('generation produced too little');
    files = tree.size;
    return performance.now() - start;
  };
  let files = 0;
  await once();
  const warm = [];
  for (let r = 0; r < warmRounds; r++) warm.push(await once());
  rmSync(out, { recursive: true, force: true });
  return {
    title: `Generating ramses-example (${files} files)`,
    text: table([
      ['', 'median', 'min', 'max'],
      ['cold: fresh process, empty folder', ms(median(cold)), ms(Math.min(...cold)), ms(Math.max(...cold))],
      [
        'unchanged: fresh process, nothing to write',
        ms(median(unchanged)),
        ms(Math.min(...unchanged)),
        ms(Math.max(...unchanged)),
      ],
      ['warm: in process, second time on', ms(median(warm)), ms(Math.min(...warm)), ms(Math.max(...warm))],
    ]),
    summary: `${rounds} cold and unchanged runs, ${warmRounds} warm runs. Cold includes starting Node and loading the generator and its formatter (oxfmt). Target (issue 17): cold under 0.8 s.`,
  };
}
