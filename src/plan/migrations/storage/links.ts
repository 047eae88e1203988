/**
 * Relationships kept in other rows (a trip's `days`, whose foreign key is in `day`): renaming one
 * (`renamed_from`) changes no column, but the model's kept events name it, and a probe's renamed
 * `comments` stayed `comments` in them. The storage model keeps their names (`StoredTable.links`),
 * so that a rename is seen once, and the migration renames it in the kept events (./events.ts).
 */
import { linksOf, type StoredTable } from '../../../outdir/storage-model.js';

/** `[from, to]` of each relationship kept in other rows that `after` renamed since `before`. */
export function linkRenames(before: StoredTable, after: StoredTable): [string, string][] {
  // A file from before svcgen kept links says nothing of them: no rename can be told.
  if (before.links === undefined) return [];
  const previous = new Set(linksOf(before).map((l) => l.name));
  return linksOf(after).flatMap((link) =>
    link.renamedFrom !== null && previous.has(link.renamedFrom) && !previous.has(link.name)
      ? [[link.renamedFrom, link.name] as [string, string]]
      : [],
  );
}
