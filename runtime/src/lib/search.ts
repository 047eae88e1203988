/**
 * Full-text search (`q`, `_search_fields`), the part every engine shares: what a
 * word is, and which fields a search looks in. The engines index the same words: SQLite FTS5's
 * `unicode61 remove_diacritics 2` tokenizer, PostgreSQL's `svc_search_fold` before
 * `to_tsvector`, and on MongoDB the `_search` array this module's `searchTokens` fills.
 */
import type { FieldSpec, Model } from './model.js';

/** A search: every word must appear as a whole word in at least one of the fields (any one per word). */
export interface SearchFilter {
  /** Distinct canonical words (`words`); none matches nothing. */
  readonly words: readonly string[];
  /**
   * How the caller spelled each word (lower-cased, with its diacritics), by word, where that
   * differs: SQLite's tokenizer removes the diacritics of Latin letters only, so it finds `война`
   * (indexed as written) by its spelling, not by the canonical `воина`.
   */
  readonly spellings?: Readonly<Record<string, readonly string[]>>;
  /** The fields to look in, in the model's order; none matches nothing. */
  readonly fields: readonly string[];
}

/** Longer `q` values, or ones with more words, are refused: each word is a condition of the query. */
export const MAX_QUERY_LENGTH = 512;
export const MAX_QUERY_WORDS = 32;

/** Combining marks removed after NFD, as `remove_diacritics 2` does: `naïve` is `naive`. */
const MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

/** Anything but a letter, a digit or a private-use character separates words. */
const SEPARATORS = /[^\p{L}\p{N}\p{Co}]+/u;

/**
 * The canonical words of a text: lower-cased, diacritics removed, split at everything that is
 * not a letter or a digit. So `Le Guin's` is `le guin s`, `isbn-310` is `isbn 310` and `C++` is
 * `c`: punctuation, quotes and the operators of the engines' query languages are never syntax.
 */
export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFD').replace(MARKS, '').split(SEPARATORS).filter(Boolean);
}

/** The distinct words of `q`, with the spellings that differ from them (see `SearchFilter.spellings`). */
export function queryWords(q: string): Pick<SearchFilter, 'words' | 'spellings'> {
  const distinct = [...new Set(words(q))];
  const spellings: Record<string, string[]> = {};
  for (const token of q.normalize('NFC').toLowerCase().split(SEPARATORS)) {
    const [word, ...more] = words(token);
    if (word === undefined || more.length || word === token || !distinct.includes(word)) continue;
    if (!(spellings[word] ??= []).includes(token)) spellings[word].push(token);
  }
  return Object.keys(spellings).length ? { words: distinct, spellings } : { words: distinct };
}

/** The fields a search may look in: the model's text fields (never a password), as svcgen listed them. */
export function searchableFields(model: Model): FieldSpec[] {
  return model.searchFields.map((name) => model.field(name)!);
}

/** Separates a field's name from a word in MongoDB's `_search` entries (a character no word has). */
export const TOKEN_SEPARATOR = '\u001f';

/**
 * MongoDB's `_search` array: `<field>␟<word>` for each word of each field's text, each once.
 * `values`: field name → value (non-text values have no words). A query asks for
 * `<field>␟<word>` of the fields it may look in.
 */
export function searchTokens(values: Iterable<readonly [string, unknown]>): string[] {
  const tokens = new Set<string>();
  for (const [field, value] of values) {
    if (typeof value === 'string') for (const word of words(value)) tokens.add(searchToken(field, word));
  }
  return [...tokens];
}

export function searchToken(field: string, word: string): string {
  return `${field}${TOKEN_SEPARATOR}${word}`;
}

/**
 * How much a match in each field counts for relevance: each searchable field twice the one after
 * it, so that a match in the first (a title) outranks one in the next (a body) on every engine.
 */
export function fieldWeights(model: Model): Map<string, number> {
  const fields = model.searchFields;
  return new Map(fields.map((name, i) => [name, 2 ** (fields.length - 1 - i)]));
}

/** The search a `where` asks for, at its top or in its top-level `AND`s (where a route puts it). */
export function searchOf(where: unknown): SearchFilter | undefined {
  if (typeof where !== 'object' || where === null) return undefined;
  const w = where as { SEARCH?: SearchFilter; AND?: readonly unknown[] };
  if (w.SEARCH) return w.SEARCH;
  for (const part of w.AND ?? []) {
    const found = searchOf(part);
    if (found) return found;
  }
  return undefined;
}

/**
 * `where` without the search `searchOf` finds in it, for a query that applies the search itself:
 * the search is reached through `AND`s only, so the rest joined with it is the same condition.
 */
export function withoutSearch<W>(where: W): W {
  if (typeof where !== 'object' || where === null) return where;
  const w = where as { SEARCH?: SearchFilter; AND?: readonly unknown[] };
  if (w.SEARCH) return { ...where, SEARCH: undefined };
  const at = (w.AND ?? []).findIndex((part) => searchOf(part) !== undefined);
  if (at < 0) return where;
  return { ...where, AND: w.AND!.map((part, i) => (i === at ? withoutSearch(part) : part)) };
}

/** The search a `where` asks for when it is its only condition (`q` without filters, on a top-level collection). */
export function searchOnly(where: unknown): SearchFilter | undefined {
  if (typeof where !== 'object' || where === null) return undefined;
  const keys = Object.keys(where).filter((k) => (where as Record<string, unknown>)[k] !== undefined);
  return keys.length === 1 && keys[0] === 'SEARCH' ? (where as { SEARCH: SearchFilter }).SEARCH : undefined;
}

/**
 * The search a `findMany` orders its results by (best first): the one its `where` asks for, when
 * it asks for no order (no `_sort`) and the search can match something.
 */
export function rankingSearch(args: { where?: unknown; orderBy?: unknown }): SearchFilter | undefined {
  if (!unordered(args.orderBy)) return undefined;
  const search = searchOf(args.where);
  return search && search.words.length && search.fields.length ? search : undefined;
}

function unordered(orderBy: unknown): boolean {
  if (orderBy === undefined) return true;
  return Array.isArray(orderBy) ? orderBy.length === 0 : Object.keys(orderBy as object).length === 0;
}
