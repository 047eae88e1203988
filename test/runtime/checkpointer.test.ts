/**
 * SQLite's checkpoints off the event loop (runtime/src/lib/sql/checkpointer.ts): a worker copies
 * the WAL back into the database file soon after writes (SQLite alone waits for 1,000 pages), the
 * WAL stays bounded under writes that never pause, and closing leaves no WAL behind.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSql, type SqlDatabase } from '../../runtime/src/lib/sql/executor.js';

const PAGE = 4096;
let dir: string;
let file: string;
let db: SqlDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svcgen-checkpoint-'));
  file = join(dir, 'data.db');
  db = openSql(`sqlite:${file}`);
  await db.execute('create table note (id integer primary key, body text not null)');
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `count` rows of about a page each, one write at a time (each its own commit). */
async function writePages(count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await db.run({ sql: 'insert into note (body) values (?)', parameters: ['x'.repeat(PAGE - 200)] });
}

/**
 * The WAL file's size in pages (a frame is a page and its 24-byte header): as large as the WAL ever
 * was since it was made (SQLite reuses it from the start, it does not shrink it).
 */
function walFilePages(): number {
  return Math.floor(statSync(`${file}-wal`).size / (PAGE + 24));
}

it('copies the WAL into the database file soon after writes, which SQLite alone leaves for 1,000 pages', async () => {
  const before = statSync(file).size;
  // 300 pages: below SQLite's own automatic checkpoint, which would copy nothing yet.
  await writePages(300);
  const deadline = Date.now() + 5000;
  while (statSync(file).size - before < 250 * PAGE && Date.now() < deadline) await sleep(50);
  expect(statSync(file).size - before).toBeGreaterThanOrEqual(250 * PAGE);
});

it('keeps the WAL bounded under writes that never pause', async () => {
  // Three seconds of writes, a millisecond's pause every 10: every checkpoint of the worker has
  // new pages behind it, so only the writer's finishing step lets the WAL start again. Without it
  // the WAL file took every page written, three per write (102,690 pages for 33,580 writes); with
  // it, a few thousand on a quiet machine and under half a page per write with the whole suite
  // running beside it (how far the WAL gets depends on how soon the worker runs).
  let written = 0;
  for (const end = Date.now() + 3000; Date.now() < end;) {
    await writePages(10);
    written += 10;
    await sleep(1);
  }
  expect(written).toBeGreaterThan(3000);
  expect(walFilePages()).toBeLessThan(written);
}, 20_000);

it('closes with no WAL left: the writer, closing last, checkpoints and removes it', async () => {
  await writePages(50);
  await db.close();
  expect(existsSync(`${file}-wal`)).toBe(false);
  // afterEach closes again: reopen so that it has something to close.
  db = openSql(`sqlite:${file}`);
});
