/**
 * The schema's evolution: the storage model svcgen generated from (src/db/storage.json), every
 * migration so far as the out-dir holds it, the new one when the API changed storage, and the
 * index that applies them in order.
 */
import { planned, type Artifact, type PlannedFile } from '../artifact.js';
import { templateSource as template } from '../views.js';
import { STORAGE_FILE } from '../../outdir/manifest.js';
import { migrationsIndexView, storageJson } from './plan.js';

/** Said in the header of each migration: once written, a migration is the user's database's history. */
const MIGRATION_PURPOSE =
  'A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.';

export const migrations: Artifact = {
  name: 'migrations',
  files: ({ history, migrations: plan }) => [
    planned(STORAGE_FILE, '', { kind: 'text', content: storageJson(plan.storage) }),
    planned(
      'src/db/migrations.ts',
      'Every migration of the schema, in the order they are applied.',
      template('migrations.ts', migrationsIndexView(plan.names)),
    ),
    ...history.migrations.map((existing): PlannedFile =>
      planned(existing.path, '', { kind: 'verbatim', content: existing.content }, 'migration'),
    ),
    ...(plan.added
      ? [planned(plan.added.path, MIGRATION_PURPOSE, template('migration.ts', plan.added.view), 'migration')]
      : []),
  ],
};
