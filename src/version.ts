/**
 * svcgen's version (package.json), printed by `--version`, and its build fingerprint: a hash of
 * the version, the templates, the runtime and svcgen's own code, so reused output (generate.ts) never outlives
 * a change to any of them — released or not.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIME_ROOT, SVCGEN_ROOT, TEMPLATE_ROOT } from './util/svcgen-files.js';

export const SVCGEN_VERSION = (
  JSON.parse(readFileSync(join(SVCGEN_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

let fingerprint: string | undefined;

export function buildFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash('sha256').update(SVCGEN_VERSION);
  // This file's folder holds svcgen's code: dist/src/ when built, src/ under the tests.
  for (const dir of [dirname(fileURLToPath(import.meta.url)), TEMPLATE_ROOT, RUNTIME_ROOT]) {
    for (const file of filesBelow(dir)) hash.update(file).update(readFileSync(file));
  }
  fingerprint = hash.digest('hex');
  return fingerprint;
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      // The runtime's node_modules is a link to generated projects' dependencies (scripts/runtime-deps.mjs).
      if (entry.name === 'node_modules') return [];
      return entry.isDirectory() ? filesBelow(path) : entry.name.endsWith('.map') ? [] : [path];
    });
}
