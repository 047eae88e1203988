/**
 * The regular expressions of JSON-schema `pattern`s, as the validator runs them. JavaScript's
 * engine backtracks: svcgen refuses the patterns that take exponential time (SVC2028), and this
 * bounds the text any pattern sees, so that one that is merely polynomial (`\s*x\s*$`) cannot be
 * given a megabyte to chew on. A longer value does not match.
 */
export const MAX_PATTERN_INPUT = 4096;

class BoundedPattern {
  readonly #regExp: RegExp;

  constructor(pattern: string, flags: string) {
    this.#regExp = new RegExp(pattern, flags);
  }

  test(text: string): boolean {
    return text.length <= MAX_PATTERN_INPUT && this.#regExp.test(text);
  }

  /** Ajv keeps one compiled pattern per distinct text, keyed by this. */
  toString(): string {
    return this.#regExp.toString();
  }
}

/** Ajv's `code.regExp` option. */
export const boundedRegExp = Object.assign((pattern: string, flags: string) => new BoundedPattern(pattern, flags), {
  code: 'boundedRegExp',
});
