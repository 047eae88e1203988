/**
 * `svcgen init [dir]`: writes a small working API to start from (templates/init/:
 * api.raml, schemas with a relationship, x-ACLs, an event handler, and a README saying what to
 * edit). It writes only into a new or empty folder, so it never overwrites anyone's work.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { makeFolder } from '../../outdir/folders.js';
import { OutDirUnwritable, unwritable } from '../../outdir/unwritable.js';
import { shellWord, shownPath } from '../../util/shown-path.js';
import { ExitCode } from '../exit-codes.js';
import type { Io } from '../output.js';
import { SVCGEN_ROOT } from '../../util/svcgen-files.js';

/** Found from svcgen's package root: this module is in `src/cli/commands/` under the tests, `dist/src/…` when built. */
export const INIT_ROOT = join(SVCGEN_ROOT, 'templates', 'init');

export function runInit(io: Io, dir: string | undefined): number {
  const target = resolve(io.cwd, dir ?? '.');
  const shown = shownPath(io.cwd, dir ?? '.', target);
  const refusal = whyNotWritable(target, shown);
  if (refusal) {
    io.stderr(`svcgen init: ${refusal}\n`);
    return ExitCode.failed;
  }
  const files = starterFiles(INIT_ROOT);
  const failure = writeStarter(target, files);
  if (failure) {
    io.stderr(`svcgen init: cannot write ${shown}: ${failure}; nothing of the starter is left there\n`);
    return ExitCode.failed;
  }
  const raml = shellWord(join(shown, 'api.raml'));
  io.stderr(
    `svcgen: wrote a starter API to ${shown}: ${files.join(', ')}\n` +
      `next: svcgen generate ${raml} -o ${shellWord(join(shown, 'service'))} (then npm install && npm run dev there); ${join(shown, 'README.md')} says what to edit\n`,
  );
  return ExitCode.ok;
}

/**
 * The starter's files written into `target`, or why they could not be (the file system's refusal,
 * with its code), having removed what was made: a folder that could not be written (`/sys/x`, a
 * read-only mount) was a stack trace, and `/proc/x` spun for ever in Node's recursive mkdir.
 */
function writeStarter(target: string, files: readonly string[]): string | undefined {
  // What this run made (folders, the highest of each chain, and files), to take away on failure.
  const made: string[] = [];
  const keep = (path: string | undefined) => void (path !== undefined && made.push(path));
  try {
    keep(makeFolder(target));
    for (const file of files) {
      const path = join(target, file);
      keep(makeFolder(dirname(path)));
      // `wx`: a file that appeared meanwhile is not overwritten (the run fails instead).
      writeFileSync(path, readFileSync(join(INIT_ROOT, file)), { flag: 'wx' });
      made.push(path);
    }
    return undefined;
  } catch (error) {
    // Said as generate says the out-dir's refusals (SVC3011): `mkdir failed: not permitted [EPERM]`.
    const refused = unwritable(error, [], undefined);
    if (!(refused instanceof OutDirUnwritable)) throw error;
    for (const path of made.reverse()) rmSync(path, { recursive: true, force: true });
    return refused.reason;
  }
}

/** Why `target` cannot receive the starter, or null when it is a new or empty folder. */
function whyNotWritable(target: string, shown: string): string | null {
  if (!existsSync(target)) return null;
  if (!statSync(target).isDirectory()) return `${shown} exists and is not a folder; give a new or empty folder`;
  const entries = readdirSync(target).sort();
  if (entries.length === 0) return null;
  const some = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
  return `${shown} is not empty (it has ${some}); init writes only into a new or empty folder, so that it overwrites nothing`;
}

/** The starter's files, relative to `root`, in a stable order. */
function starterFiles(root: string, under = ''): string[] {
  return readdirSync(join(root, under), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => {
      const path = under ? `${under}/${entry.name}` : entry.name;
      return entry.isDirectory() ? starterFiles(root, path) : [path];
    });
}
