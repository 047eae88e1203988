/**
 * Applies planned changes to the out-dir: only files whose content changes are written (each
 * through a temporary file and a rename, so a crash never leaves half a file), stale generated
 * files are deleted, and the manifest is updated last. `outDir` is the real out-dir and every
 * path was checked to stay inside it (paths.ts) when the run began; each is checked again just
 * before it is written or deleted, because the out-dir may change while svcgen renders (an
 * attacker probe swapped a folder for a link to outside after the check, under `--watch` too,
 * and the run wrote through it).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from './changes.js';
import { MANIFEST_PATH, type Manifest } from '../outdir/manifest.js';
import { diskProblem, isInside, type DiskProblem } from '../outdir/paths.js';
import { manifestText } from './manifest.js';

/** A path of the out-dir that became unsafe while svcgen ran: nothing more is written. */
export class OutDirChanged extends Error {
  constructor(
    readonly path: string,
    readonly problem: DiskProblem,
  ) {
    super(`${path}: the out-dir changed while svcgen ran`);
    this.name = 'OutDirChanged';
  }
}

/** `previous`: the manifest found before the run (rewritten only when it changes). */
export function applyChanges(
  outDir: string,
  changes: readonly Change[],
  manifest: Manifest,
  previous: Manifest | null,
): void {
  for (const change of changes) {
    if ((change.kind === 'add' || change.kind === 'change') && change.after !== undefined)
      writeAtomically(outDir, change.path, change.after);
    else if (change.kind === 'delete') {
      stillInside(outDir, change.path);
      rmSync(join(outDir, change.path), { force: true });
    }
  }
  const text = manifestText(manifest);
  if (!previous || manifestText(previous) !== text) writeAtomically(outDir, MANIFEST_PATH, text);
}

function writeAtomically(outDir: string, path: string, content: string): void {
  const file = join(outDir, path);
  stillInside(outDir, path);
  mkdirSync(dirname(file), { recursive: true });
  // The out-dir is untrusted: nothing planted under the temporary name may be followed. The name
  // is unpredictable, and `wx` (O_CREAT|O_EXCL) never opens an existing path, a link included.
  const temporary = `${file}.svcgen-${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { flag: 'wx' });
  // A folder swapped for a link between the check and the write: the file is not put in place.
  if (!isInside(outDir, realpathSync(dirname(temporary)))) {
    rmSync(temporary, { force: true });
    throw new OutDirChanged(path, diskProblem(outDir, path) ?? { kind: 'link', link: dirname(path), leads: 'outside' });
  }
  renameSync(temporary, file);
}

/** Throws when `path` now goes through a link that leads outside, or a file where a folder was. */
function stillInside(outDir: string, path: string): void {
  const problem = diskProblem(outDir, path);
  if (problem) throw new OutDirChanged(path, problem);
}
