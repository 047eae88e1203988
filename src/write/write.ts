/**
 * Applies planned changes to the out-dir: only files whose content changes are written (each
 * through a temporary file and a rename, so a crash never leaves half a file), stale generated
 * files are deleted, and the manifest is updated last. `outDir` is the real out-dir and every
 * path was checked to stay inside it (paths.ts) before this runs.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from './changes.js';
import { MANIFEST_PATH, type Manifest } from '../outdir/manifest.js';
import { manifestText } from './manifest.js';

/** `previous`: the manifest found before the run (rewritten only when it changes). */
export function applyChanges(
  outDir: string,
  changes: readonly Change[],
  manifest: Manifest,
  previous: Manifest | null,
): void {
  for (const change of changes) {
    const file = join(outDir, change.path);
    if ((change.kind === 'add' || change.kind === 'change') && change.after !== undefined)
      writeAtomically(file, change.after);
    else if (change.kind === 'delete') rmSync(file, { force: true });
  }
  const text = manifestText(manifest);
  if (!previous || manifestText(previous) !== text) writeAtomically(join(outDir, MANIFEST_PATH), text);
}

function writeAtomically(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  // The out-dir is untrusted: nothing planted under the temporary name may be followed. The name
  // is unpredictable, and `wx` (O_CREAT|O_EXCL) never opens an existing path, a link included.
  const temporary = `${file}.svcgen-${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { flag: 'wx' });
  renameSync(temporary, file);
}
