/**
 * A SQLite database the service makes is its owner's alone: it holds password hashes and sessions,
 * and a probe found it readable by every local user (0644, from the umask). A new folder is 0700,
 * a new file 0600 (its write-ahead log takes the file's mode); a database that exists keeps its modes.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openSql } from '../../runtime/src/lib/sql/executor.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

it('makes a new database and its folder readable by their owner alone', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcgen-modes-'));
  dirs.push(root);
  const file = join(root, 'data', 'service.db');
  const db = openSql(`sqlite:${file}`);
  await db.execute('create table t (x integer); insert into t values (1);');
  expect([mode(join(root, 'data')), mode(file), mode(`${file}-wal`)]).toEqual([0o700, 0o600, 0o600]);
  await db.close();
});

it('leaves the modes of a database that exists as its owner set them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcgen-modes-'));
  dirs.push(root);
  const file = join(root, 'service.db');
  await openSql(`sqlite:${file}`).close();
  chmodSync(file, 0o640);
  const db = openSql(`sqlite:${file}`);
  expect(mode(file)).toBe(0o640);
  await db.close();
});
