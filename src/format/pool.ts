/**
 * Prettier on worker threads. Formatting is almost all of a cold generation's time and each file
 * is formatted on its own, so the files are shared out among one worker per core (at most
 * MAX_WORKERS). The result does not depend on which worker formats a file.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { prettierOptions, formatSource, type Formatter } from './format.js';

const MAX_WORKERS = 4;

/**
 * Below this much text, prettier in this thread: each worker loads prettier and warms it up
 * again (about 0.3 s of CPU), which pays only when there is a second or so of formatting to share
 * (prettier formats roughly 400 kB of generated TypeScript a second on one core here).
 */
const POOL_FROM_CHARS = 512 * 1024;

/** A formatter for `chars` characters of text: on worker threads when that pays, else in this thread. */
export function startFormatter(chars: number): Formatter {
  return chars >= POOL_FROM_CHARS ? startFormatterPool() : IN_THREAD;
}

const IN_THREAD: Formatter = { format: formatSource, close: async () => {} };

/**
 * Kept as source text, not a module of its own: a worker started from a file would need that file
 * compiled (dist/) even when svcgen's own tests run its TypeScript sources.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const prettier = require(workerData.prettier);
parentPort.on('message', ({ id, text, options }) => {
  prettier.format(text, options).then(
    (content) => parentPort.postMessage({ id, content }),
    (error) => parentPort.postMessage({ id, error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
`;

interface Job {
  readonly resolve: (content: string) => void;
  readonly reject: (error: Error) => void;
  readonly size: number;
}

interface Reply {
  readonly id: number;
  readonly content?: string;
  readonly error?: string;
}

/** A formatter on worker threads; on a machine with one core, prettier in this thread. */
export function startFormatterPool(size = Math.min(availableParallelism(), MAX_WORKERS)): Formatter {
  if (size < 2) return IN_THREAD;
  const prettier = createRequire(import.meta.url).resolve('prettier');
  const workers = Array.from({ length: size }, () => new Worker(WORKER_SOURCE, { eval: true, workerData: { prettier } }));
  const load = workers.map(() => 0);
  const jobs = new Map<number, Job>();
  let next = 0;
  workers.forEach((worker, index) => {
    worker.on('message', ({ id, content, error }: Reply) => {
      const job = jobs.get(id)!;
      jobs.delete(id);
      load[index]! -= job.size;
      if (error !== undefined || content === undefined) job.reject(new Error(`prettier failed in a worker: ${error}`));
      else job.resolve(content);
    });
  });
  return {
    format(path, text) {
      const options = prettierOptions(path);
      if (!options) return Promise.resolve(text);
      const id = next++;
      // The worker with the fewest characters still to format: files differ a hundredfold in size.
      const index = load.indexOf(Math.min(...load));
      load[index]! += text.length;
      return new Promise((resolve, reject) => {
        jobs.set(id, { resolve, reject, size: text.length });
        workers[index]!.postMessage({ id, text, options });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
