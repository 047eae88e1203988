/**
 * `npm run migrate`: applies the migrations to the database of service.ini (with engine =
 * svc_mongodb: their MongoDB steps, then the indexes), then exits.
 * `npm run migrate -- --dry-run`: prints what it would apply (SQL, or MongoDB steps as JSON) and
 * changes nothing.
 */
import { MongoClient } from 'mongodb';
import { loadServiceConfig } from '../config.js';
import { startupMessage, type Config } from '../lib/config.js';
import { migrate, planMigrations } from '../lib/migrate.js';
import { migrateMongo, pendingMongoMigrations } from '../lib/mongo/migrate.js';
import { openSql } from '../lib/sql/executor.js';
import { models } from '../models/index.js';
import { openDatabase } from './index.js';
import { migrations } from './migrations.js';

async function main(): Promise<void> {
  const config = loadServiceConfig();
  for (const warning of config.warnings) console.warn(warning);
  const dryRun = process.argv.slice(2).includes('--dry-run');
  if (config.engine === 'svc_mongodb') return dryRun ? planMongo(config) : migrateMongoDatabase(config);
  const sql = openSql(config.databaseUrl, { root: config.root });
  try {
    if (dryRun) {
      const planned = await planMigrations(sql, migrations);
      printPlan(planned.map((m) => ({ name: m.name, text: m.script.trim(), summary: summaryOf(m.name) })));
      return;
    }
    const applied = await migrate(sql, migrations);
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
  } finally {
    await sql.close();
  }
}

async function migrateMongoDatabase(config: Config): Promise<void> {
  const applied = await onMongo(config, (client) => migrateMongo(client.db(), models, migrations));
  if (applied.length) console.log(`applied ${applied.join(', ')}`);
  // Opening the database creates the indexes (the migrations are applied by now).
  const db = await openDatabase(config);
  await db.close();
  console.log('the MongoDB indexes are in place');
}

async function planMongo(config: Config): Promise<void> {
  const pending = await onMongo(config, (client) => pendingMongoMigrations(client.db(), migrations));
  printPlan(
    pending.map((m) => ({
      name: m.name,
      text: (m.mongodb ?? []).length ? JSON.stringify(m.mongodb, null, 2) : '',
      summary: m.summary ?? [],
    })),
  );
}

async function onMongo<T>(config: Config, work: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = new MongoClient(config.mongodbUrl, { serverSelectionTimeoutMS: 5_000 });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.close();
  }
}

function summaryOf(name: string): readonly string[] {
  return migrations.find((m) => m.name === name)?.summary ?? [];
}

function printPlan(pending: readonly { name: string; text: string; summary: readonly string[] }[]): void {
  if (pending.length === 0) {
    console.log('the database is up to date (dry run: nothing to apply)');
    return;
  }
  console.log(`dry run: ${pending.length} migration(s) to apply, none applied`);
  for (const migration of pending) {
    console.log(`\n-- ${migration.name}`);
    for (const line of migration.summary) console.log(`--   ${line}`);
    console.log(migration.text || '-- (nothing to run on this database; it would only be recorded)');
  }
}

main().catch((error: unknown) => {
  console.error(`Migrating failed: ${startupMessage(error)}`);
  process.exit(1);
});
