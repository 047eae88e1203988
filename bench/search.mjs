// Full-text search (`q`) over 100,000 rows against the `LIKE '%word%'` scan it replaces, on
// SQLite (FTS5) and PostgreSQL (tsvector + GIN), in the same run and on the same service: the
// generated ramses-starter service (Item: name, description), autocannon on 127.0.0.1.
//
// The corpus is seeded straight into the database the service migrated (the search indexes are
// kept by its triggers / generated columns): a 6-word name and a 60-word description per row,
// drawn from a 50,000-word Zipf vocabulary with a seeded PRNG (mulberry32). Probe words are
// picked by the share of rows that have them (about 10 %, 1 % and 0.1 %; the 10 % one also with
// `_sort=id`). Each request asks for a page of 20 with its total, as clients do: `?q=w&_limit=20`
// (relevance order) against
// `?description__contains=w&_limit=20` (LIKE / ILIKE '%w%' on the description only, so the scan
// does less work than the search). Rounds alternate search, scan, search, … Target: search ≥ 20×
// the scan's requests/s on each probe and engine.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { median, table } from './lib.mjs';
import { builtStarter, start } from './serve.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, '.tmp', 'bench-search');
const autocannon = createRequire(import.meta.url)('autocannon');
const ROWS = 100_000;
const VOCABULARY = 50_000;

// 4 connections: each request runs two queries at once (the page and its total), and a scan that
// takes seconds would otherwise wait past the PostgreSQL pool's 2 s for a connection.
export async function run({ rounds = 3, seconds = 4, connections = 4 } = {}) {
  const { project, modules } = await builtStarter(work);
  const requireProject = createRequire(join(modules, 'noop.js'));
  const corpus = makeCorpus(ROWS);
  const probes = pickProbes(corpus, [0.1, 0.01, 0.001]);
  const rows = [['engine', 'word in rows', 'search req/s', 'search p99', 'LIKE req/s', 'LIKE p99', 'ratio', '≥ 20×']];
  const ratios = [];
  for (const engine of ['sqlite', 'postgres']) {
    const database = await freshDatabase(engine, requireProject);
    const serve = () =>
      start(process.execPath, [join(project, 'dist/server.js')], {
        cwd: project,
        env: (port) => ({
          PORT: String(port),
          SVC_DATABASE_URL: database.url,
          SVC_CONFIG: join(work, 'none.ini'),
          SVC_LOG_LEVEL: 'warn',
        }),
      });
    // The service's migration makes the tables and search indexes; the corpus goes in with the service stopped.
    (await serve()).stop();
    await sleep(1000);
    await database.seed(corpus);
    const server = await serve();
    // Steady state before measuring: on SQLite the first search catches the index up with the
    // 100,000 rows seeded behind the service's back (seconds, once).
    await fetch(`${server.url}/v1/items?q=warm&_limit=1`);
    try {
      // The most common word again in key order (`_sort=id`): no ranking of its 10,000 matches.
      for (const probe of [...probes, { ...probes[0], sort: '&_sort=id' }]) {
        const sort = probe.sort ?? '';
        const search = { name: 'search', path: `/v1/items?q=${probe.word}&_limit=20${sort}` };
        const scan = { name: 'LIKE', path: `/v1/items?description__contains=${probe.word}&_limit=20${sort}` };
        await load(server.url, search, 1, connections);
        await load(server.url, scan, 1, connections);
        const results = { search: [], scan: [] };
        for (let r = 0; r < rounds; r++) {
          results.search.push(await load(server.url, search, seconds, connections));
          results.scan.push(await load(server.url, scan, seconds, connections));
        }
        const [s, l] = [summary(results.search), summary(results.scan)];
        ratios.push(s.rps / l.rps);
        rows.push([
          engine,
          `${probe.word} (${(probe.share * 100).toFixed(1)} %, ${probe.rows} rows)${sort}`,
          Math.round(s.rps),
          `${s.p99} ms`,
          Math.round(l.rps),
          `${l.p99} ms`,
          `${(s.rps / l.rps).toFixed(1)}×`,
          s.rps / l.rps >= 20 ? 'yes' : 'no',
        ]);
      }
    } finally {
      server.stop();
      await database.drop();
    }
  }
  const worst = Math.min(...ratios);
  const met = ratios.filter((r) => r >= 20).length;
  return {
    title: 'Full-text search vs. a LIKE scan, 100,000 rows (ramses-starter Item, SQLite and PostgreSQL)',
    text: table(rows),
    summary: `GET a page of 20 with its total: \`?q=word\` (FTS5 / tsvector + GIN, best matches first) against \`?description__contains=word\` (LIKE / ILIKE '%word%'). ${ROWS.toLocaleString('en')} rows of a 6-word name and a 60-word description from a ${VOCABULARY.toLocaleString('en')}-word Zipf vocabulary; autocannon, ${connections} connections, ${rounds} alternating rounds of ${seconds} s (medians of req/s and of p99). Target ≥ 20×: met on ${met} of ${ratios.length} rows; worst ratio ${worst.toFixed(1)}×.`,
  };
}

function summary(results) {
  return { rps: median(results.map((r) => r.rps)), p99: median(results.map((r) => r.p99)) };
}

function load(url, scenario, seconds, connections) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url: `${url}${scenario.path}`, connections, duration: seconds },
      (/** @type {Error | null} */ error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0)
          return reject(
            new Error(
              `${scenario.name} on ${url}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`,
            ),
          );
        resolve({ rps: result.requests.average, p99: result.latency.p99 });
      },
    );
  });
}

// --- the corpus -------------------------------------------------------------------------------------

function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function makeCorpus(count) {
  const random = mulberry32(14);
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'be', 'da', 'fi', 'go', 'hu', 'ja', 'pe', 'zo'];
  const words = new Set();
  while (words.size < VOCABULARY) {
    const length = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  }
  const vocabulary = [...words];
  // Zipf (s = 1): the word of rank r is drawn with weight 1 / r.
  const cumulative = [];
  let sum = 0;
  for (let r = 1; r <= VOCABULARY; r++) cumulative.push((sum += 1 / r));
  const draw = () => {
    const x = random() * sum;
    let [lo, hi] = [0, VOCABULARY - 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return vocabulary[lo];
  };
  const text = (n) => Array.from({ length: n }, draw).join(' ');
  return Array.from({ length: count }, () => ({ name: text(6), description: text(60) }));
}

/** For each wanted share, a word that that share of the rows has in its description. */
export function pickProbes(corpus, shares) {
  const rowsWith = new Map();
  for (const row of corpus)
    for (const word of new Set(row.description.split(' '))) rowsWith.set(word, (rowsWith.get(word) ?? 0) + 1);
  return shares.map((share) => {
    let best;
    for (const [word, rows] of rowsWith)
      if (!best || Math.abs(rows / corpus.length - share) < Math.abs(best.rows / corpus.length - share))
        best = { word, rows };
    return { ...best, share: best.rows / corpus.length };
  });
}

// --- the databases ----------------------------------------------------------------------------------

export async function freshDatabase(engine, requireProject) {
  if (engine === 'sqlite') {
    const file = join(work, `search-${Date.now()}.db`);
    return {
      url: `sqlite:${file}`,
      seed: (corpus) => {
        const Database = requireProject('better-sqlite3');
        const db = new Database(file);
        db.pragma('busy_timeout = 10000');
        const insert = db.prepare('insert into item (name, description) values (?, ?)');
        db.transaction(() => corpus.forEach((r) => insert.run(r.name, r.description)))();
        db.exec('analyze');
        db.close();
      },
      drop: () => Promise.resolve(),
    };
  }
  const admin = execFileSync('bash', [join(root, 'scripts/postgres.sh'), 'start'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  const name = `svcgen_bench_search_${Date.now()}`;
  const { Client } = requireProject('pg');
  const sql = async (url, text, values) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  };
  await sql(admin, `create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    seed: async (corpus) => {
      const client = new Client({ connectionString: url.href });
      await client.connect();
      try {
        for (let i = 0; i < corpus.length; i += 1000) {
          const slice = corpus.slice(i, i + 1000);
          await client.query('insert into item (name, description) select * from unnest($1::text[], $2::text[])', [
            slice.map((r) => r.name),
            slice.map((r) => r.description),
          ]);
        }
        // What autovacuum would do next: merge the GIN indexes' pending list, into which the bulk
        // load went and which every search would otherwise read through (~1.5 ms a word and field).
        await client.query('vacuum analyze item');
      } finally {
        await client.end();
      }
    },
    drop: () => sql(admin, `drop database if exists ${name} with (force)`),
  };
}
