/**
 * The service under test: a fresh database for each test — in-memory SQLite, or, when
 * `TEST_DATABASE_URL` names a PostgreSQL or MongoDB server, a new database there (dropped
 * afterwards; MongoDB runs the service with engine = svc_mongodb) —
 * requests injected into Fastify without a network, and `seed` to create objects with valid
 * sample data. `api` is the project's typed client (client/), whose requests go into Fastify's
 * `inject` rather than over a port: the tests use the client exactly as a caller would.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { MongoClient } from 'mongodb';
import pg from 'pg';
import { ApiError, Http, type Fetch } from '../client/src/http.js';
import { createClient } from '../client/src/index.js';
import { BASE_PATH, buildApp, type BuildOptions } from '../src/app.js';
import { loadServiceConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { withDefaults } from '../src/lib/model.js';
import { models } from '../src/models/index.js';
import { samples } from './samples.js';

type Rec = Record<string, unknown>;

export interface TestService {
  readonly app: FastifyInstance;
  readonly db: Database;
  /** The typed client of the service. */
  readonly api: ReturnType<typeof createClient>;
  /** The client's transport, for requests no accessor makes (OPTIONS, a method a route does not allow). */
  readonly http: Http;
  /** GET of a URL the service gave (`_self`), through the client's transport. */
  follow(url: string): Promise<unknown>;
  /** A request below the base path (or to an absolute URL the service gave, such as `_self`). */
  request(
    method: InjectOptions['method'],
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Creates a `model` object with sample data (plus `data`), and what its required links need. */
  seed(model: string, data?: Rec): Promise<Rec>;
  /** The primary key of a record. */
  key(model: string, record: Rec): string | number;
  close(): Promise<void>;
}

let counter = 0;

/**
 * The next sample of `model`, numbered by one counter for the whole test file: the objects it seeds
 * and the bodies it sends never share a value, also where a pattern keeps only the last digits
 * (`^BK-[0-9]{5}$`: sample 1 and sample 100001 would both be `BK-00001`).
 */
export function nextSample(model: string): Rec {
  return (samples as unknown as Record<string, (n: number) => Rec>)[model]!(++counter);
}

/**
 * `data` as the service shows it: without secrets (passwords are stored hashed and never returned),
 * and a link it embeds (`_nested_relationships`) as the objects it names, by their `_pk`.
 */
export function shown(model: string, data: object): Rec {
  const spec = models.get(model)!;
  const embedded = new Set(spec.nestedRelationships);
  const asObject = (key: unknown) => ({ _pk: String(key) });
  return Object.fromEntries(
    Object.entries(data)
      .filter(([name]) => !spec.field(name)?.secret)
      .map(([name, value]) =>
        embedded.has(name) && value !== null && value !== undefined
          ? [name, Array.isArray(value) ? value.map(asObject) : asObject(value)]
          : [name, value],
      ),
  );
}

export async function startTestService(
  settings: Record<string, string> = {},
  options: BuildOptions = {},
): Promise<TestService> {
  const database = await freshDatabase(process.env['TEST_DATABASE_URL']);
  const config = loadServiceConfig({
    SVC_CONFIG: 'test/no-service.ini',
    ...database.settings,
    ...settings,
  });
  const db = await openDatabase(config);
  // The app closes the database once built (its database plugin); until then, this does.
  const app = await buildApp(config, db, { logger: false, ...options }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  const client = { baseUrl: `http://localhost${BASE_PATH}`, fetch: injectFetch(app) };
  const service: TestService = {
    app,
    db,
    api: createClient(client),
    http: new Http(client),
    follow: async (url) =>
      (await new Http({ ...client, baseUrl: 'http://localhost' }).send('GET', new URL(url).pathname)).body,
    request: (method, path, body, headers = {}) => {
      const url = /^https?:\/\//.test(path) ? new URL(path).pathname + new URL(path).search : `${BASE_PATH}${path}`;
      return app.inject({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }),
      });
    },
    async seed(name, data = {}) {
      const model = models.get(name)!;
      const sample = nextSample(name);
      const links: Rec = {};
      for (const relation of model.relations) {
        const field = model.field(relation.name);
        if (field?.requiredOnCreate && !(relation.name in data))
          links[relation.name] = service.key(relation.target, await service.seed(relation.target));
      }
      // Repositories store what they are given: defaults are the routes' job, so seeds add them.
      return db.repository(name).create({ data: { ...withDefaults(model, sample), ...links, ...data } });
    },
    key: (name, record) => record[models.get(name)!.primaryKey] as string | number,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
  return service;
}

/**
 * A `fetch` that hands each request to Fastify's `inject`: the client builds the URL, headers and
 * body as it would for the network, and reads the answer as a `Response`.
 */
export function injectFetch(app: FastifyInstance): Fetch {
  return async (url, init) => {
    const { pathname, search } = new URL(url);
    const response = await app.inject({
      method: init.method ?? 'GET',
      url: pathname + search,
      headers: init.headers as Record<string, string>,
      ...(typeof init.body === 'string' ? { payload: init.body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
        headers.append(name, String(one));
    const empty = response.rawPayload.length === 0 || [204, 304].includes(response.statusCode);
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers });
  };
}

/** The `ApiError` a call is refused with; fails the test if the call succeeds or fails otherwise. */
export async function refused(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the service to refuse the request, and it answered with a 2xx');
}

/**
 * What the names of the tests' databases start with: `svc_test_`, or `TEST_DATABASE_PREFIX` where
 * the server's databases must be named otherwise (a shared server's naming rule). Letters, digits
 * and `_`, so that it needs no quoting anywhere.
 */
function testDatabasePrefix(): string {
  const prefix = process.env['TEST_DATABASE_PREFIX'] ?? 'svc_test_';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,40}$/.test(prefix))
    throw new Error(
      `TEST_DATABASE_PREFIX=${JSON.stringify(prefix)}: a database name's start must be a letter or _, then letters, digits or _ (at most 41)`,
    );
  return prefix;
}

/** A database of its own for one test, and the settings that select it. */
async function freshDatabase(
  server: string | undefined,
): Promise<{ settings: Record<string, string>; drop(): Promise<void> }> {
  const name = `${testDatabasePrefix()}${randomBytes(6).toString('hex')}`;
  if (server && /^mongodb(\+srv)?:/.test(server)) {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return {
      settings: { SVC_ENGINE: 'svc_mongodb', SVC_MONGODB_URL: url.href },
      async drop() {
        const client = new MongoClient(url.href);
        try {
          await client.db().dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  }
  if (!server || !/^postgres(ql)?:/.test(server))
    return { settings: { SVC_DATABASE_URL: server ?? 'sqlite::memory:' }, drop: () => Promise.resolve() };
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    settings: { SVC_DATABASE_URL: url.href },
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
