// The service model and its semantic checks for a 200-resource API (contract: "well under a second").
// Reported per stage: reading the RAML (front end), building the IR, and the checks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkIr } from '../dist/src/check/checks.js';
import { DiagnosticBag } from '../dist/src/diagnostics/diagnostic.js';
import { buildIr } from '../dist/src/ir/build/index.js';
import { readRaml } from '../dist/src/raml/front-end.js';
import { generateApi } from './generate-api.mjs';
import { median, ms, table } from './lib.mjs';

export function run({ resources = 200, rounds = 15 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-bench-'));
  try {
    const file = generateApi(dir, resources);
    const times = { front: [], build: [], check: [], total: [] };
    let firstRun;
    for (let r = 0; r < rounds + 3; r++) {
      const t0 = performance.now();
      const front = readRaml(file);
      const t1 = performance.now();
      const diagnostics = new DiagnosticBag();
      const { ir, sources } = buildIr(front.api, diagnostics, { rootDir: dir });
      const t2 = performance.now();
      checkIr(diagnostics, ir, sources, front.api);
      const t3 = performance.now();
      const errors = [...front.diagnostics, ...diagnostics.sorted()].filter((d) => d.severity === 'error');
      if (errors.length || ir.routes.length !== resources * 2)
        throw new Error(`unexpected result: ${errors.map((e) => e.message).join('; ')}`);
      if (r === 0) firstRun = t3 - t0;
      if (r < 3) continue; // warm-up
      times.front.push(t1 - t0);
      times.build.push(t2 - t1);
      times.check.push(t3 - t2);
      times.total.push(t3 - t0);
    }
    const total = median(times.total);
    return {
      title: `Validate a ${resources}-resource API (RAML + ${resources} JSON schemas, relationships, ACLs, handlers)`,
      text: table([
        ['stage', 'median'],
        ['read RAML (load, expand, read)', ms(median(times.front))],
        ['build the service model', ms(median(times.build))],
        ['semantic checks', ms(median(times.check))],
        ['total, warm', ms(total)],
        ['total, first run in the process', ms(firstRun)],
      ]),
      metrics: { totalMs: total, firstRunMs: firstRun },
      summary: `model + checks of ${resources} resources: ${ms(median(times.build) + median(times.check))}; whole validation ${ms(total)} warm, ${ms(firstRun)} cold (target: well under 1 s)`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const result = run();
  console.log(`${result.title}\n${result.text}\n${result.summary}`);
}
