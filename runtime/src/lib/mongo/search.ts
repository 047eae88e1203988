/**
 * Full-text search on MongoDB. `$text` cannot require every word as a whole
 * word (its words are ORed, and quoted phrases match inside words), so each document keeps its
 * words in `_search` (`<field>␟<word>`, lib/search.ts), multikey-indexed: a search is one `$in`
 * per word over the fields the caller may search, and relevance counts the words each field
 * matched, weighted. The same words as SQLite's and PostgreSQL's indexes, so the same answers.
 */
import type { Document } from 'mongodb';
import type { Model } from '../model.js';
import { fieldWeights, searchableFields, searchToken, searchTokens, type SearchFilter } from '../search.js';
import { documentPath } from './values.js';

/** The document field that holds the words; never returned (records are read field by field). */
export const SEARCH_FIELD = '_search';

/** A ranked page's score, for its order only: a name no field has (field names never start with `_`). */
const SCORE_FIELD = '_svc_score';

/** The documents that have every word in one of the fields. */
export function searchMatch(search: SearchFilter): Document {
  if (search.words.length === 0 || search.fields.length === 0) return { _id: { $in: [] } };
  return {
    $and: search.words.map((word) => ({ [SEARCH_FIELD]: { $in: search.fields.map((f) => searchToken(f, word)) } })),
  };
}

/**
 * The aggregation that returns a page of matches, best first: `filter` (which includes the
 * search), a score per document, then key order among equals.
 */
export function rankedPipeline(
  model: Model,
  filter: Document,
  search: SearchFilter,
  page: { skip?: number; limit?: number; projection?: Document },
): Document[] {
  const weights = fieldWeights(model);
  const words = { $ifNull: [`$${SEARCH_FIELD}`, []] };
  const perField = search.fields.map((f) => ({
    $multiply: [weights.get(f)!, { $size: { $setIntersection: [words, search.words.map((w) => searchToken(f, w))] } }],
  }));
  return [
    { $match: filter },
    { $addFields: { [SCORE_FIELD]: { $add: perField } } },
    { $sort: { [SCORE_FIELD]: -1, _id: 1 } },
    ...(page.skip ? [{ $skip: page.skip }] : []),
    ...(page.limit !== undefined ? [{ $limit: page.limit }] : []),
    { $project: page.projection ?? { [SCORE_FIELD]: 0, [SEARCH_FIELD]: 0 } },
  ];
}

/** A document's `_search`, from its stored text fields. */
export function documentWords(model: Model, doc: Document): string[] {
  return searchTokens(searchableFields(model).map((f) => [f.name, doc[documentPath(model, f.column!)]] as const));
}

/** Whether a change (`$set`/`$unset`) touches a searched field: the document's words must follow. */
export function changesWords(model: Model, change: Document | null): boolean {
  if (!change || model.searchFields.length === 0) return false;
  const paths = new Set(searchableFields(model).map((f) => documentPath(model, f.column!)));
  return [change['$set'], change['$unset']].some((part) => Object.keys(part ?? {}).some((path) => paths.has(path)));
}
