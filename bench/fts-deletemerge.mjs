#!/usr/bin/env node
// SQLite's search index under changes and deletes, by FTS5's `deletemerge` (the runtime sets 50:
// lib/sql/search-index.ts). An index like the one svcgen makes (contentless-delete FTS5 over a
// 6-word name and a 60-word description of Zipf-distributed words, `unicode61 remove_diacritics 2`),
// 100,000 rows indexed in batches of 100; then 40,000 rows changed at random and 20,000 deleted
// and made anew, each batch of 100 caught up as the runtime's indexer does (forget the rows, index
// them again). Reported per setting: the CPU per written row (the row's own write included), the
// index's size, and searches afterwards (a count and a top 20 by rank), medians of alternating runs.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, removeSqliteFiles, table } from './lib.mjs';
import { builtStarter } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-fts-deletemerge');
const SETTINGS = [10, 25, 50];
const SEARCHES = { 'a word in most rows': 'w1', 'a word in a few %': 'w2s', 'two words': 'w1 w5' };

export async function run({ rows = 100_000, changed = 40_000, replaced = 20_000, rounds = 5 } = {}) {
  const { modules } = await builtStarter(work);
  const Database = createRequire(join(modules, 'noop.js'))('better-sqlite3');
  const built = SETTINGS.map((setting) => ({ setting, ...build(Database, setting, rows, changed, replaced) }));
  const header = ['deletemerge', 'µs per written row', 'index MB', ...Object.keys(SEARCHES).map((s) => `${s}, ms`)];
  const times = new Map(built.map((b) => [b.setting, Object.fromEntries(Object.keys(SEARCHES).map((s) => [s, []]))]));
  for (let round = 0; round < rounds; round++)
    for (const [label, words] of Object.entries(SEARCHES))
      for (const b of built) times.get(b.setting)[label].push(searchMs(b.db, words));
  const out = built.map((b) => [
    b.setting === 10 ? '10 (FTS5 default)' : String(b.setting),
    b.writeMicros.toFixed(1),
    (b.bytes / 1e6).toFixed(1),
    ...Object.keys(SEARCHES).map((label) => median(times.get(b.setting)[label]).toFixed(2)),
  ]);
  for (const b of built) b.db.close();
  return {
    title: "SQLite's search index under changes and deletes, by FTS5 deletemerge",
    text: table([header, ...out]),
    summary: `${rows.toLocaleString('en')} rows indexed, then ${changed.toLocaleString('en')} changed at random and ${replaced.toLocaleString('en')} deleted and made anew, in batches of 100 caught up as lib/sql/search-index.ts does; better-sqlite3, a WAL file. Searches: a count and a top 20 by rank, medians of ${rounds} alternating runs. The runtime sets 50.`,
  };
}

function build(Database, setting, rows, changed, replaced) {
  let seed = 7; // the same rows and words for every setting
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const vocabulary = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** random()) - 1)];
  const text = (n) => Array.from({ length: n }, word).join(' ');
  const file = join(work, `deletemerge-${setting}.db`);
  removeSqliteFiles(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`create table item (id integer primary key, name text, description text);
    create virtual table fts using fts5(name, description, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
    insert into fts (fts, rank) values ('deletemerge', ${setting});`);
  const insert = db.prepare('insert into item (name, description) values (?, ?)');
  const index = db.prepare(
    'insert into fts (rowid, name, description) select id, name, description from item where id > ? and id <= ?',
  );
  const update = db.prepare('update item set description = ? where id = ?');
  const remove = db.prepare('delete from item where id = ?');
  const unindex = db.prepare('delete from fts where rowid in (select value from json_each(?))');
  const reindex = db.prepare(
    'insert into fts (rowid, name, description) select id, name, description from item where id in (select value from json_each(?))',
  );
  const batch = (steps) => {
    db.exec('begin');
    steps();
    db.exec('commit');
  };
  for (let from = 0; from < rows; from += 100)
    batch(() => {
      for (let i = 0; i < 100; i++) insert.run(text(6), text(60));
      index.run(from, from + 100);
    });
  let last = rows;
  const someKeys = () => [...new Set(Array.from({ length: 100 }, () => 1 + Math.floor(random() * last)))];
  const started = process.cpuUsage();
  for (let n = 0; n < changed; n += 100)
    batch(() => {
      const keys = someKeys();
      for (const key of keys) update.run(text(60), key);
      unindex.run(JSON.stringify(keys));
      reindex.run(JSON.stringify(keys));
    });
  for (let n = 0; n < replaced; n += 100)
    batch(() => {
      const keys = someKeys();
      for (const key of keys) remove.run(key);
      unindex.run(JSON.stringify(keys));
      for (let i = 0; i < 100; i++) insert.run(text(6), text(60));
      index.run(last, last + 100);
      last += 100;
    });
  const used = process.cpuUsage(started);
  const bytes = db.prepare('select sum(length(block)) from fts_data').pluck().get();
  return { db, writeMicros: (used.user + used.system) / (changed + replaced), bytes };
}

function searchMs(db, words) {
  const count = db.prepare('select count(*) from fts where fts match ?').pluck();
  const top = db.prepare('select rowid from fts where fts match ? order by rank limit 20').pluck();
  const started = performance.now();
  count.get(words);
  top.all(words);
  return performance.now() - started;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`## ${result.title}\n\n${result.text}\n\n${result.summary}`);
}
