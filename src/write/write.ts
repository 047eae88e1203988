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
import { realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Change } from './changes.js';
import { MANIFEST_PATH, MIGRATIONS_DIR, STORAGE_FILE, type Manifest } from '../outdir/manifest.js';
import { diskProblem, isInside } from '../outdir/paths.js';
import { manifestText } from './manifest.js';
import { makeFolder } from '../outdir/folders.js';
import { OutDirChanged, OutDirUnwritable, unwritable } from '../outdir/unwritable.js';

export { OutDirChanged, OutDirUnwritable };

/** A file written under a temporary name beside where it goes, not in place yet. */
interface Staged {
  readonly path: string;
  readonly temporary: string;
}

/**
 * `previous`: the manifest found before the run (rewritten only when it changes). Every file is
 * written under a temporary name first, and only once all are is any put in place: a folder that
 * cannot be written (a probe's read-only `src/db/migrations`) left five files rewritten and the
 * project importing a migration that was not there.
 */
export function applyChanges(
  outDir: string,
  changes: readonly Change[],
  manifest: Manifest,
  previous: Manifest | null,
): void {
  const text = manifestText(manifest);
  const files = changes.flatMap((change) =>
    (change.kind === 'add' || change.kind === 'change') && change.after !== undefined
      ? [{ path: change.path, content: change.after }]
      : [],
  );
  if (!previous || manifestText(previous) !== text) files.push({ path: MANIFEST_PATH, content: text });
  const staged: Staged[] = [];
  try {
    for (const file of files) staged.push(stage(outDir, file.path, file.content));
  } catch (error) {
    for (const { temporary } of staged) rmSync(temporary, { force: true });
    throw unwritable(error, [], files[staged.length]?.path);
  }
  const done: string[] = [];
  const put = (path: string, work: () => void) => {
    try {
      work();
      done.push(path);
    } catch (error) {
      for (const { temporary } of staged) rmSync(temporary, { force: true });
      throw unwritable(error, done, path);
    }
  };
  // The manifest last: until it is in place, the next run finds the earlier one. A new migration and
  // the storage model it leads to first, one after the other: a run stopped between the two would
  // leave the next one to plan the migration again.
  const manifestStaged = staged.find((s) => s.path === MANIFEST_PATH);
  const history = staged.filter((s) => s.path === STORAGE_FILE || s.path.startsWith(`${MIGRATIONS_DIR}/`));
  const rest = staged.filter((s) => s !== manifestStaged && !history.includes(s));
  for (const file of [...history, ...rest]) put(file.path, () => putInPlace(outDir, file));
  for (const change of changes)
    if (change.kind === 'delete')
      put(change.path, () => {
        stillInside(outDir, change.path);
        rmSync(join(outDir, change.path), { force: true });
      });
  if (manifestStaged) put(MANIFEST_PATH, () => putInPlace(outDir, manifestStaged));
}

/** `content` written beside `path` under an unpredictable name, its folders made. */
function stage(outDir: string, path: string, content: string): Staged {
  const file = join(outDir, path);
  stillInside(outDir, path);
  makeFolder(dirname(file));
  // The out-dir is untrusted: nothing planted under the temporary name may be followed. The name
  // is unpredictable, and `wx` (O_CREAT|O_EXCL) never opens an existing path, a link included.
  const temporary = `${file}.svcgen-${randomBytes(8).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { flag: 'wx' });
  return { path, temporary };
}

/** A staged file renamed over `path`, unless a folder on its way became a link that leads outside. */
function putInPlace(outDir: string, { path, temporary }: Staged): void {
  stillInside(outDir, path);
  // A folder swapped for a link between the check and the write: the file is not put in place.
  if (!isInside(outDir, realpathSync(dirname(temporary)))) {
    rmSync(temporary, { force: true });
    throw new OutDirChanged(path, diskProblem(outDir, path) ?? { kind: 'link', link: dirname(path), leads: 'outside' });
  }
  renameSync(temporary, join(outDir, path));
}

/** Throws when `path` now goes through a link that leads outside, or a file where a folder was. */
function stillInside(outDir: string, path: string): void {
  const problem = diskProblem(outDir, path);
  if (problem) throw new OutDirChanged(path, problem);
}
