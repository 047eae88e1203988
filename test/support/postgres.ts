/**
 * PostgreSQL for the end-to-end tests: `SVCGEN_PG_URL` when set, else the throwaway cluster of
 * scripts/postgres.sh, started by the first test that needs it and shared by the test files (its
 * server binaries come with `npm ci`; see the script). Each suite gets a database of its own.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from './paths.js';

let server: Promise<string> | undefined;

export function postgresServer(): Promise<string> {
  server ??= (async () => {
    if (process.env['SVCGEN_PG_URL']) return process.env['SVCGEN_PG_URL'];
    const started = await execa('bash', [join(repoRoot, 'scripts/postgres.sh'), 'start'], { reject: false, all: true });
    if (started.exitCode !== 0) {
      throw new Error(
        `PostgreSQL is needed for these tests and could not be started by scripts/postgres.sh (or set SVCGEN_PG_URL):\n${started.all}`,
      );
    }
    return started.stdout.trim().split('\n').pop()!;
  })();
  return server;
}

type PgClient = {
  connect(): Promise<void>;
  query(sql: string): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
};

/** Runs `sql` on the PostgreSQL database `url` with the `pg` of a generated project's dependencies. */
export async function runPostgres(projectDir: string, url: string, sql: string): Promise<void> {
  await queryPostgres(projectDir, url, sql);
}

/** The rows `sql` selects on the PostgreSQL database `url` (the project's `pg`, as `runPostgres`). */
export async function queryPostgres(projectDir: string, url: string, sql: string): Promise<unknown[]> {
  const pg = createRequire(join(projectDir, 'node_modules', 'noop.js'))('pg') as {
    Client: new (options: { connectionString: string }) => PgClient;
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A new, empty database; `drop` removes it. */
export async function freshPostgresDatabase(
  projectDir: string,
  label: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = await postgresServer();
  const name = `svcgen_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await runPostgres(projectDir, admin, `create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => runPostgres(projectDir, admin, `drop database if exists ${name} with (force)`) };
}
