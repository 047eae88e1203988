/**
 * Opening the out-dir as the untrusted input it is: resolve it once, read and check
 * its manifest, and check every path svcgen would write, delete or read there (paths.ts) — all
 * before anything is written. Problems are diagnostics (SVC3001–SVC3004), never exceptions.
 */
import { join } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { span, type Span } from '../diagnostics/source.js';
import { LOCK_PATH, MANIFEST_PATH, readManifestText, type Manifest } from './manifest.js';
import { parseManifest } from './manifest-shape.js';
import { diskProblem, lexicalProblem, resolveOutDir, type DiskProblem } from './paths.js';

export interface OutDir {
  /** The out-dir as the user named it (absolute): diagnostics point there. */
  readonly shown: string;
  /** Its real path: svcgen reads and writes there. */
  readonly real: string;
  /** The manifest of the previous run, null when there is none. */
  readonly manifest: Manifest | null;
  /** What `openOutDir`'s `lock` took: released once the run is done. */
  readonly lock: { release(): void };
}

/**
 * The out-dir and its checked manifest, or undefined when svcgen must not write there (reported).
 * `lock` (lock.ts) is taken before the manifest is read, and held by the OutDir: a run that read
 * it before another run's write ended, and took the lock after, took that run's files for edits.
 */
export function openOutDir(
  shown: string,
  bag: DiagnosticBag,
  lock: (out: { readonly shown: string; readonly real: string }) => { release(): void } | undefined,
): OutDir | undefined {
  const resolved = resolveOutDir(shown);
  if ('problem' in resolved) {
    const { problem, at } = resolved;
    const why =
      at === shown ? `it is ${problem}` : `its path runs through ${problem === 'not a folder' ? 'a file' : problem}`;
    bag.report('SVC3004', `refusing to write the out-dir: ${why}`, {
      span: fileAt(at),
      hint: 'name a folder (or a path where svcgen can create one) with -o',
    });
    return undefined;
  }
  const out = { shown, real: resolved.real };
  if (!checkPaths(out, [MANIFEST_PATH, LOCK_PATH], 'write', bag)) return undefined;
  const held = lock(out);
  if (!held) return undefined;
  const manifest = readManifest(out, bag);
  if (manifest !== undefined && checkPaths(out, Object.keys(manifest?.files ?? {}), 'manifest', bag))
    return { ...out, manifest, lock: held };
  held.release();
  return undefined;
}

/**
 * Checks the paths svcgen plans to write, and those the manifest lists (it may delete them), once
 * the files are rendered: the manifest's were checked when it was read, but the out-dir may have
 * changed since (write/write.ts checks each path once more as it writes). False when one is
 * refused (reported).
 */
export function checkPlannedPaths(out: OutDir, paths: Iterable<string>, bag: DiagnosticBag): boolean {
  return checkPaths(out, [...new Set([...paths, ...Object.keys(out.manifest?.files ?? {})])], 'write', bag);
}

/** Checks paths svcgen reads from the out-dir (the schema's history): false when one is refused (reported). */
export function checkReadPaths(out: OutDir, paths: readonly string[], bag: DiagnosticBag): boolean {
  return checkPaths(out, paths, 'read', bag);
}

/** A file in the out-dir as a location (1:1, no text shown: it is not svcgen's input). */
export function fileAt(path: string): Span {
  return span({ path, text: '' }, 0);
}

type Use = 'write' | 'manifest' | 'read';

/**
 * Checks `paths` (false when one is refused). A link or file in the way is reported once, with the
 * first path it stops, not once per file below it.
 */
function checkPaths(
  out: { shown: string; real: string },
  paths: readonly string[],
  use: Use,
  bag: DiagnosticBag,
): boolean {
  const refused = new Map<string, { path: string; problem: DiskProblem; more: number }>();
  let unsafe = false;
  for (const path of paths) {
    const lexical = lexicalProblem(path);
    if (lexical) {
      bag.report('SVC3002', `${refusing(use, path)}: ${lexical}`, {
        hint: 'svcgen writes and deletes only plain relative paths inside the out-dir',
      });
      unsafe = true;
      continue;
    }
    const problem = diskProblem(out.real, path);
    if (!problem) continue;
    const key = problem.kind === 'link' ? problem.link : problem.at;
    const seen = refused.get(key);
    if (seen) seen.more++;
    else refused.set(key, { path, problem, more: 0 });
  }
  for (const { path, problem, more } of refused.values()) {
    // Not a count: it would change with every file svcgen learns to generate.
    const at = problem.kind === 'link' ? problem.link : problem.at;
    report(out, `${refusing(use, path)}${more ? ` (and the other paths below ${at})` : ''}`, problem, bag);
  }
  return !unsafe && refused.size === 0;
}

function refusing(use: Use, path: string): string {
  if (use === 'read') return `refusing to read ${path}`;
  return use === 'write' ? `refusing to write ${path}` : `refusing ${path} (listed in the manifest)`;
}

/** A path the out-dir no longer lets svcgen write (it changed while svcgen ran: write/write.ts). */
export function reportChangedPath(
  out: { shown: string },
  path: string,
  problem: DiskProblem,
  bag: DiagnosticBag,
): void {
  report(out, `refusing to write ${path}, and what follows it: the out-dir changed while svcgen ran`, problem, bag);
}

/** The file system refused a write (write.ts `OutDirUnwritable`): where, why, and what of the run is in place. */
export function reportUnwritable(
  out: { shown: string },
  failure: { readonly path: string; readonly reason: string; readonly partly: readonly string[] },
  bag: DiagnosticBag,
): void {
  const placed = failure.partly.length
    ? `; ${failure.partly.length} file(s) of this run were already in place (${failure.partly.slice(0, 3).join(', ')}${failure.partly.length > 3 ? ', …' : ''}), the manifest not: run generate again once it can write`
    : '; nothing of this run was written';
  bag.report('SVC3011', `cannot write ${failure.path} in the out-dir: ${failure.reason}${placed}`, {
    span: fileAt(join(out.shown, failure.path)),
    hint: 'give svcgen write access to the out-dir (its owner, its permissions, a read-only mount), or free disk space, and run generate again',
  });
}

function report(out: { shown: string }, what: string, problem: DiskProblem, bag: DiagnosticBag): void {
  if (problem.kind === 'link') {
    bag.report(
      'SVC3003',
      `${what}: ${problem.link} is a symbolic link that leads ${problem.leads === 'nowhere' ? 'nowhere' : 'outside the out-dir'}`,
      {
        span: fileAt(join(out.shown, problem.link)),
        hint: 'svcgen never writes or deletes outside the out-dir; replace the link with a folder or file of its own (the out-dir itself may be a link)',
      },
    );
    return;
  }
  const kind = problem.expected === 'folder' ? 'is not a folder' : 'is not a regular file';
  bag.report('SVC3004', `${what}: ${problem.at} ${kind}`, {
    span: fileAt(join(out.shown, problem.at)),
    hint: 'svcgen replaces neither a file with a folder nor a folder with a file, even with --force; move it away',
  });
}

function readManifest(out: { shown: string; real: string }, bag: DiagnosticBag): Manifest | null | undefined {
  const text = readManifestText(out.real);
  if (text === null) return null;
  const path = join(out.shown, MANIFEST_PATH);
  if (text instanceof Error) {
    bag.report('SVC3001', `cannot read the manifest: ${text.message}`, { span: fileAt(path) });
    return undefined;
  }
  return parseManifest({ path, text }, bag);
}
