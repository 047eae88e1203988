/**
 * What only the MongoDB engine has (the shared HTTP suites run on it too, see databases.ts):
 * `npm run migrate` creates the unique indexes; a transaction that fails transiently runs again;
 * a standalone server (no transactions) is used with a warning; a wrong or unreachable
 * `mongodb.url` is a located start-up error without secrets.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMongoTestServer, type MongoTestServer } from '../../scripts/mongo-test-server/index.mjs';
import { apiClient } from '../support/http.js';
import { failCommands, freshMongoDatabase } from '../support/mongodb.js';
import { builtProject, openProjectDatabase } from '../support/project.js';
import { startService } from '../support/server.js';

interface StoryDb {
  story: { create(args: object): Promise<unknown>; count(): Promise<number> };
  transaction<T>(work: (db: StoryDb) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

let dir: string;

beforeAll(async () => {
  dir = await builtProject('ramses-example', 'e2e-mongodb');
}, 600_000);

const run = (script: string, env: Record<string, string>) =>
  execa('node', [join('dist', script)], {
    cwd: dir,
    env: { SVC_CONFIG: join(dir, 'none.ini'), ...env },
    reject: false,
    all: true,
    timeout: 30_000,
  });

describe('the MongoDB engine', () => {
  it('npm run migrate creates the unique indexes (sparse: objects without a value do not collide), and keeps the user’s own', async () => {
    const database = await freshMongoDatabase('migrate');
    try {
      // An index of the user's own, named as people name theirs: svcgen leaves it alone.
      const own = new MongoClient(database.url);
      await own.connect();
      await own.db().collection('user').createIndex({ first_name: 1 }, { name: 'first_name_idx' });
      await own.close();
      const result = await run('db/migrate.js', { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: database.url });
      expect(result.exitCode, result.all).toBe(0);
      expect(result.all).toContain('the MongoDB indexes are in place');
      const client = new MongoClient(database.url);
      try {
        const indexes = await client.db().collection('user').listIndexes().toArray();
        expect(indexes.map((i) => i.name)).toContain('first_name_idx');
        expect(indexes.find((i) => i.name === 'email_unique')).toMatchObject({
          key: { email: 1 },
          unique: true,
          sparse: true,
        });
        const profile = await client.db().collection('profile').listIndexes().toArray();
        // A one-to-one link is unique: one profile per user (kept under the relationship's name).
        expect(profile.find((i) => i.name === 'user_unique')).toMatchObject({ key: { user: 1 }, unique: true });
      } finally {
        await client.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('runs a transaction again when MongoDB says its failure was transient (a write conflict)', async () => {
    const database = await freshMongoDatabase('retry');
    const db = await openProjectDatabase<StoryDb>(dir, { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: database.url });
    try {
      await failCommands(database.url, 'story', ['insert'], {
        times: 1,
        errorCode: 112,
        errorLabels: ['TransientTransactionError'],
      });
      let runs = 0;
      await db.transaction(async (tx) => {
        runs++;
        return tx.story.create({ data: { name: 'retried', description: 'after a write conflict' } });
      });
      expect(runs).toBe(2);
      expect(await db.story.count()).toBe(1);
      // Any other failure is not retried: it is the request's answer.
      await failCommands(database.url, 'story', ['insert'], { times: 1, errorCode: 8000 });
      runs = 0;
      await expect(
        db.transaction(async (tx) => (runs++, tx.story.create({ data: { name: 'x', description: 'y' } }))),
      ).rejects.toMatchObject({ code: 8000 });
      expect(runs).toBe(1);
    } finally {
      await db.close();
      await database.drop();
    }
  });

  describe('on a standalone server (no transactions)', () => {
    let server: MongoTestServer;

    beforeAll(async () => {
      server = await startMongoTestServer({ replicaSet: null });
    });

    afterAll(async () => {
      await server?.close();
    });

    it('says so at start-up, then serves every request without transactions', async () => {
      const url = server.url.replace('/?', '/standalone?');
      const service = await startService(dir, { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: url }, '/v1');
      try {
        await expect
          .poll(() => service.output(), { timeout: 5000 })
          .toContain('runs no transactions (a standalone server)');
        const api = apiClient(service.origin, '/v1');
        const created = await api('POST', '/stories', { name: 'alone', description: 'no replica set' });
        expect(created.status).toBe(201);
        expect((await api('PATCH', `/stories/${created.body.id}`, { name: 'still alone' })).status).toBe(200);
        expect((await api('GET', '/stories')).body.data.map((s: { name: string }) => s.name)).toEqual(['still alone']);
        expect(server.commands.get('commitTransaction')).toBeUndefined();
      } finally {
        await service.stop();
      }
    });
  });

  it.each([
    [{ SVC_MONGODB_URL: 'mysql://x' }, /mongodb.url must start with mongodb:\/\/ or mongodb\+srv:\/\//],
    [{ SVC_MONGODB_URL: 'mongodb://user:hunter2@127.0.0.1:1/db' }, /cannot open the database: .*check mongodb.url/],
  ])('refuses %o with a message that names the setting', async (env, message) => {
    const result = await run('server.js', { PORT: '0', SVC_ENGINE: 'svc_mongodb', ...env });
    expect(result.exitCode).toBe(1);
    expect(result.all).toMatch(message);
    expect(result.all).not.toContain('hunter2');
    expect(result.all).not.toMatch(/\n\s+at /);
  });
});
