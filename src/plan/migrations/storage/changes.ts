/** What changes between two storage models (diff.ts finds them; the SQL, MongoDB and search steps follow them). */
import type { StoredColumn, StoredTable } from '../../../outdir/storage-model.js';

export type TableChange =
  | { readonly kind: 'create'; readonly table: StoredTable }
  | { readonly kind: 'drop'; readonly table: StoredTable }
  | {
      readonly kind: 'alter';
      readonly before: StoredTable;
      readonly after: StoredTable;
      readonly columns: readonly ColumnChange[];
    };

export type ColumnChange =
  | { readonly kind: 'add'; readonly column: StoredColumn }
  | { readonly kind: 'drop'; readonly column: StoredColumn }
  | {
      readonly kind: 'change';
      readonly before: StoredColumn;
      readonly after: StoredColumn;
      readonly aspects: ReadonlySet<Aspect>;
    };

/**
 * What about a kept column changed. `type`: its SQL type (or SQLite's boolean check); `indexed`,
 * `notIndexed`: the schema's `index` setting (a foreign key keeps its index either way).
 */
export type Aspect =
  | 'name'
  | 'type'
  | 'notNull'
  | 'nullable'
  | 'unique'
  | 'notUnique'
  | 'indexed'
  | 'notIndexed'
  | 'reference'
  | 'documentPath';
