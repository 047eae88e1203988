/** "a Story", "an Item", "a User", "an Update", "an integer" (a U sounds like "you" before a consonant and a vowel). */
export function withArticle(name: string): string {
  return `${/^(?:[aeio]|u(?![b-df-hj-np-tv-z][aeiouy]))/i.test(name) ? 'an' : 'a'} ${name}`;
}
