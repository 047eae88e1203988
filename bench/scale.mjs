// Pages of a big table (issue 28, item 6): the generated ramses-starter on SQLite and PostgreSQL
// with 1,000 and with 1,000,000 items, autocannon on 127.0.0.1 (4 connections, a few seconds per
// query). A page of 20 with its total, sorted by the key (indexed), without a filter and with two
// on it (one that selects 500 rows of either table, one that selects half); its `_count` alone; a
// deep page by offset (`_start=500000`) against the same page reached by the cursor of the page
// before it (`_after`, from its `next` link); and the first and a deep page by cursor sorted by a
// nullable field with an index of its own (`"index": true` in a copy of the starter's schema, as a
// user would ask for it), and a filter on that field.
//
// The rows are written straight into the table (a recursive CTE / generate_series): the service
// would take minutes to take a million POSTs, and how they got there changes nothing of a read.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, table } from './lib.mjs';
import { benchDatabases, builtStarter, measure, start } from './serve.mjs';

const work = fileURLToPath(new URL('../.tmp/bench-scale', import.meta.url));
const SIZES = [1_000, 1_000_000];

const root = fileURLToPath(new URL('..', import.meta.url));

/** ramses-starter with `"index": true` on Item.description, in `dir`: its api.raml. */
function indexedStarter(dir) {
  mkdirSync(dir, { recursive: true });
  cpSync(join(root, 'fixtures/ramses-starter'), dir, { recursive: true });
  const schema = JSON.parse(readFileSync(join(dir, 'items.json'), 'utf8'));
  schema.properties.description._db_settings.index = true;
  writeFileSync(join(dir, 'items.json'), JSON.stringify(schema, null, 2));
  return join(dir, 'api.raml');
}

export async function run({ seconds = 3, rounds = 3, connections = 4 } = {}) {
  const api = indexedStarter(`${work}-api`);
  const { project, modules } = await builtStarter(work, root, api);
  const rows = [['engine', 'query', ...SIZES.map((n) => `${n.toLocaleString('en')} rows req/s`), 'ratio']];
  for (const engine of ['sqlite', 'postgres']) {
    const results = new Map();
    for (const size of SIZES) {
      const { generated: url } = await benchDatabases(engine, join(work, String(size)), ['generated']);
      const server = await start(process.execPath, [join(project, 'dist/server.js')], {
        cwd: project,
        // max_offset raised, so that the deep page by offset can be measured at all.
        env: (port) => ({
          PORT: String(port),
          SVC_DATABASE_URL: url,
          SVC_CONFIG: join(work, 'none.ini'),
          SVC_MAX_OFFSET: '1000000',
        }),
      });
      try {
        await fill(engine, url, size, modules);
        for (const [name, path] of await queries(server.url, size)) {
          const rates = [];
          await measure(server.url, { name, path }, 1, connections);
          for (let r = 0; r < rounds; r++)
            rates.push((await measure(server.url, { name, path }, seconds, connections)).rps);
          results.set(`${name}|${size}`, median(rates));
        }
      } finally {
        server.stop();
      }
    }
    for (const name of new Set([...results.keys()].map((k) => k.split('|')[0]))) {
      const [small, big] = SIZES.map((size) => results.get(`${name}|${size}`));
      rows.push([
        engine,
        name,
        ...[small, big].map((r) => (r === undefined ? '—' : Math.round(r))),
        small && big ? `${(small / big).toFixed(1)}×` : '—',
      ]);
    }
  }
  return {
    title: 'Pages of a big table: 1,000 vs. 1,000,000 rows (ramses-starter Item, SQLite and PostgreSQL)',
    text: table(rows),
    summary: `autocannon, ${connections} connections, ${rounds} rounds of ${seconds} s per query and size (medians); "ratio" is how many times slower the query is on a million rows. Every page carries its exact total: a page of the whole collection reads the number of rows the database keeps (svc_row_counts), a filtered page counts the rows its filters select, the part of a big table's page that grows with them. The deep pages are at offset 500,000 (and 500 on 1,000 rows); a cursor's page costs what the first page does.`,
  };
}

/** The queries measured on a table of `size` rows, with the cursor of the page before the deep one. */
async function queries(url, size) {
  const deep = size >= 1_000_000 ? 500_000 : 500;
  const cursor = await cursorAt(url, '/v1/items?_limit=20', deep);
  const sorted = '/v1/items?_limit=20&_sort=description';
  const sortedCursor = await cursorAt(url, sorted, deep);
  return [
    ['page of 20, by key', '/v1/items?_limit=20'],
    ['page of 20, newest first', '/v1/items?_limit=20&_sort=-id'],
    // A filter that selects the same 500 rows of either table, and one that selects half of it.
    ['page of 20, filtered: 500 rows match', `/v1/items?_limit=20&id__gt=${size - 500}`],
    ['page of 20, filtered: half the rows match', `/v1/items?_limit=20&id__gt=${size / 2}`],
    ['_count', '/v1/items?_count'],
    [`deep page by offset (_start=${deep})`, `/v1/items?_limit=20&_start=${deep}`],
    ['deep page by cursor (_after)', `/v1/items?_limit=20&_after=${cursor}`],
    // description: nullable (one row in ten), with an index of its own, its nulls first (SQLite) or last.
    ['page of 20, by description', sorted],
    ['deep page by cursor, by description', `${sorted}&_after=${sortedCursor}`],
    // A filter on that field: the one row with this description (its total counted by the index).
    [
      'page of 20, filtered on description: 1 row matches',
      `/v1/items?_limit=20&description=seeded%20item%20number%20${deep + 1}`,
    ],
  ];
}

/** The cursor (`_after`) of the page of `path` that starts at `offset`: from the `next` link of the page before it. */
async function cursorAt(url, path, offset) {
  const before = await (await fetch(`${url}${path}&_start=${offset - 20}`)).json();
  if (!before.next)
    throw new Error(`no next page after offset ${offset - 20} of ${path}: ${JSON.stringify(before).slice(0, 300)}`);
  return new URL(before.next).searchParams.get('_after');
}

/** Every tenth item has no description; the others sort in another order than their keys. */
const DESCRIPTION = `case when i % 10 = 0 then null else 'seeded item number ' || i end`;

/** `size` items in the service's table. */
async function fill(engine, url, size, modules) {
  const require = createRequire(join(modules, 'noop.js'));
  if (engine === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(url.slice('sqlite:'.length));
    db.exec(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${size})
      insert into item (name, description) select 'item ' || i, ${DESCRIPTION} from n`);
    db.close();
    return;
  }
  const { Client } = require('pg');
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`insert into item (name, description)
      select 'item ' || i, ${DESCRIPTION} from generate_series(1, ${size}) as i`);
    // Vacuumed as well as analysed: a million inserted rows call autovacuum, which otherwise ran
    // beside the first queries measured and made them 1.4× slower than on 1,000 rows.
    await client.query('vacuum (analyze) item');
  } finally {
    await client.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run();
  console.log(`${result.title}\n\n${result.text}\n\n${result.summary}`);
}
