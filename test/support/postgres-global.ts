/**
 * vitest's global setup for the PostgreSQL cluster of scripts/postgres.sh, which the first test
 * that needs it starts. In CI (`CI` set) the run stops the cluster at the end if it started it: the
 * machine is left as it was found, as when .ci/run started and stopped it. Elsewhere it keeps
 * running for the next run and for another run beside this one, which may be using it: a server on
 * 127.0.0.1 with its data under /tmp.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from './paths.js';

const script = join(repoRoot, 'scripts/postgres.sh');
const stopsAtEnd = Boolean(process.env['CI']) && !process.env['SVCGEN_PG_URL'];
let runningBefore = true;

async function clusterRunning(): Promise<boolean> {
  return (await execa('bash', [script, 'status'], { reject: false })).exitCode === 0;
}

export async function setup(): Promise<void> {
  if (stopsAtEnd) runningBefore = await clusterRunning();
}

export async function teardown(): Promise<void> {
  if (stopsAtEnd && !runningBefore && (await clusterRunning())) await execa('bash', [script, 'stop']);
}
