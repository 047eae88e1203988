/**
 * Starts the service: reads and checks the settings, opens and migrates the database, listens. On SIGTERM
 * (or Ctrl-C) it stops taking connections, lets requests in flight finish, and closes the database
 * (the app's database plugin does, once the app is closed).
 */
import { buildApp, checkSettings } from './app.js';
import { loadServiceConfig } from './config.js';
import { openDatabase } from './db/index.js';
import { startupMessage } from './lib/config.js';

/** How long in-flight requests may take to finish once a shutdown starts. */
const DRAIN_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  const config = loadServiceConfig();
  // Settings that cannot serve stop the start before it opens, and migrates, the database.
  checkSettings(config);
  // At level debug, every SQL statement (or MongoDB command) is logged, once the app's logger exists.
  let logQuery: ((statement: string) => void) | undefined;
  const traced = config.logLevel === 'debug' || config.logLevel === 'trace';
  const warnings: string[] = [...config.warnings];
  let migrated: readonly string[] = [];
  // Migrations applied by a start that then fails stay applied: said, or the next start looks as if
  // it had had nothing to do.
  const failedAfterMigrating = (error: unknown): never => {
    if (migrated.length)
      console.error(`applied ${migrated.length} migration(s) before the start failed: ${migrated.join(', ')}`);
    throw error;
  };
  const db = await openDatabase(config, {
    onWarning: (message) => warnings.push(message),
    onMigrated: (names) => (migrated = names),
    ...(traced ? { onQuery: (statement: string) => logQuery?.(statement) } : {}),
  }).catch(failedAfterMigrating);
  // Until the app is built, the database is closed here; then by the app.
  const app = await buildApp(config, db).catch(async (error: unknown) => {
    await db.close();
    return failedAfterMigrating(error);
  });
  logQuery = (query) => app.log.debug({ query }, 'query');
  for (const warning of warnings) app.log.warn(warning);
  // One line when this start changed the schema: which migrations it applied.
  if (migrated.length)
    app.log.info({ migrations: migrated }, `applied ${migrated.length} migration(s): ${migrated.join(', ')}`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting');
      process.exit(1);
    }, DRAIN_TIMEOUT_MS).unref();
    try {
      await app.close();
    } finally {
      clearTimeout(timer);
    }
  };
  // A repeated SIGTERM changes nothing; a second Ctrl-C gives up waiting.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => (stopping ? process.exit(130) : void stop('SIGINT')));
  const address = await app.listen({ host: config.host, port: config.port });
  // Fastify names the address; this names the API's root and its reference page.
  const base = `${address}${app.services.basePath}`;
  app.log.info(config.docs ? `serving the API at ${base}/ (reference: ${base}/docs)` : `serving the API at ${base}/`);
}

main().catch((error: unknown) => {
  console.error(`The service could not start: ${startupMessage(error)}`);
  process.exit(1);
});
