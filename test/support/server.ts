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

/** How many ports `startService` tries when another process takes the one it picked first. */
const PORT_ATTEMPTS = 3;

/**
 * Starts the service on a free port and resolves once it answers /health. The port is free when
 * picked, not reserved: another process (a test file running beside this one) can take it before
 * the service listens. /health would then be answered by that process while the service exits
 * with EADDRINUSE, and every request meant for this service would go to the other one, its writes
 * into another database. So an answer counts only once the service has said it listens on the
 * port; on EADDRINUSE it starts again on another port.
 */
export async function startService(
  dir: string,
  env: Record<string, string>,
  basePath: string,
): Promise<RunningService> {
  // What the attempts that lost their port printed: the first may have done the start's work (applied
  // the migrations, and said so) before it found the port taken.
  let earlier = '';
  for (let attempt = 1; ; attempt++) {
    try {
      const service = await startServiceOn(dir, env, basePath, await freePort());
      const before = earlier;
      return before ? { ...service, output: () => before + service.output() } : service;
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= PORT_ATTEMPTS) throw error;
      earlier += error.output;
    }
  }
}

/** The service exited at start-up because something else listens on its port. */
export class PortTaken extends Error {
  constructor(
    message: string,
    /** What the service printed before it exited. */
    readonly output: string,
  ) {
    super(message);
  }
}

/** Starts the service on `port`; rejects with `PortTaken` when another process has it. */
export async function startServiceOn(
  dir: string,
  env: Record<string, string>,
  basePath: string,
  port: number,
): Promise<RunningService> {
  // As `npm start` runs it: stack traces name the lines of src/.
  const child = execa('node', ['--enable-source-maps', join(dir, 'dist/server.js')], {
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
    if (child.exitCode !== null) {
      await child;
      const message = `the service exited at start-up (${child.exitCode}):\n${output}`;
      throw output.includes('EADDRINUSE') ? new PortTaken(message, output) : new Error(message);
    }
    // Fastify's line (level info): until it is there, whoever answers on the port is not this service.
    if (output.includes(`Server listening at ${origin}`)) {
      try {
        const response = await fetch(`${origin}${basePath}/health`);
        if (response.status === 200) return service;
      } catch {
        // not answering yet: try again
      }
    }
    await sleep(100);
  }
  await service.stop('SIGKILL');
  throw new Error(`the service did not say it listens on ${origin} and answer /health within 30 s:\n${output}`);
}
