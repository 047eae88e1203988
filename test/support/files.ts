import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Writes `files` (relative path → content) into a fresh temporary folder and returns its path. */
export function writeTree(files: Record<string, string | Uint8Array>, parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'svcgen-test-'));
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return dir;
}

/** A RAML 0.8 document: the header plus `body`. */
export function raml(body: string): string {
  return `#%RAML 0.8\n${body.replace(/^\n/, '')}`;
}
