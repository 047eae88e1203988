/**
 * The tests' `startService` (test/support/server.ts) talks to the service it started, never to
 * another process that took the port between picking it and the service's listen (a test file
 * running beside this one): that process would answer /health, and every request meant for the
 * service, writes included, would go to it and its database.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.mjs';
import { builtProject } from '../support/project.js';
import { PortTaken, startServiceOn } from '../support/server.js';

const BASE = '/v1';
let dir: string;
let squatter: Server;
let port: number;

beforeAll(async () => {
  dir = await builtProject('ramses-starter', 'e2e-start-service');
  port = await freePort();
  // Answers 200 {"status":"ok"} to everything, /v1/health included, as a service of another test would.
  squatter = createServer((_request, response) => response.end('{"status":"ok"}'));
  await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
}, 600_000);

afterAll(async () => {
  await new Promise((resolve) => squatter?.close(resolve));
});

describe('startService', () => {
  it("does not take another process's answer on the port for the service's: it says the port was taken", async () => {
    const started = startServiceOn(dir, { SVC_DATABASE_URL: 'sqlite::memory:' }, BASE, port);
    await expect(started).rejects.toThrow(PortTaken);
    await expect(started).rejects.toThrow(/EADDRINUSE/);
    // What it printed before (startService adds it to the output of the start that found a port):
    // a first start may have applied the migrations, and said so, before it found the port taken.
    const taken = await started.catch((error: unknown) => error as PortTaken);
    expect(taken.output).toContain('applied 1 migration(s): 0001_initial');
  });
});
