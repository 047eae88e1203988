/**
 * `npm run dev` of a generated project (issue 18): scripts/dev.mjs builds, serves, recompiles a
 * changed source file and restarts the service with it; Ctrl-C (SIGINT) stops everything.
 * (Run as npm runs it: node_modules/.bin on the PATH. Not on a terminal, so logs stay JSON here.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { generatedProject } from '../support/project.js';
import { freePort } from '../../scripts/free-port.mjs';

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  output: () => string,
  timeoutMs = 90_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs)
      throw new Error(
        `timed out waiting for ${what}; npm run dev printed:\n${output()
          .split('\n')
          .filter((line) => !line.includes('"reqId"'))
          .join('\n')}`,
      );
    await new Promise((settle) => setTimeout(settle, 200));
  }
}

describe('npm run dev', () => {
  it('serves, restarts with a changed source file, and stops on SIGINT', async () => {
    const dir = await generatedProject('ramses-starter', 'e2e-dev-mode');
    const port = await freePort();
    const dev = execa('node', ['scripts/dev.mjs'], {
      cwd: dir,
      reject: false,
      all: true,
      env: {
        PATH: `${join(dir, 'node_modules', '.bin')}:${process.env['PATH']}`,
        PORT: String(port),
        SVC_CONFIG: join(dir, 'no-service.ini'),
        SVC_DATABASE_URL: 'sqlite::memory:',
      },
    });
    let output = '';
    dev.all.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    const get = async (path: string) => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`);
      return response.ok ? response.json() : undefined;
    };
    try {
      expect(
        await until(
          'the service',
          () => get('/v1/health'),
          () => output,
        ),
      ).toEqual({ status: 'ok' });
      // A change made before tsc watches would go unseen (as it would for a user typing that fast).
      await until(
        'tsc to watch',
        () => Promise.resolve(output.includes('Watching for file changes') ? true : undefined),
        () => output,
      );
      await new Promise((settle) => setTimeout(settle, 1000));
      const extend = join(dir, 'src/custom/extend.ts');
      writeFileSync(
        extend,
        readFileSync(extend, 'utf8').replace(
          'export async function extend(context: AppContext): Promise<void> {}',
          "export async function extend(context: AppContext): Promise<void> {\n  context.app.get('/hello', async () => ({ hello: 'dev' }));\n}",
        ),
      );
      expect(
        await until(
          'the restarted service with the new route',
          () => get('/hello'),
          () => output,
        ),
      ).toEqual({ hello: 'dev' });
      expect(output).toContain("Restarting 'dist/server.js'");
    } finally {
      dev.kill('SIGINT');
    }
    const ended = await dev;
    expect(ended.exitCode === 0 || ended.signal === 'SIGINT' || ended.exitCode === 130, output).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/v1/health`)).rejects.toThrow('fetch failed');
  }, 240_000);
});
