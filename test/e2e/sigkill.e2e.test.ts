/**
 * SIGKILL during concurrent writes (issue 16), on SQLite and PostgreSQL: writers create objects
 * and change batches of them in bulk while the service is killed without warning, again and
 * again. Each write the service answered 2xx is there afterwards, each bulk change is all or
 * nothing, and SQLite's integrity and foreign-key checks are clean after every kill. FAULT_CYCLES
 * kills per engine (3 in `npm test`; `npm run faults` runs 20 and prints the figures).
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';
const CYCLES = Number(process.env['FAULT_CYCLES'] ?? 3);
const WRITERS = 8;

interface Figures {
  cycles: number;
  created: number;
  createsLost: number;
  bulkAcknowledged: number;
  bulkTorn: number;
  /** The longest time from starting the killed service again to its first 200 from /health. */
  slowestRestartMs: number;
  statuses: Record<string, number>;
}

type SqliteFile = new (file: string) => { pragma(sql: string): unknown[]; close(): void };

/** SQLite's own checks of the file the killed service left behind (opening it recovers the WAL). */
function expectSqliteIntact(dir: string, url: string): void {
  const Database = createRequire(join(dir, 'node_modules', 'noop.js'))('better-sqlite3') as SqliteFile;
  const db = new Database(url.slice('sqlite:'.length));
  try {
    expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  } finally {
    db.close();
  }
}

/** Writes until `stop()`; what the service acknowledged is recorded, what failed (the kill) is not. */
async function writer(
  api: Api,
  tag: string,
  created: number[],
  figures: Figures,
  stopped: () => boolean,
): Promise<void> {
  for (let n = 0; !stopped(); n++) {
    const reply = await api('POST', '/authors', {
      name: `${tag}-${n}`,
      email: `${tag}-${n}@example.com`,
      karma: 0,
    }).catch(() => null);
    const status = reply ? String(reply.status) : 'connection lost';
    figures.statuses[status] = (figures.statuses[status] ?? 0) + 1;
    if (reply?.status === 201) created.push(reply.body.id);
    else if (reply) expect(reply.status, reply.text).toBeLessThan(500);
  }
}

/** One bulk change of a batch: every object of `tag` gets karma `value`, or (unanswered) none may be half changed. */
async function bulkChange(
  api: Api,
  tag: string,
  value: number,
  figures: Figures,
): Promise<{ tag: string; value: number; acknowledged: boolean }> {
  const reply = await api('PATCH', `/authors?name__startswith=${tag}-`, { karma: value }).catch(() => null);
  if (reply?.status === 200) figures.bulkAcknowledged++;
  return { tag, value, acknowledged: reply?.status === 200 };
}

describe.each(['sqlite', 'postgres'] as const)('SIGKILL during concurrent writes on %s', (engine) => {
  let dir: string;
  let database: TestDatabase;
  let service: RunningService | undefined;

  beforeAll(async () => {
    dir = await builtProject('blog', 'e2e-sigkill');
    database = await testDatabase(engine, dir, 'sigkill');
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
    await database?.drop();
  });

  it(
    `loses no acknowledged write and tears no bulk change over ${CYCLES} kills`,
    async () => {
      const figures: Figures = {
        cycles: 0,
        created: 0,
        createsLost: 0,
        bulkAcknowledged: 0,
        bulkTorn: 0,
        slowestRestartMs: 0,
        statuses: {},
      };
      const acknowledged: number[] = [];
      const bulks: { tag: string; value: number; acknowledged: boolean }[] = [];
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const starting = performance.now();
        service = await startService(dir, database.env, BASE);
        if (cycle > 0)
          figures.slowestRestartMs = Math.max(figures.slowestRestartMs, Math.round(performance.now() - starting));
        const api = apiClient(service.origin, BASE);
        // A batch that the bulk changes of this cycle work on, created before the writers start.
        const batch = `c${cycle}-batch`;
        for (let i = 0; i < 20; i++)
          expect(
            (await api('POST', '/authors', { name: `${batch}-${i}`, email: `${batch}-${i}@example.com`, karma: 0 }))
              .status,
          ).toBe(201);
        let killed = false;
        const writers = Array.from({ length: WRITERS }, (_, w) =>
          writer(api, `c${cycle}-w${w}`, acknowledged, figures, () => killed),
        );
        const changes = (async () => {
          for (let value = 1; !killed; value++) bulks.push(await bulkChange(api, batch, value, figures));
        })();
        await sleep(200 + Math.random() * 600);
        service.signal('SIGKILL');
        killed = true;
        await service.stop();
        await Promise.all([...writers, changes]);
        if (engine === 'sqlite') expectSqliteIntact(dir, database.url);
        figures.cycles++;
      }
      service = await startService(dir, database.env, BASE);
      const api = apiClient(service.origin, BASE);
      const present = new Set<number>();
      for (let page = 0; ; page++) {
        const reply = await api('GET', `/authors?_limit=1000&_page=${page}&_fields=id`);
        for (const o of reply.body.data) present.add(o.id);
        if (reply.body.data.length < 1000) break;
      }
      figures.created = acknowledged.length;
      figures.createsLost = acknowledged.filter((id) => !present.has(id)).length;
      for (const cycle of Array.from({ length: CYCLES }, (_, c) => c)) {
        const batch = `c${cycle}-batch`;
        const reply = await api('GET', `/authors?name__startswith=${batch}-&_limit=100&_fields=name,karma`);
        const found = reply.body.data as { name: string; karma: number }[];
        // The batch's 20 creates were acknowledged before the cycle's writers started: all must be there.
        expect(found.map((o) => o.name).sort(), `${batch}: ${reply.status} ${JSON.stringify(figures)}`).toEqual(
          Array.from({ length: 20 }, (_, i) => `${batch}-${i}`).sort(),
        );
        const karmas = new Set(found.map((o) => o.karma));
        if (karmas.size !== 1) figures.bulkTorn++;
        const last = bulks.filter((b) => b.tag === batch && b.acknowledged).at(-1);
        // The last acknowledged change, or a later one that committed unanswered, holds.
        if (last) expect(Math.max(...karmas)).toBeGreaterThanOrEqual(last.value);
      }
      console.log(`faults on ${engine}: ${JSON.stringify(figures)}`);
      expect(figures.created).toBeGreaterThan(CYCLES * 5);
      expect(figures.createsLost).toBe(0);
      expect(figures.bulkTorn).toBe(0);
    },
    60_000 + CYCLES * 20_000,
  );
});
