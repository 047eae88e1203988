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
