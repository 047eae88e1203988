/**
 * Values as text where the service compares or shows them as text: keys (strings or numbers) and
 * the scalar values databases return. An object is written as JSON, never as `[object Object]`.
 */
export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  // What is left is a number, a bigint, a boolean, a symbol, null or undefined.
  return String(value);
}

/** How many characters (code points, as JSON Schema's lengths count them) `value` has. */
export function characters(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/** "a Story", "an Item", "a User", "an Update", "an integer" (a U sounds like "you" before a consonant and a vowel). */
export function withArticle(name: string): string {
  return `${/^(?:[aeio]|u(?![b-df-hj-np-tv-z][aeiouy]))/i.test(name) ? 'an' : 'a'} ${name}`;
}

/**
 * The UTF-8 bytes a value of a unique, indexed or key text field may have, on every engine: an
 * entry of PostgreSQL's index takes at most 2,704, and SQLite's any number, so a probe's 9,000
 * character email registered on SQLite and was a 400 on PostgreSQL (a database moved from one to
 * the other could not take its own rows).
 */
export const INDEXED_TEXT_BYTES = 2000;

/** Whether `value` is more than `bytes` bytes of UTF-8 (a short text is not measured: 3 bytes a UTF-16 unit at most). */
export function longerThan(value: string, bytes: number): boolean {
  return value.length * 3 > bytes && Buffer.byteLength(value, 'utf8') > bytes;
}

/** Whether `value` is longer than an index entry may be. */
export function tooLongToIndex(value: string): boolean {
  return longerThan(value, INDEXED_TEXT_BYTES);
}

export const TOO_LONG_TO_INDEX = `is longer than an indexed text may be: at most ${INDEXED_TEXT_BYTES} bytes of UTF-8 (as many characters of plain ASCII)`;

/**
 * The UTF-8 bytes a searched text may have, on every engine: PostgreSQL's search column holds at
 * most 1 MB of words and their positions, which distinct short words take 2.4 times the bytes of
 * their text for (400,000 bytes of `1 2 … 1387f` made a column of 956,766), where SQLite's index
 * takes any. A probe's 1 MB description was a 201 on SQLite and a 400 on PostgreSQL.
 */
export const SEARCHED_TEXT_BYTES = 300_000;

/** Whether `value` is longer than a searched text may be. */
export function tooLongToSearch(value: string): boolean {
  return longerThan(value, SEARCHED_TEXT_BYTES);
}

export const TOO_LONG_TO_SEARCH = `is longer than a searched text may be: at most ${SEARCHED_TEXT_BYTES.toLocaleString('en')} bytes of UTF-8 (its field is in full-text search)`;
