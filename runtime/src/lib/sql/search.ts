/**
 * Full-text search on SQL, over the indexes the migrations create:
 *
 * - SQLite: the FTS5 table `svc_search_<table>` (external content: it indexes the table's text
 *   columns and is kept in step by triggers). A search is one MATCH of quoted words, restricted
 *   by a column filter to the fields the caller may search: `{"title" "body"} : ("w1" "w2")`.
 * - PostgreSQL: a `tsvector` column `svc_search_<field>` per text field (generated from the
 *   field's folded text, search-fold.ts; GIN-indexed), so that any set of fields can be searched
 *   through the indexes: each word must match one of the fields' vectors.
 *
 * Words are canonical (lib/search.ts) and always bound parameters: no user text is ever syntax.
 * On PostgreSQL a statement with `@@` is planned for its words each time (statement-names.ts).
 */
import { createHash } from 'node:crypto';
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Model } from '../model.js';
import { fieldWeights, type SearchFilter } from '../search.js';
import type { Dialect } from '../values.js';
import { ftsColumn, ftsTable } from './search-index.js';

export interface SearchTarget {
  readonly model: Model;
  readonly dialect: Dialect;
  /** PostgreSQL's text search configuration (`search.language`). */
  readonly language: string;
}

/** The PostgreSQL `tsvector` column of a field (src/plan/storage/search.ts creates it). */
export function vectorColumn(field: string): string {
  return pgIdentifier(`svc_search_${field}`);
}

/** PostgreSQL cuts names at 63 bytes: a longer one keeps its start and ends with a hash of the whole (as svcgen names them). */
export function pgIdentifier(name: string): string {
  if (Buffer.byteLength(name) <= 63) return name;
  let start = name.slice(0, 54);
  while (Buffer.byteLength(start) > 54) start = start.slice(0, -1);
  return `${start}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

/** The rows that match: a condition on the model's table. */
export function searchCondition(target: SearchTarget, search: SearchFilter): Expression<SqlBool> {
  if (search.words.length === 0 || search.fields.length === 0) return sql<SqlBool>`1 = 0`;
  const table = target.model.table;
  if (target.dialect === 'sqlite') {
    const fts = sql.id(ftsTable(table));
    return sql<SqlBool>`${sql.ref(`${table}.rowid`)} in (select rowid from ${fts} where ${fts} match ${ftsQuery(search)})`;
  }
  const everyWord = search.words.map((word) => {
    const query = tsquery(target.language, word);
    const matches = search.fields.map((f) => sql`${sql.ref(`${table}.${vectorColumn(f)}`)} @@ ${query}`);
    // A configuration that skips stop words (english: `the`) makes no query of one: it is no condition.
    if (target.language !== 'simple') matches.unshift(sql`numnode(${query}) = 0`);
    return sql`(${sql.join(matches, sql` or `)})`;
  });
  // … unless every word is one: `q=the` finds nothing, as a `q` without words.
  if (target.language !== 'simple')
    everyWord.push(sql`numnode(${tsquery(target.language, search.words.join(' '))}) > 0`);
  return sql<SqlBool>`(${sql.join(everyWord, sql` and `)})`;
}

/**
 * FTS5's query: each word a quoted string (so `AND`, `NEAR`, `*` and `-` are words), or its
 * spellings ORed, under a column filter of the fields to search.
 */
export function ftsQuery(search: SearchFilter): string {
  const columns = search.fields.map((f) => quoted(ftsColumn(f))).join(' ');
  const word = (w: string) => {
    const spellings = search.spellings?.[w] ?? [];
    return spellings.length ? `(${[w, ...spellings].map(quoted).join(' OR ')})` : quoted(w);
  };
  return `{${columns}} : (${search.words.map(word).join(' AND ')})`;
}

function quoted(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A word as PostgreSQL matches it: folded as the indexed text is, never parsed as tsquery syntax. */
function tsquery(language: string, word: string): RawBuilder<unknown> {
  return sql`plainto_tsquery(${language}::regconfig, svc_search_fold(${word}))`;
}

/**
 * SQLite: the matches with their BM25 score (`svc_rank`, smaller is better), to join on the
 * table's rowid. A field's weight counts only when the caller may search it; the others weigh 0.
 */
export function rankedMatches(model: Model, search: SearchFilter, best?: number): RawBuilder<unknown> {
  const weights = fieldWeights(model);
  const perColumn = model.searchFields.map((f) => sql.lit(search.fields.includes(f) ? weights.get(f)! : 0));
  const fts = sql.id(ftsTable(model.table));
  // Only the `best` first: the ranks of the others are computed, never sorted nor joined.
  const top = best === undefined ? sql`` : sql` order by svc_rank, rowid limit ${sql.lit(best)}`;
  return sql`(select rowid as svc_rowid, bm25(${fts}, ${sql.join(perColumn)}) as svc_rank from ${fts} where ${fts} match ${ftsQuery(search)}${top})`;
}

/**
 * SQLite: the rowids of the matches (`svc_rowid`), to join on the table's rowid. FTS5 hands them
 * over in rowid order, so a page in key order reads the index only as far as the page goes,
 * where a condition on the rowid would look every match up and sort them all.
 */
export function matchingRowids(model: Model, search: SearchFilter): RawBuilder<unknown> {
  const fts = sql.id(ftsTable(model.table));
  return sql`(select rowid as svc_rowid from ${fts} where ${fts} match ${ftsQuery(search)})`;
}

/** SQLite: how many rows match, from the index alone. */
export function countMatches(model: Model, search: SearchFilter): RawBuilder<{ n: number }> {
  if (search.words.length === 0 || search.fields.length === 0) return sql<{ n: number }>`select 0 as n`;
  const fts = sql.id(ftsTable(model.table));
  return sql<{ n: number }>`select count(*) as n from ${fts} where ${fts} match ${ftsQuery(search)}`;
}

/**
 * PostgreSQL: the relevance of a row (larger is better): each searched field's `ts_rank`, weighted.
 * A field without text (null) ranks 0: `ts_rank` of a null vector is null, which would make the
 * whole sum null, and nulls come first in a descending order.
 */
export function relevance(target: SearchTarget, search: SearchFilter): RawBuilder<number> {
  const weights = fieldWeights(target.model);
  const anyWord = sql.join(
    search.words.map((w) => tsquery(target.language, w)),
    sql` || `,
  );
  const ranks = search.fields.map(
    (f) =>
      sql`${sql.lit(weights.get(f)!)} * coalesce(ts_rank(${sql.ref(`${target.model.table}.${vectorColumn(f)}`)}, ${anyWord}), 0)`,
  );
  return sql<number>`(${sql.join(ranks, sql` + `)})`;
}
