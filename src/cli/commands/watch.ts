/**
 * `svcgen generate api.raml -o out --watch`: generates, then again whenever the RAML
 * or a file it includes changes, printing the diagnostics of every run. A run that finds errors
 * writes nothing and the watch goes on; it stops, with exit code 0, when `stop` settles (Ctrl-C).
 */
import { watch, type FSWatcher } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { ExitCode } from '../exit-codes.js';
import type { Io } from '../output.js';
import { runGenerate, type GenerateFlags } from './generate.js';

/** Editors write a file in several steps (truncate, write, rename): one run for all of them. */
export const DEBOUNCE_MS = 150;

/** A file appearing with one of these names may be an include that was missing: worth a new run. */
const API_EXTENSIONS = new Set(['.raml', '.yaml', '.yml', '.json']);

export async function runWatch(io: Io, file: string, flags: GenerateFlags, stop: Promise<unknown>): Promise<number> {
  const root = resolve(io.cwd, file);
  const outDir = resolve(io.cwd, flags.out);
  const watchers = new Map<string, FSWatcher>();
  let watched = new Set<string>([root]);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const relevant = (path: string) =>
    !isInside(path, outDir) && (watched.has(path) || API_EXTENSIONS.has(extname(path).toLowerCase()));

  const run = async (reason: string | undefined) => {
    if (reason) io.stderr(`svcgen: ${reason} changed; generating again\n`);
    try {
      await runGenerate(io, file, flags, (files) => (watched = new Set([root, ...files])));
    } catch (error) {
      // A bug in svcgen should not end the loop the user is working in: say so, keep watching.
      io.stderr(
        `svcgen: internal error — this is a bug in svcgen. Please report it with the input that caused it.\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
    }
    watchFolders(watchers, watched, onEvent);
    io.stderr(
      `svcgen: watching ${watched.size} file${watched.size === 1 ? '' : 's'} of ${shown(io, root)} for changes (Ctrl-C to stop)\n`,
    );
  };

  /** Runs one generation at a time; changes seen during a run make one more run after it. */
  const schedule = (reason: string) => {
    if (running) {
      again = true;
      return;
    }
    running = run(reason).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        schedule('a file');
      }
    });
  };

  const onEvent = (path: string) => {
    if (!relevant(path)) return;
    clearTimeout(timer);
    timer = setTimeout(() => schedule(shown(io, path)), DEBOUNCE_MS);
  };

  running = run(undefined).finally(() => (running = undefined));
  await stop;
  clearTimeout(timer);
  for (const watcher of watchers.values()) watcher.close();
  await running;
  io.stderr('svcgen: stopped watching\n');
  return ExitCode.ok;
}

/**
 * Watches the folders of the watched files (not the files: an editor that saves by renaming a new
 * file over the old one would leave a file watcher on the deleted one).
 */
function watchFolders(
  watchers: Map<string, FSWatcher>,
  files: ReadonlySet<string>,
  onEvent: (path: string) => void,
): void {
  const folders = new Set([...files].map((f) => dirname(f)));
  for (const [folder, watcher] of watchers) {
    if (folders.has(folder)) continue;
    watcher.close();
    watchers.delete(folder);
  }
  for (const folder of folders) {
    if (watchers.has(folder)) continue;
    try {
      const watcher = watch(folder, (_event, name) => {
        if (name) onEvent(join(folder, name.toString()));
      });
      // A folder that goes away ends its watcher; the next run watches what is there then.
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(folder);
      });
      watchers.set(folder, watcher);
    } catch {
      // A folder that does not exist (an include naming one): nothing to watch until it does.
    }
  }
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

function shown(io: Io, path: string): string {
  return relative(io.cwd, path) || path;
}
