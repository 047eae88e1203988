/**
 * The words of a text as PostgreSQL indexes and searches them: lower case, no diacritics, every
 * run of anything but letters and digits one space — the words SQLite's `unicode61
 * remove_diacritics 2` tokenizer makes (lib/search.ts `words`). svcgen's migrations create
 * `svc_search_fold(value)` with this body, which searches call on their words; the search vector
 * columns spell it out instead: PostgreSQL inlines a SQL function in a generated column again for
 * every statement that writes the row, ~9 µs per column (a POST with two searched fields: 0.190
 * against 0.172 ms, pgbench).
 */
export function foldedText(value: string): string {
  return `regexp_replace(regexp_replace(normalize(lower(${value} collate "und-x-icu"), nfd), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g')`;
}

/** A search vector column's expression: the folded words of `field` (a quoted identifier) in `language`. */
export function vectorOf(field: string, language: string): string {
  return `to_tsvector('${language}'::regconfig, ${foldedText(field)})`;
}
