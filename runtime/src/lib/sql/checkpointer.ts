/**
 * SQLite's checkpoints, off the event loop. In WAL mode a commit appends pages to the WAL, and
 * every so often their latest versions are copied back into the database file (a checkpoint, with
 * two fsyncs). By default the commit that takes the WAL past 1,000 pages does it, synchronously:
 * every request in flight waited for those milliseconds, and it was the largest part of the p99
 * of SQLite's writes (bench/RESULTS.md, "Checkpoints off the event loop").
 *
 * So the writer turns automatic checkpoints off, and a worker thread with a connection of its own
 * runs a PASSIVE checkpoint a little after writes: it copies what no reader still needs and waits
 * for no lock, while the service goes on reading and writing. Idle, it sleeps (`Atomics.wait`, no
 * timer); the event loop's share is an atomic operation or two per write.
 *
 * The WAL starts again from its beginning only when a write finds every page of it copied, and
 * under steady writes some always came in while the worker copied: the file would grow without
 * end. So once the WAL holds FINISH_FRAMES pages, the worker asks the writer to finish: after its
 * next write, the writer checkpoints the few pages written since (no other writer can come in
 * between), and the write after that starts the WAL again. If the worker cannot run (or stops),
 * the writer checkpoints itself, as SQLite does by default.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How long after a write the checkpoint waits, so that the writes around it share it (a page they rewrite is copied once). */
const AFTER_WRITES_MS = 100;
/** WAL pages (4 KiB each) at which the writer finishes the checkpoint, and the WAL starts again. */
const FINISH_FRAMES = 1000;
/** SQLite's own default, put back when the worker is gone. */
const AUTOCHECKPOINT_PAGES = 1000;

/** flag[STATE]: IDLE, WRITTEN since the last checkpoint, or CLOSING. flag[FINISH]: 1 while the worker asks the writer to finish. */
const STATE = 0;
const FINISH = 1;
const IDLE = 0;
const WRITTEN = 1;
const CLOSING = 2;

/**
 * The worker's code, run as a script (it needs no file of its own, so it runs the same from the
 * compiled service and from its sources under test). Plain JavaScript: nothing here is compiled.
 */
const WORKER = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const flag = new Int32Array(workerData.flag);
const closing = () => Atomics.load(flag, ${STATE}) === ${CLOSING};
const db = new Database(workerData.path, { fileMustExist: true });
try {
  while (!closing()) {
    Atomics.wait(flag, ${STATE}, ${IDLE});
    if (closing()) break;
    Atomics.wait(flag, ${STATE}, ${WRITTEN}, ${AFTER_WRITES_MS});
    if (Atomics.compareExchange(flag, ${STATE}, ${WRITTEN}, ${IDLE}) === ${CLOSING}) break;
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (log >= ${FINISH_FRAMES}) {
      Atomics.store(flag, ${FINISH}, 1);
      // After the store: a close that came before it has set CLOSING, and nobody would wake this wait.
      if (!closing()) Atomics.wait(flag, ${FINISH}, 1);
    }
  }
} finally {
  db.close();
}
`;

export interface Checkpointer {
  /** After the writer's lock is given back (no transaction open): a checkpoint follows soon. */
  written(): void;
  /** Stops the worker, once its checkpoint (if one is running) is done. */
  close(): Promise<void>;
}

/** The checkpoints of the database file `path`, whose writer connection is `writer`. */
export function startCheckpointer(path: string, writer: Database.Database): Checkpointer {
  const flag = new Int32Array(new SharedArrayBuffer(8));
  let worker: Worker;
  try {
    worker = new Worker(WORKER, {
      eval: true,
      workerData: { path, flag: flag.buffer, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
  } catch {
    return { written: () => undefined, close: () => Promise.resolve() };
  }
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A worker that fails (a driver that cannot load in a thread, a full disk) leaves the writer to
  // checkpoint as it did; an error is the writer's to meet, on its next commit.
  let running = true;
  worker.once('error', () => undefined);
  void exited.then(() => {
    running = false;
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  });
  worker.unref();
  writer.pragma('wal_autocheckpoint = 0');
  const wake = (index: number) => void Atomics.notify(flag, index);
  return {
    written() {
      if (!running) return;
      if (Atomics.load(flag, FINISH) === 1) {
        try {
          writer.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // Not the caller's failure (its write is committed): a disk error meets the next write.
        } finally {
          Atomics.store(flag, FINISH, 0);
          wake(FINISH);
        }
      }
      if (Atomics.compareExchange(flag, STATE, IDLE, WRITTEN) === IDLE) wake(STATE);
    },
    close() {
      // Held while it stops: with nothing else to do, the process would end before `exited`, and
      // whatever awaited the close (an exit code, a message) with it.
      worker.ref();
      Atomics.store(flag, STATE, CLOSING);
      Atomics.store(flag, FINISH, 0);
      wake(STATE);
      wake(FINISH);
      return exited;
    },
  };
}
