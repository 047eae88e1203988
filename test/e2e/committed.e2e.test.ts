/**
 * In-process subscribers of committed changes (issue 26, item 7), on SQLite, PostgreSQL and the
 * MongoDB test server, with fixtures/blog and a stub of src/custom/events/author.ts written as a
 * user would: typed by the model's events (a type the model has not is a compile error), run after
 * the request has its answer, at least once, in order for one object, and tried again when it
 * throws; listed with the webhooks as `local.Author`.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { generatedProject, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';

const AUTHOR_SUBSCRIBER = `import { appendFileSync } from 'node:fs';
import type { AuthorCommitted, Subscriptions } from '../../committed.js';

/** Attempts per event: "flaky" authors fail twice before their handler gets through. */
const tries = new Map<string, number>();

function record(event: AuthorCommitted): void {
  const line = { id: event.id, seq: event.seq, type: event.type, pk: event.data.pk, name: event.data.object.name };
  appendFileSync(process.env['COMMITTED_LOG']!, JSON.stringify(line) + '\\n');
}

export default function authorSubscriber(on: Subscriptions<'Author'>): void {
  on('Author.create', async (event) => {
    const name: string = event.data.object.name;
    const attempt = (tries.get(event.id) ?? 0) + 1;
    tries.set(event.id, attempt);
    if (name.startsWith('flaky') && attempt < 3) throw new Error(\`flaky, attempt \${attempt}\`);
    record(event);
  });
  on('Author.update', (event) => record(event));
}

/** Never called: what tsc refuses (and the service would refuse at start-up). */
export function wrongSubscriptions(on: Subscriptions<'Author'>): void {
  // @ts-expect-error: an Author has no such event
  on('Author.archive', () => undefined);
  // @ts-expect-error: another model's event
  on('Post.create', () => undefined);
}
`;

let dir: string;

beforeAll(async () => {
  dir = await generatedProject('blog', 'e2e-committed');
  writeFileSync(join(dir, 'src/custom/events/author.ts'), AUTHOR_SUBSCRIBER);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}, 600_000);

interface Line {
  id: string;
  seq: number;
  type: string;
  pk: string;
  name: string;
}

describe.each(ENGINES)('in-process subscribers on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  const log = () => join(dir, `committed-${engine}.log`);
  const lines = (): Line[] =>
    existsSync(log())
      ? readFileSync(log(), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Line)
      : [];

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'committed');
    service = await startService(
      dir,
      { ...database.env, COMMITTED_LOG: log(), SVC_WEBHOOKS_RETRY_DELAYS: '50ms' },
      BASE,
    );
    api = apiClient(service.origin, BASE);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('runs each subscriber after the answer, at least once, in order per object, again when it throws', async () => {
    const made: Record<string, string> = {};
    for (const name of ['ann', 'flaky bob', 'cy']) {
      const reply = await api('POST', '/authors', { name, email: `${name.replace(' ', '.')}@example.com`, karma: 0 });
      // The handler that throws does not touch the answer: the change is committed.
      expect(reply.status, reply.text).toBe(201);
      made[name] = String(reply.body.id);
    }
    expect((await api('PATCH', `/authors/${made['ann']!}`, { karma: 5 })).status).toBe(200);
    for (let i = 0; i < 400 && lines().length < 4; i++) await sleep(25);
    const got = lines();
    expect(got.map((l) => [l.type, l.name])).toEqual(
      expect.arrayContaining([
        ['Author.create', 'ann'],
        ['Author.create', 'flaky bob'],
        ['Author.create', 'cy'],
        ['Author.update', 'ann'],
      ]),
    );
    expect(got).toHaveLength(4);
    // One object's events in seq order: ann's create before her update.
    const ann = got.filter((l) => l.pk === made['ann']);
    expect(ann.map((l) => l.type)).toEqual(['Author.create', 'Author.update']);
    expect(ann[0]!.seq).toBeLessThan(ann[1]!.seq);
    const overview = (await api('GET', '/_webhooks')).body.data as Record<string, unknown>[];
    expect(overview).toEqual([expect.objectContaining({ name: 'local.Author', delivered: 4, dead: 0, pending: 0 })]);
    // Nothing is failing now; the failed attempts are on record in the delivery they came before.
    expect(overview[0]!['last_error']).toBeNull();
    const deliveries = (await api('GET', '/_webhooks/local.Author/deliveries')).body.data as Record<string, unknown>[];
    const flaky = deliveries.find((d) => d['object'] === `Author:${made['flaky bob']!}`);
    expect(flaky).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200 });
    expect(String(flaky!['last_error'])).toContain('flaky, attempt 2');
  });
});
