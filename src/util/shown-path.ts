/**
 * How the CLI shows a path the user gave: as they wrote it, absolute or relative to where they
 * are (`-o /srv/api` was shown as `../../srv/api`); and, in a command to paste, quoted for a
 * POSIX shell where it has to be (`next: cd sp ace/service` was two words to `cd`).
 */
import { isAbsolute, relative } from 'node:path';

/** `resolved` (of `given`, from `cwd`) as the user wrote it: absolute stays absolute. */
export function shownPath(cwd: string, given: string, resolved: string): string {
  return isAbsolute(given) ? resolved : relative(cwd, resolved) || '.';
}

/** `path` as one word of a shell command: as it is when safe, else in single quotes. */
export function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
