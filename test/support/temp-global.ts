/**
 * vitest's global setup for temporary folders: the run's tests, and the processes they start,
 * make theirs in one folder of this run (TMPDIR, which os.tmpdir() reads), removed when the run
 * ends. Before, every run left ~650 folders (~300 MB) in /tmp: the tests made them with mkdtemp and
 * most never removed them.
 *
 * The folder is readable by all (mkdtemp makes it 0700): a server a test starts as another user (a
 * PostgreSQL cluster when the tests run as root) reaches what the test made for it below.
 * SVCGEN_KEEP_TMP=1 keeps it, to look at what a failed test left.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let folder: string | undefined;

export function setup(): void {
  folder = mkdtempSync(join(tmpdir(), 'svcgen-tests-'));
  chmodSync(folder, 0o755);
  process.env['TMPDIR'] = folder;
}

export function teardown(): void {
  if (!folder) return;
  if (process.env['SVCGEN_KEEP_TMP']) console.log(`svcgen tests: temporary folders kept in ${folder}`);
  else rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
