/**
 * Names svcgen gives the indexes it makes must not meet: SQLite and PostgreSQL keep index names
 * schema-wide, and a migration that creates an index under a name already taken fails where it
 * runs, at the service's start. Two of svcgen's own names can only meet through a field name:
 * `title_search` marked `"index": true` beside the searched `title` (both `<table>_title_search_idx`).
 */
import { uniquesOf, type StorageModel } from '../../../outdir/storage-model.js';
import { columnIndexName, hasColumnIndex } from './ddl.js';
import type { Finding } from './diff.js';
import { searchIndexName } from './search.js';
import { uniqueIndexName } from './uniques.js';

export function indexNameClashes(storage: StorageModel): Finding[] {
  const owners = new Map<string, string>();
  const findings: Finding[] = [];
  for (const table of storage.tables) {
    // The searched fields' indexes first: a column index is reported at the field that asked for it.
    const named = [
      ...table.search.map((field) => ({ field, name: searchIndexName(table.name, field), what: 'search index' })),
      ...table.columns
        .filter(hasColumnIndex)
        .map((c) => ({ field: c.name, name: columnIndexName(table.name, c.name, 'postgres'), what: 'index' })),
      ...uniquesOf(table).map((set) => ({
        field: set.join(', '),
        name: uniqueIndexName(table.name, set, 'postgres'),
        what: 'unique index',
      })),
    ];
    for (const { field, name, what } of named) {
      const owner = `the ${what} of ${table.model}.${field}`;
      const taken = owners.get(name);
      if (taken === undefined) {
        owners.set(name, owner);
        continue;
      }
      findings.push({
        kind: 'unsupported',
        model: table.model,
        field,
        message: `${owner} would be named ${name}, as is ${taken}`,
        hint: 'rename the field, or leave out its "index": true',
      });
    }
  }
  return findings;
}
