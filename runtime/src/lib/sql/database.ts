/**
 * The SQL engine's `ServiceDatabase`: the repositories of every model on one executor, and the
 * same repositories bound to a transaction's executor inside `transaction`.
 */
import { repositoryByName, type RepositoryFactory, type ServiceDatabase } from '../database.js';
import type { Model, ModelRegistry } from '../model.js';
import { sqlCompiler } from './compiler.js';
import type { SqlDatabase, SqlExecutor } from './executor.js';
import { SqlRepository } from './repository.js';
import { rowRecord } from './row-record.js';
import { SearchIndexer } from './search-index.js';
import type { RowCounts } from './row-counts.js';
import { appendSql, SqlEventLog } from '../outbox/sql-log.js';
import { eventObject } from '../outbox/event.js';
import type { ServiceEvent } from '../outbox/types.js';
import { isStoredRow, storedRecord } from './recorded-writes.js';
import { SqlDeliveryStore } from '../webhooks/sql-store.js';

export interface SqlSettings {
  /** PostgreSQL's text search configuration for `q` (service.ini `search.language`). */
  readonly searchLanguage: string;
  /** The tables' numbers of rows, as `keepRowCounts` checked them at start; absent: pages count rows. */
  readonly rowCounts?: RowCounts;
}

export function sqlDatabase<R extends object>(
  sql: SqlDatabase,
  models: ModelRegistry,
  make: RepositoryFactory<R>,
  settings: SqlSettings = { searchLanguage: 'simple' },
): ServiceDatabase<R> & R {
  const compiler = sqlCompiler(sql.dialect);
  // PostgreSQL's search columns are generated with the row: nothing to catch up.
  const searchIndex = sql.dialect === 'sqlite' ? new SearchIndexer(sql) : undefined;
  // The object of an event stored as its row (lib/sql/recorded-writes.ts), as a read makes it.
  const render = (event: ServiceEvent): ServiceEvent => {
    if (!isStoredRow(event.data)) return sql.dialect === 'postgres' ? inFieldOrder(models, event) : event;
    const { pk, row, links } = event.data;
    const model = models.get(event.type.slice(0, event.type.lastIndexOf('.')));
    try {
      if (model) {
        const record = storedRecord(models, model, event.data, (r) => rowRecord(model, r));
        return { ...event, data: { pk, object: eventObject(models, model, record) } };
      }
    } catch {
      // A value the model no longer reads (its type changed since): the columns as stored, below.
    }
    // Or a model no longer in the API (events stored before it was removed).
    return { ...event, data: { pk, object: { ...row, ...links } } };
  };
  const outbox = { log: new SqlEventLog(sql, render), deliveries: new SqlDeliveryStore(sql) };
  const bind = (executor: SqlExecutor): ServiceDatabase<R> & R => {
    const ctx = {
      executor,
      compiler,
      models,
      searchLanguage: settings.searchLanguage,
      searchIndex,
      rowCounts: settings.rowCounts,
    };
    const repositories = make({
      repository: <T extends object, C, U>(model: Model<T>) => new SqlRepository<T, C, U>(model, ctx),
    });
    const db: ServiceDatabase<R> = {
      engine: 'svc_sqla',
      models,
      repository: repositoryByName(repositories),
      transaction: (work) => executor.transaction((tx) => work(tx === executor ? bound : bind(tx))),
      appendEvents: (events) => appendSql(executor, events),
      outbox,
      ping: () => sql.ping(),
      // Outside a transaction only: inside one, its own writes are not committed yet.
      ...(executor === sql
        ? { watch: (names: readonly string[]) => sql.tableVersion?.(names.map((name) => models.get(name)!.table)) }
        : {}),
      close: async () => {
        searchIndex?.close();
        await settings.rowCounts?.close();
        return sql.close();
      },
    };
    const bound = Object.assign(db, repositories);
    return bound;
  };
  return bind(sql);
}

/**
 * An event as it was appended, its object (and `previous`) with its fields in the model's order, as
 * answers have them: PostgreSQL's jsonb keeps an object's keys by their length, then bytes, and
 * the same event read from SQLite or MongoDB would have another order than from PostgreSQL.
 */
function inFieldOrder(models: ModelRegistry, event: ServiceEvent): ServiceEvent {
  const model = models.get(event.type.slice(0, event.type.lastIndexOf('.')));
  if (!model) return event;
  const ordered = (object: Record<string, unknown>, names: readonly string[]) => {
    const out: Record<string, unknown> = {};
    for (const name of names) if (name in object) out[name] = object[name];
    for (const [name, value] of Object.entries(object)) if (!(name in out)) out[name] = value;
    return out;
  };
  const fields = [...model.fields.map((f) => f.name), '_type', '_pk'];
  const { object, previous } = event.data;
  const data = {
    ...event.data,
    object: ordered(object, fields),
    ...(previous ? { previous: ordered(previous, fields) } : {}),
  };
  return { ...event, data: ordered(data, ['pk', 'object', 'previous', 'changed']) as unknown as ServiceEvent['data'] };
}
