/**
 * What the out-dir holds now at the paths a run would write or delete: each file's content, or
 * undefined when there is none. Read once, after the paths were checked (out-dir.ts) and before
 * anything is written, for deciding what writing would change (write/changes.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskProblem } from './paths.js';

/** Stands for a file that is there but cannot be read: never as svcgen wrote it. */
export const UNREADABLE = '\u0000unreadable';

export type OnDisk = ReadonlyMap<string, string | undefined>;

/** The content at each of `paths` in the real out-dir. */
export function filesOnDisk(realOut: string, paths: Iterable<string>): OnDisk {
  // Not read through a link to outside, or a file where a folder was: the out-dir changed after
  // its check (the write refuses that path; its content is not svcgen's to show in a diff).
  return new Map(
    [...new Set(paths)].map((path) => [
      path,
      diskProblem(realOut, path) ? UNREADABLE : readIfExists(join(realOut, path)),
    ]),
  );
}

function readIfExists(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // An unreadable file where svcgen wants to write: it is not svcgen's.
    return UNREADABLE;
  }
}
