/**
 * The out-dir is untrusted input (it may come from a pull request): every path svcgen
 * writes or deletes, whether the plan or the manifest names it, must stay inside the out-dir —
 * lexically (no `..`, no absolute paths) and on disk (no symbolic link leading outside). These
 * checks run on every path before anything is written, so a refused path means nothing written.
 */
import { lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/** The longest name of a file or folder most file systems take, in bytes. */
const MAX_NAME_BYTES = 255;

/** Why `path` is not a plain relative path svcgen may use, or undefined when it is one. */
export function lexicalProblem(path: string): string | undefined {
  if (path === '') return 'it is empty';
  if (path.includes('\u0000')) return 'it contains a NUL character';
  if (path.includes('\\')) return 'it contains a backslash';
  if (path.startsWith('/')) return 'it is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'it starts with a drive letter';
  const segments = path.split('/');
  if (segments.includes('..')) return 'it has a `..` segment';
  if (segments.includes('.')) return 'it has a `.` segment';
  if (segments.includes('')) return 'it has an empty segment';
  // File systems name a file by 255 bytes at most: a longer one failed half-way through the writing.
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES);
  if (long)
    return `a name in it is ${Buffer.byteLength(long)} bytes long, and file systems take ${MAX_NAME_BYTES} at most`;
  return undefined;
}

/** The out-dir as svcgen works in it: its real path (it may be a link: that is the user's choice). */
export type OutDir = { readonly real: string } | { readonly problem: string; readonly at: string };

/**
 * Resolves the out-dir once. When it does not exist yet, the real path of its nearest existing
 * ancestor stands in for the part that exists (svcgen creates the rest).
 */
export function resolveOutDir(outDir: string): OutDir {
  let existing = outDir;
  const missing: string[] = [];
  while (!lstatOf(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(basename(existing));
    existing = parent;
  }
  const real = realpathOf(existing);
  if (real === undefined) return { problem: 'a symbolic link that leads nowhere', at: existing };
  if (!statSync(real).isDirectory()) return { problem: 'not a folder', at: existing };
  return { real: join(real, ...missing) };
}

export type DiskProblem =
  /** A link on the way (or at the end) leads outside the out-dir, or nowhere. */
  | { readonly kind: 'link'; readonly link: string; readonly leads: 'outside' | 'nowhere' }
  /** A file where a folder is needed (`at` is a folder on the way), or not a regular file at the end. */
  | { readonly kind: 'wrong-kind'; readonly at: string; readonly expected: 'folder' | 'file' };

/**
 * What stands in the way of writing or deleting `path` (lexically safe) below `realOut`: every
 * link on the way and at the end must lead inside the out-dir, every folder on the way must be a
 * folder, and the file itself, if there, a regular file. Parts that do not exist yet are created
 * by svcgen as plain folders, so they are inside.
 */
export function diskProblem(realOut: string, path: string): DiskProblem | undefined {
  const segments = path.split('/');
  let current = realOut;
  for (let i = 0; i < segments.length; i++) {
    const shown = segments.slice(0, i + 1).join('/');
    const next = join(current, segments[i]!);
    const info = lstatOf(next);
    if (!info) return undefined;
    if (info.isSymbolicLink()) {
      const target = realpathOf(next);
      if (target === undefined) return { kind: 'link', link: shown, leads: 'nowhere' };
      if (!isInside(realOut, target)) return { kind: 'link', link: shown, leads: 'outside' };
      current = target;
    } else current = next;
    const last = i === segments.length - 1;
    const kind = statSync(current);
    if (!last && !kind.isDirectory()) return { kind: 'wrong-kind', at: shown, expected: 'folder' };
    if (last && !kind.isFile()) return { kind: 'wrong-kind', at: shown, expected: 'file' };
  }
  return undefined;
}

/** Whether `path` is `root` or below it (both real paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function realpathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
