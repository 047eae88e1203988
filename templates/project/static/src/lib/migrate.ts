/**
 * Applies the SQL migrations of `src/db/migrations.ts` in order, once each, recording them in
 * `svc_migrations`. A migration that was applied and has changed since stops the service: the
 * database no longer matches the code.
 */
import { createHash } from 'node:crypto';
import type { SqlDatabase } from './sql/executor.js';

export interface Migration {
  readonly name: string;
  readonly sqlite: string;
  readonly postgres: string;
}

/** Any constant: the PostgreSQL advisory lock that lets one instance migrate at a time. */
const MIGRATION_LOCK = 7_316_001;

/**
 * All pending migrations run in one transaction. Several instances starting at once on one
 * PostgreSQL database take turns (an advisory lock); SQLite lets one writer in at a time anyway.
 */
export async function migrate(db: SqlDatabase, migrations: readonly Migration[]): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (tx.dialect === 'postgres')
      await tx.all({ sql: 'select pg_advisory_xact_lock($1)', parameters: [MIGRATION_LOCK] });
    await tx.execute(
      'create table if not exists svc_migrations (name varchar(200) primary key, checksum varchar(64) not null, applied_at varchar(32) not null)',
    );
    const rows = await tx.all<{ name: string; checksum: string }>({
      sql: 'select name, checksum from svc_migrations',
      parameters: [],
    });
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const done: string[] = [];
    for (const migration of migrations) {
      const sql = tx.dialect === 'sqlite' ? migration.sqlite : migration.postgres;
      const checksum = createHash('sha256').update(sql).digest('hex');
      const previous = applied.get(migration.name);
      if (previous === checksum) continue;
      if (previous !== undefined) {
        throw new Error(
          `migration ${migration.name} was applied to this database but has changed since; the database does not match the service (recreate it, or write a new migration)`,
        );
      }
      await tx.execute(sql);
      const record = `insert into svc_migrations (name, checksum, applied_at) values (${tx.dialect === 'sqlite' ? '?, ?, ?' : '$1, $2, $3'})`;
      await tx.run({ sql: record, parameters: [migration.name, checksum, new Date().toISOString()] });
      done.push(migration.name);
    }
    return done;
  });
}
