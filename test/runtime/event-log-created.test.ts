/**
 * `EventLog.createdAfter` (runtime/src/lib/outbox/): where an object began to exist under its key,
 * which the change feed asks of its caller's own record (a user's name may have been a deleted
 * user's). On SQLite, PostgreSQL (before and after the sequencer numbers the events) and MongoDB.
 */
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendMongo, MongoEventLog } from '../../runtime/src/lib/outbox/mongo-log.js';
import { outboxSchema } from '../../runtime/src/lib/outbox/schema.js';
import { appendStatement, SqlEventLog } from '../../runtime/src/lib/outbox/sql-log.js';
import type { EventAction, EventLog, NewEvent } from '../../runtime/src/lib/outbox/types.js';
import { openSql } from '../../runtime/src/lib/sql/executor.js';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { repoRoot } from '../support/paths.js';

const event = (model: string, action: EventAction, pk: string): NewEvent => ({ model, action, pk, object: {} });

/** bob registers, changes, is deleted, registers again (events 1–4); a note keyed `bob` (5). */
const HISTORY = [
  event('User', 'register', 'bob'),
  event('User', 'update', 'bob'),
  event('User', 'delete', 'bob'),
  event('User', 'register', 'bob'),
  event('Note', 'create', 'bob'),
];

interface Opened {
  readonly log: EventLog;
  append(events: readonly NewEvent[]): Promise<void>;
  close(): Promise<void>;
}

async function open(engine: (typeof ENGINES)[number], database: TestDatabase): Promise<Opened> {
  if (engine === 'mongodb') {
    const client = await new MongoClient(database.url).connect();
    return {
      log: new MongoEventLog(client.db()),
      append: (events) => appendMongo(client.db(), undefined, events),
      close: () => client.close(),
    };
  }
  const sql = openSql(database.url);
  await sql.execute(outboxSchema(sql.dialect));
  return {
    log: new SqlEventLog(sql),
    append: async (events) => void (await sql.run(appendStatement(sql.dialect, events))),
    close: () => sql.close(),
  };
}

describe.each(ENGINES)('EventLog.createdAfter on %s', (engine) => {
  let database: TestDatabase;
  let opened: Opened;

  beforeAll(async () => {
    database = await testDatabase(engine, repoRoot, 'created-after');
    opened = await open(engine, database);
    await opened.append(HISTORY);
  }, 60_000);

  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('is not known before PostgreSQL numbers the creation, then is its seq', async () => {
    const { log } = opened;
    if (engine === 'postgres') {
      expect(await log.createdAfter('User', 'bob', 0)).toBe(Infinity);
      expect(await log.sequence()).toBe(5);
    }
    expect(await log.createdAfter('User', 'bob', 0)).toBe(4);
  });

  it("is the newest creation after the cursor, of that model's object only", async () => {
    const { log } = opened;
    await log.sequence();
    expect(await log.createdAfter('User', 'bob', 3)).toBe(4);
    expect(await log.createdAfter('User', 'bob', 4)).toBeUndefined();
    expect(await log.createdAfter('User', 'ann', 0)).toBeUndefined();
    expect(await log.createdAfter('Note', 'bob', 0)).toBe(5);
    expect(await log.createdAfter('Book', 'bob', 0)).toBeUndefined();
  });
});
