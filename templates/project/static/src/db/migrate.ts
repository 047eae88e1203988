/**
 * `npm run migrate`: applies the migrations to the database of service.ini (with engine =
 * svc_mongodb: creates the indexes), then exits.
 */
import { loadServiceConfig } from '../config.js';
import { startupMessage } from '../lib/config.js';
import { migrate } from '../lib/migrate.js';
import { openSql } from '../lib/sql/executor.js';
import { openDatabase } from './index.js';
import { migrations } from './migrations.js';

async function main(): Promise<void> {
  const config = loadServiceConfig();
  if (config.engine === 'svc_mongodb') {
    const db = await openDatabase(config);
    await db.close();
    console.log('the MongoDB indexes are in place');
    return;
  }
  const sql = openSql(config.databaseUrl, { root: config.root });
  try {
    const applied = await migrate(sql, migrations);
    console.log(applied.length ? `applied ${applied.join(', ')}` : 'the database is up to date');
  } finally {
    await sql.close();
  }
}

main().catch((error: unknown) => {
  console.error(`Migrating failed: ${startupMessage(error)}`);
  process.exit(1);
});
