/** `npm run migrate`: applies the migrations to the database of service.ini, then exits. */
import { loadServiceConfig } from '../config.js';
import { startupMessage } from '../lib/config.js';
import { migrate } from '../lib/migrate.js';
import { openSql } from '../lib/sql/executor.js';
import { migrations } from './migrations.js';

async function main(): Promise<void> {
  const config = loadServiceConfig();
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
