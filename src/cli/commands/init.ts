/**
 * `svcgen init [dir]`: writes a small working API to start from (templates/init/:
 * api.raml, schemas with a relationship, x-ACLs, an event handler, and a README saying what to
 * edit). It writes only into a new or empty folder, so it never overwrites anyone's work.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ExitCode } from '../exit-codes.js';
import type { Io } from '../output.js';
import { SVCGEN_ROOT } from '../../util/svcgen-files.js';

/** Found from svcgen's package root: this module is in `src/cli/commands/` under the tests, `dist/src/…` when built. */
export const INIT_ROOT = join(SVCGEN_ROOT, 'templates', 'init');

export function runInit(io: Io, dir: string | undefined): number {
  const target = resolve(io.cwd, dir ?? '.');
  const shown = relative(io.cwd, target) || '.';
  const refusal = whyNotWritable(target, shown);
  if (refusal) {
    io.stderr(`svcgen init: ${refusal}\n`);
    return ExitCode.failed;
  }
  const files = starterFiles(INIT_ROOT);
  for (const file of files) {
    const path = join(target, file);
    mkdirSync(dirname(path), { recursive: true });
    // `wx`: a file that appeared meanwhile is not overwritten (the run fails instead).
    writeFileSync(path, readFileSync(join(INIT_ROOT, file)), { flag: 'wx' });
  }
  const raml = join(shown, 'api.raml');
  io.stderr(
    `svcgen: wrote a starter API to ${shown}: ${files.join(', ')}\n` +
      `next: svcgen generate ${raml} -o ${join(shown, 'service')} (then npm install && npm run dev there); ${join(shown, 'README.md')} says what to edit\n`,
  );
  return ExitCode.ok;
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
