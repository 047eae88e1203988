/**
 * PostgreSQL indexes words with a text search configuration (service.ini `search.language`).
 * The migrations create the search vectors with `simple`, so that their SQL, and its checksum,
 * does not depend on a setting; at every start the service checks that each vector column uses
 * the configured language and rebuilds the ones that do not (after a change of the setting),
 * before it serves a request: indexed words and query words are always made the same way.
 */
import { ConfigError } from '../config.js';
import type { ModelRegistry } from '../model.js';
import type { SqlDatabase, SqlExecutor } from './executor.js';
import { identifier } from './quoting.js';
import { pgIdentifier, vectorColumn } from './search.js';
import { vectorOf } from './search-fold.js';

export async function alignSearchLanguage(db: SqlDatabase, models: ModelRegistry, language: string): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const searched = [...models.values()].filter((m) => m.searchFields.length);
  if (searched.length === 0) return;
  await checkLanguage(db, language);
  const stale: { table: string; field: string }[] = [];
  for (const model of searched) {
    for (const field of model.searchFields) {
      const expression = await vectorExpression(db, model.table, vectorColumn(field));
      if (expression !== undefined && !expression.includes(`'${language}'::regconfig`))
        stale.push({ table: model.table, field });
    }
  }
  if (stale.length === 0) return;
  await db.transaction(async (tx) => {
    for (const { table, field } of stale) await rebuildVector(tx, table, field, language);
  });
}

async function checkLanguage(db: SqlExecutor, language: string): Promise<void> {
  const found = await db.all({ sql: 'select 1 from pg_ts_config where cfgname = $1', parameters: [language] });
  if (found.length === 0)
    throw new ConfigError(
      `search.language: PostgreSQL has no text search configuration "${language}" (see \\dF in psql; simple, english, french, ...)`,
    );
}

/** The expression that generates a vector column; undefined when there is no such column. */
async function vectorExpression(db: SqlExecutor, table: string, column: string): Promise<string | undefined> {
  const rows = await db.all<{ expression: string }>({
    sql: `select pg_get_expr(d.adbin, d.adrelid) as expression
      from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
      where d.adrelid = to_regclass(quote_ident($1)) and a.attname = $2`,
    parameters: [table, column],
  });
  return rows[0]?.expression;
}

/**
 * The column again, with the language (a checked name: letters, digits and `_`), and its GIN
 * index. The same shape as the migrations' (svcgen's src/plan/storage/search.ts).
 */
async function rebuildVector(tx: SqlExecutor, table: string, field: string, language: string): Promise<void> {
  const column = vectorColumn(field);
  await tx.execute(
    [
      `alter table ${identifier(table)} drop column ${identifier(column)};`,
      `alter table ${identifier(table)} add column ${identifier(column)} tsvector generated always as (${vectorOf(identifier(field), language)}) stored;`,
      `create index ${identifier(pgIdentifier(`${table}_${field}_search_idx`))} on ${identifier(table)} using gin (${identifier(column)});`,
    ].join('\n'),
  );
}
