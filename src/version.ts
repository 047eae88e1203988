/**
 * svcgen's version (package.json), printed by `--version`, and its build fingerprint: a hash of
 * the version, the templates and svcgen's own code, so reused output (generate.ts) never outlives
 * a change to any of them — released or not.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SVCGEN_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

let fingerprint: string | undefined;

export function buildFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash('sha256').update(SVCGEN_VERSION);
  // This file's folder holds svcgen's code: dist/ when built, src/ under the tests.
  for (const dir of [
    fileURLToPath(new URL('.', import.meta.url)),
    fileURLToPath(new URL('../templates', import.meta.url)),
  ]) {
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
      return entry.isDirectory() ? filesBelow(path) : entry.name.endsWith('.map') ? [] : [path];
    });
}
