/**
 * svcgen's own MongoDB indexes, named after the document field they index: `<field>_unique`
 * (sparse, so that objects without a value do not collide, as with SQL unique columns),
 * `<field>+<field>_unique` (a `_unique_together` set's, `uniqueTogetherIndex`),
 * `<field>_link` (a link's), `<field>_svc_index` (a field the schema marks `index`: a name no one gives an index of their own by chance, since svcgen drops its indexes the model no longer wants), and `svc_search` on the words of full-text search (`_search`, see
 * search.ts). Start-up reconciliation (database.ts) and migrations (migrate.ts)
 * create and recognise them the same way.
 */
import type { Db } from 'mongodb';

export type IndexKind = 'unique' | 'link' | 'svc_index';

export function svcgenIndex(field: string, kind: IndexKind) {
  return {
    key: { [field]: 1 as const },
    name: `${field}_${kind}`,
    ...(kind === 'unique' ? { unique: true, sparse: true } : {}),
  };
}

/**
 * A `_unique_together` set's index, `<field>+<field>_unique` ('+' is in no field name): partial,
 * holding only the documents that have every field (null is absent), so that, as with SQL's
 * unique indexes, an object with any of them null collides with none.
 */
export function uniqueTogetherIndex(fields: readonly string[]) {
  return {
    key: Object.fromEntries(fields.map((f) => [f, 1 as const])),
    name: `${fields.join('+')}_unique`,
    unique: true,
    partialFilterExpression: Object.fromEntries(fields.map((f) => [f, { $exists: true }])),
  };
}

/** The multikey index of the words of full-text search. */
export const SEARCH_INDEX = { key: { _search: 1 as const }, name: 'svc_search' };

/** An index svcgen made (and may drop): other indexes are the user's. */
export function isSvcgenIndex(name: unknown): boolean {
  return /_(unique|link|svc_index)$/.test(String(name)) || name === SEARCH_INDEX.name;
}

export async function collectionExists(db: Db, name: string): Promise<boolean> {
  return db.listCollections({ name }, { nameOnly: true }).hasNext();
}
