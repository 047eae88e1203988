/**
 * Applies planned changes to the out-dir: only files whose content changes are written (each
 * through a temporary file and a rename, so a crash never leaves half a file), stale generated
 * files are deleted, and the manifest is updated last.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from './changes.js';
import { MANIFEST_PATH, manifestText, type Manifest } from './manifest.js';

/** `previous`: the manifest found before the run (rewritten only when it changes). */
export function applyChanges(outDir: string, changes: readonly Change[], manifest: Manifest, previous: Manifest | null): void {
  for (const change of changes) {
    const file = join(outDir, change.path);
    if ((change.kind === 'add' || change.kind === 'change') && change.after !== undefined) writeAtomically(file, change.after);
    else if (change.kind === 'delete') rmSync(file, { force: true });
  }
  const text = manifestText(manifest);
  if (!previous || manifestText(previous) !== text) writeAtomically(join(outDir, MANIFEST_PATH), text);
}

function writeAtomically(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.svcgen-${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, file);
}
