/**
 * MongoDB for the end-to-end tests: `MONGO_URL` when set (a real server; a replica set for
 * transactions, started with `--setParameter enableTestCommands=1` for the failure tests), else
 * svcgen's test server (scripts/mongo-test-server), one per test process. Each suite gets a
 * database of its own.
 */
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { startMongoTestServer } from '../../scripts/mongo-test-server/index.mjs';

let server: Promise<string> | undefined;

export function mongoServer(): Promise<string> {
  server ??= process.env['MONGO_URL']
    ? Promise.resolve(process.env['MONGO_URL'])
    : startMongoTestServer().then((s) => s.url);
  return server;
}

/** A fresh database on the server: its URL, and a way to drop it. */
export async function freshMongoDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const url = new URL(await mongoServer());
  url.pathname = `/svcgen_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  return {
    url: url.toString(),
    drop: async () => void (await onDatabase(url.toString(), (client) => client.db().dropDatabase())),
  };
}

/**
 * Makes the commands `commands` on `collection` fail (MongoDB's failCommand fail point): always,
 * or `times` times, with `errorCode` and `errorLabels`.
 */
export async function failCommands(
  url: string,
  collection: string,
  commands: readonly string[],
  {
    times,
    errorCode = 8000,
    errorLabels,
  }: { times?: number; errorCode?: number; errorLabels?: readonly string[] } = {},
): Promise<void> {
  await onDatabase(url, (client) =>
    client.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: times === undefined ? 'alwaysOn' : { times },
      data: {
        failCommands: commands,
        errorCode,
        namespace: `${client.db().databaseName}.${collection}`,
        ...(errorLabels ? { errorLabels } : {}),
      },
    }),
  );
}

/** Sets `field` to `value` on every document of `collection`, behind the service's back. */
export async function setOnEvery(url: string, collection: string, field: string, value: string): Promise<void> {
  await onDatabase(url, (client) =>
    client
      .db()
      .collection(collection)
      .updateMany({}, { $set: { [field]: value } }),
  );
}

/** `work` on a client of `url`, closed after. */
export async function onDatabase<R>(url: string, work: (client: MongoClient) => Promise<R>): Promise<R> {
  const client = new MongoClient(url);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}
