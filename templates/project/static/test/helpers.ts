/**
 * The service under test: a fresh in-memory SQLite database (or `TEST_DATABASE_URL`) for each
 * test, requests injected into Fastify without a network, and `seed` to create objects with
 * valid sample data.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { BASE_PATH, buildApp } from '../src/app.js';
import { loadServiceConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/index.js';
import { models } from '../src/models/index.js';
import { samples } from './samples.js';

type Rec = Record<string, unknown>;

export interface TestService {
  readonly app: FastifyInstance;
  readonly db: Database;
  /** A request below the base path (or to an absolute URL the service gave, such as `_self`). */
  request(method: InjectOptions['method'], path: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** Creates a `model` object with sample data (plus `data`), and what its required links need. */
  seed(model: string, data?: Rec): Promise<Rec>;
  /** The primary key of a record. */
  key(model: string, record: Rec): string | number;
  close(): Promise<void>;
}

let counter = 0;

export async function startTestService(settings: Record<string, string> = {}): Promise<TestService> {
  const config = loadServiceConfig({
    SVC_CONFIG: 'test/no-service.ini',
    SVC_DATABASE_URL: process.env['TEST_DATABASE_URL'] ?? 'sqlite::memory:',
    ...settings,
  });
  const db = await openDatabase(config);
  const app = await buildApp(config, db, { logger: false });
  const service: TestService = {
    app,
    db,
    request: (method, path, body) => {
      const url = /^https?:\/\//.test(path) ? new URL(path).pathname + new URL(path).search : `${BASE_PATH}${path}`;
      return app.inject({ method, url, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) });
    },
    async seed(name, data = {}) {
      const model = models.get(name)!;
      const sample = (samples as unknown as Record<string, (n: number) => Rec>)[name]!(++counter);
      const links: Rec = {};
      for (const relation of model.relations) {
        const field = model.field(relation.name);
        if (field?.requiredOnCreate && !(relation.name in data)) links[relation.name] = service.key(relation.target, await service.seed(relation.target));
      }
      return db.repository(name).create({ data: { ...withDefaults(model, sample), ...links, ...data } });
    },
    key: (name, record) => record[models.get(name)!.primaryKey] as string | number,
    close: async () => {
      await app.close();
      await db.close();
    },
  };
  return service;
}

/** Repositories store what they are given: defaults are the routes' job, so seeds add them. */
function withDefaults(model: NonNullable<ReturnType<typeof models.get>>, data: Rec): Rec {
  const out = { ...data };
  for (const field of model.fields) if (out[field.name] === undefined && field.default) out[field.name] = field.default();
  return out;
}
