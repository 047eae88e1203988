/**
 * A version of some tables' rows on SQLite: another value once any of their rows has been
 * inserted, changed or deleted, by this process or another, SQL behind the service's back
 * included. It lets authentication keep whom a request's credentials name
 * (lib/auth/unchanged-reads.ts) while the user and credential tables are unchanged. SQLite's
 * `data_version` read on the connection that never writes, which it replaces, moved at every
 * commit of the service's own: under a load of writes, every request read its caller again.
 *
 * Read on the connection that writes, outside its transactions, from three parts:
 * - the writes of this connection to the tables, counted as they happen by temporary triggers
 *   (this connection's own, nothing is stored in the database) that call back into the process;
 * - `data_version`, another number once any other connection or process has committed anything;
 * - `schema_version`: at every schema change the triggers are dropped and made again (this
 *   connection dropping a table drops its triggers; renaming it away takes them along), and the
 *   version is another one. They are first made at the first read outside a transaction (made
 *   in one that rolls back, they would be undone with it). Nothing else can undo them: the writer
 *   runs the runtime's statements only, and none drops a temporary trigger or sets `temp_store`.
 *
 * Inside a transaction of the writer there is none: what it has written is not committed, and
 * what others commit meanwhile is not seen by it. The identification it keeps is read on the
 * reader connection, whose reads of one turn share a snapshot (turn-snapshot.ts): the writer's
 * own commits end it as they happen, and a `data_version` seen to move here ends it too
 * (`othersCommitted`), so a read after a version reads at least what that version stands for.
 * Absent on PostgreSQL: reading such a version costs a statement (a round trip), as the read it
 * would save.
 */
import type { TableVersion } from '../database.js';
import { identifier, stringLiteral } from './quoting.js';

/** What this module uses of SQLite's writer connection (better-sqlite3's `Database`). */
export interface SqliteWriter {
  readonly inTransaction: boolean;
  function(name: string, options: { deterministic: boolean }, fn: (table: string) => null): unknown;
  prepare(sql: string): { pluck(): { get(): unknown } };
  exec(sql: string): unknown;
}

const CALLBACK = 'svc_table_written';
const EVENTS = ['insert', 'update', 'delete'] as const;

/**
 * Makes the versions of sets of tables on `writer`; the triggers of each set made at its first
 * read. `othersCommitted`: called when `data_version` is seen to have moved since it was last read
 * (and at its first read).
 */
export function tableVersions(
  writer: SqliteWriter,
  othersCommitted: () => void = () => {},
): (tables: readonly string[]) => TableVersion {
  const writes = new Map<string, number>();
  writer.function(CALLBACK, { deterministic: false }, (table) => {
    writes.set(table, (writes.get(table) ?? 0) + 1);
    return null;
  });
  const dataVersion = writer.prepare('pragma data_version').pluck();
  let lastDataVersion: unknown;
  /** `data_version`, after telling `othersCommitted` if it moved: every read of it goes through here. */
  const committedByOthers = (): unknown => {
    const now = dataVersion.get();
    // The first read too: what moved before it is unknown.
    if (now !== lastDataVersion) othersCommitted();
    lastDataVersion = now;
    return now;
  };
  // Main's only: a statement kept prepared on the temporary schema crashes the process once
  // `pragma temp_store` has reset it (better-sqlite3 12.11, SQLite 3.53).
  const schema = writer.prepare('pragma main.schema_version').pluck();

  return (tables) => {
    const watched = [...new Set(tables)];
    // Dropped first: a trigger that followed a table the service renamed away must not stay there.
    const script = watched
      .flatMap((table) =>
        EVENTS.map((event) => {
          const name = identifier(`svc_watch_${table}_${event}`);
          return `drop trigger if exists temp.${name};
create temp trigger ${name} after ${event} on main.${identifier(table)} begin select ${CALLBACK}(${stringLiteral(table)}); end;`;
        }),
      )
      .join('\n');
    /** The schema the triggers were last made in; none yet: they are made at the first read. */
    let checked: unknown;
    return () => {
      if (writer.inTransaction) return undefined;
      const now = schema.get();
      if (now !== checked) {
        try {
          writer.exec(script);
        } catch {
          // A table gone (dropped behind the service's back): no version until it is back.
          return undefined;
        }
        checked = now;
      }
      let own = 0;
      for (const table of watched) own += writes.get(table) ?? 0;
      return `${String(committedByOthers())}:${String(checked)}:${own}`;
    };
  };
}
