/** A generated service running as a process, as `npm start` runs it, for HTTP tests. */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { freePort } from '../../scripts/free-port.mjs';

export interface RunningService {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly process: ResultPromise;
  /** Sends a signal without waiting (a later `stop` then only waits). */
  signal(signal: NodeJS.Signals): void;
  /** Everything the service printed so far. */
  output(): string;
  /** Sends `signal` and waits for the process to end; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | undefined>;
}

export async function startService(
  dir: string,
  env: Record<string, string>,
  basePath: string,
): Promise<RunningService> {
  const port = await freePort();
  const child = execa('node', [join(dir, 'dist/server.js')], {
    cwd: dir,
    env: { PORT: String(port), SVC_CONFIG: join(dir, 'no-service.ini'), ...env },
    reject: false,
    all: true,
    buffer: true,
  });
  let output = '';
  let signalled = false;
  child.all?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const service: RunningService = {
    origin,
    process: child,
    output: () => output,
    signal(name) {
      signalled = true;
      child.kill(name);
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null && !signalled) child.kill(signal);
      signalled = true;
      const result = await child;
      return result.exitCode;
    },
  };
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited at start-up (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${origin}${basePath}/health`);
      if (response.status === 200) return service;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await service.stop('SIGKILL');
  throw new Error(`the service did not answer /health within 30 s:\n${output}`);
}
