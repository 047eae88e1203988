/**
 * The schema's history as the out-dir holds it: the storage model
 * the latest migration leaves (`src/db/storage.json`) and the migration modules already written
 * (`src/db/migrations/NNNN_*.ts`). Like the rest of the out-dir it is untrusted: paths are
 * checked as for writing, the storage model is checked value by value, and a migration the
 * manifest records but the disk lacks is an error (a database may have run it).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { parseStorageModel, type StorageModel } from './storage-model.js';
import { checkReadPaths, fileAt, type OutDir } from './out-dir.js';
import { contentHash } from '../output.js';
import { readText } from './previous.js';
import { MIGRATION_NAME, MIGRATIONS_DIR, STORAGE_FILE } from './manifest.js';

/** What the out-dir holds of the project's schema history (read and checked here). */
export interface MigrationHistory {
  /** The storage model the latest migration leaves, or null when the project has none yet. */
  readonly storage: StorageModel | null;
  /** The migration modules already written, in order. */
  readonly migrations: readonly ExistingMigration[];
}

export interface ExistingMigration {
  /** `0002_add_story_subtitle` */
  readonly name: string;
  readonly path: string;
  readonly content: string;
}

export const NO_HISTORY: MigrationHistory = { storage: null, migrations: [] };

/** The history, or undefined when it cannot be trusted (reported). */
export function readHistory(out: OutDir, bag: DiagnosticBag): MigrationHistory | undefined {
  const names = migrationFiles(out.real);
  const paths = [STORAGE_FILE, ...names.map((n) => `${MIGRATIONS_DIR}/${n}.ts`)];
  if (!checkReadPaths(out, paths, bag)) return undefined;
  const storageText = readText(join(out.real, STORAGE_FILE));
  const migrations: ExistingMigration[] = names.map((name) => {
    const path = `${MIGRATIONS_DIR}/${name}.ts`;
    return { name, path, content: readText(join(out.real, path)) ?? '' };
  });
  warnOfEditedMigrations(out, migrations, bag);
  let ok = true;
  for (const [path, entry] of Object.entries(out.manifest?.files ?? {})) {
    if (entry.owner !== 'migration' || migrations.some((m) => m.path === path)) continue;
    bag.report('SVC3106', `migration ${path} was written by svcgen and is gone`, {
      span: fileAt(join(out.shown, path)),
      hint: 'restore it from version control: databases that ran it expect it, and new databases need it',
    });
    ok = false;
  }
  if (storageText === undefined) return ok ? { ...NO_HISTORY, migrations } : undefined;
  const storage = parseStorageModel(storageText);
  if ('problem' in storage) {
    bag.report('SVC3105', `${STORAGE_FILE} cannot be read: ${storage.problem}`, {
      span: fileAt(join(out.shown, STORAGE_FILE)),
      hint: 'svcgen writes this file and compares the next version of the API with it; restore it from version control',
    });
    return undefined;
  }
  return ok ? { storage, migrations } : undefined;
}

/**
 * A migration that is not as svcgen wrote it. Before any database ran it, that may be meant (a step
 * added by hand); after, every database that ran it refuses to start (lib/migrate.ts). Said until
 * the next generation records it as it is.
 */
function warnOfEditedMigrations(out: OutDir, migrations: readonly ExistingMigration[], bag: DiagnosticBag): void {
  for (const migration of migrations) {
    const recorded = out.manifest?.files[migration.path];
    if (recorded?.owner !== 'migration' || contentHash(migration.content) === recorded.sha256) continue;
    bag.report('SVC3107', `migration ${migration.path} is not as svcgen wrote it, or last recorded it`, {
      span: fileAt(join(out.shown, migration.path)),
      hint: 'a database that already ran it refuses to start: restore it, and change the storage in a new migration; if no database has run it yet, generating again records it as it is (as it does a migration restored to what svcgen first wrote, after an edit was recorded)',
    });
  }
}

/** `0002_add_story_subtitle` for each migration module in the out-dir, in order. */
function migrationFiles(realOut: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(realOut, MIGRATIONS_DIR));
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith('.ts') && MIGRATION_NAME.test(f.slice(0, -3)))
    .map((f) => f.slice(0, -3))
    .sort();
}
