/**
 * Prettier on worker threads. Formatting is almost all of a cold generation's time and each file
 * is formatted on its own, so the files are shared out among one worker per core (at most
 * MAX_WORKERS). The workers start when the pool does, and load prettier while the main thread is
 * still planning and rendering. The result does not depend on which worker formats a file.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { prettierOptions, formatSource, type Formatter } from './format.js';

const MAX_WORKERS = 4;

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
  if (size < 2) return { format: formatSource, close: async () => {} };
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
