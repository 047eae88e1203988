/**
 * One svcgen at a time in an out-dir. Two `generate` runs at once (a watch and a run by hand, two
 * terminals, a script) each read the manifest before the other wrote it, and the later one then
 * took the earlier one's files for the user's edits: it refused them as edited (SVC3005) and told
 * the user to overwrite with --force. A write takes `.svcgen/lock` (created exclusively, with the
 * process that holds it); a run that finds it held by a live process says who holds it (SVC3012)
 * and touches nothing. `--check` and `--dry-run` write nothing, not even the lock (a CI checkout
 * may be read-only), but they too refuse an out-dir that is being written: what they would read
 * is half of one run and half of another. A lock whose process has ended (killed, a crash) is
 * taken over.
 */
import { closeSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { makeFolder } from './folders.js';
import { LOCK_PATH } from './manifest.js';
import { fileAt, reportUnwritable } from './out-dir.js';
import { OutDirUnwritable, unwritable } from './unwritable.js';

interface Holder {
  readonly pid: number;
  readonly host: string;
  /** When it took the lock (ISO 8601). */
  readonly since: string;
}

export interface OutDirLock {
  /** Gives the lock back; and the folders taking it made, when the run wrote nothing in them. */
  release(): void;
}

const NOTHING_HELD: OutDirLock = { release: () => {} };
/** A lock that does not say who holds it. */
const UNKNOWN: Holder = { pid: 0, host: '?', since: '?' };

/**
 * Takes the lock (`write`) or makes sure no one holds it (`read`). Undefined when another svcgen
 * holds it (reported; `name`: the out-dir as messages name it).
 */
export function lockOutDir(
  out: { readonly shown: string; readonly real: string },
  use: 'write' | 'read',
  name: string,
  bag: DiagnosticBag,
): OutDirLock | undefined {
  const held = (holder: Holder) => reportHeld(out.shown, name, holder, bag);
  const file = join(out.real, LOCK_PATH);
  if (use === 'read') {
    const holder = liveHolder(file);
    if (holder) held(holder);
    return holder ? undefined : NOTHING_HELD;
  }
  try {
    return takeLock(file, out.real, held);
  } catch (error) {
    const refused = unwritable(error, [], LOCK_PATH);
    if (!(refused instanceof OutDirUnwritable)) throw refused;
    reportUnwritable(out, refused, bag);
    return undefined;
  }
}

function takeLock(file: string, realOut: string, held: (holder: Holder) => void): OutDirLock | undefined {
  // The first folder this made (the out-dir itself on a first run): removed again if the run writes nothing.
  const made = makeFolder(dirname(file));
  for (let attempt = 0; attempt < 2; attempt++) {
    if (create(file)) return { release: () => release(file, made, realOut) };
    const holder = liveHolder(file);
    if (holder) {
      held(holder);
      removeEmpty(made, realOut);
      return undefined;
    }
    // Its process has ended: the lock is stale. Another run may take it over first; then it holds it.
    removeFile(file);
  }
  held(holderOf(file) ?? UNKNOWN);
  removeEmpty(made, realOut);
  return undefined;
}

function create(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The holder of the lock, when there is one and its process still runs (or cannot be told not to). */
function liveHolder(file: string): Holder | undefined {
  const holder = holderOf(file);
  if (holder === null) return undefined;
  // Being written this instant, or unreadable: held, as far as anyone can tell; but one that has
  // said nothing for a minute was left half-written by a run that stopped (svcgen writes it at once).
  if (holder === undefined) return ageOf(file) > SAYS_NOTHING_MS ? undefined : UNKNOWN;
  return isAlive(holder) ? holder : undefined;
}

const SAYS_NOTHING_MS = 60_000;

/** How long ago the file was last written, in milliseconds (0 when it cannot be told). */
function ageOf(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Null: no lock; undefined: a lock that does not say who holds it. */
function holderOf(file: string): Holder | null | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.since === 'string')
      return { pid: value.pid, host: value.host, since: value.since };
  } catch {
    // Not what svcgen writes: said as unknown below.
  }
  return undefined;
}

function isAlive(holder: Holder): boolean {
  // Another machine's process (an out-dir on a shared folder) cannot be asked: held.
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function reportHeld(shown: string, name: string, holder: Holder, bag: DiagnosticBag): void {
  const who =
    holder === UNKNOWN
      ? 'another svcgen'
      : `another svcgen (process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}, since ${holder.since})`;
  bag.report('SVC3012', `${name} is being written by ${who}`, {
    span: fileAt(join(shown, LOCK_PATH)),
    hint: `run again once it has finished; if no svcgen is writing ${name} (one stopped on another machine), delete ${join(name, LOCK_PATH)}`,
  });
}

function release(file: string, made: string | undefined, realOut: string): void {
  try {
    removeFile(file);
  } catch {
    // Left behind (the out-dir became unwritable): its process ends with this run, and the next run takes it over.
  }
  removeEmpty(made, realOut);
}

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Removes `.svcgen/` and the folders above it up to `made`, those left empty: a refused first run leaves no trace. */
function removeEmpty(made: string | undefined, realOut: string): void {
  if (made === undefined) return;
  for (let folder = join(realOut, '.svcgen'); ; folder = dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      return; // not empty: the run wrote there
    }
    if (folder === made || folder === dirname(folder)) return;
  }
}
