/**
 * The regular expressions of JSON-schema `pattern`s, as the validator runs them. JavaScript's
 * engine backtracks: svcgen refuses the patterns that take exponential time (SVC2028), and this
 * bounds the text any pattern sees, so that one that is merely polynomial (`\s*x\s*$`) cannot be
 * given a megabyte to chew on. A longer value does not match. Also the patterns of values both the
 * service and svcgen read alike: base64 files, JSON media types.
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

/**
 * Whether `text` is base64 (RFC 4648, with its padding): the `byte` format of a file field.
 * Read in one pass: ajv-formats' own `byte` is a regular expression that overflows the stack on a
 * file of a few megabytes (a 500), and with its `m` flag passes any text that has one valid line.
 */
export function isBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const end = text.endsWith('==') ? text.length - 2 : text.endsWith('=') ? text.length - 1 : text.length;
  for (let i = 0; i < end; i++) if (!BASE64_DIGIT[text.charCodeAt(i)]) return false;
  return true;
}

const BASE64_DIGIT: readonly boolean[] = Array.from({ length: 128 }, (_, code) =>
  /[A-Za-z0-9+/]/.test(String.fromCharCode(code)),
);

/** Schemes a browser runs as script when a link to them is followed or framed. */
const SCRIPT_SCHEME = /^(?:javascript|vbscript):/i;

/**
 * A `uri` or `uri-reference` format (ajv-formats', passed in) that also refuses `javascript:` and
 * `vbscript:` links. They are URIs to RFC 3986, but a stored one is a link a front end renders as
 * `<a href>` and runs in its viewers' pages (stored XSS): no API wants one. The format's own check
 * already refuses the spaces and control characters browsers strip from a scheme ("java\tscript:").
 */
export function withoutScriptLinks(format: unknown): { type: 'string'; validate: (text: string) => boolean } {
  const valid = formatTest(format);
  return { type: 'string', validate: (text) => !isScriptLink(text) && valid(text) };
}

/** Whether `text` is a `javascript:` or `vbscript:` link (which `withoutScriptLinks` refuses). */
export function isScriptLink(text: unknown): boolean {
  return typeof text === 'string' && SCRIPT_SCHEME.test(text);
}

/** Ajv's formats are a regular expression, a function, or either under `validate`. */
function formatTest(format: unknown): (text: string) => boolean {
  const check = typeof format === 'object' && format !== null && 'validate' in format ? format.validate : format;
  if (check instanceof RegExp) return (text) => check.test(text);
  if (typeof check === 'function') return (text) => check(text) === true;
  throw new Error('withoutScriptLinks: the format to wrap is not a check of strings');
}

/**
 * The media types whose bodies the service reads as JSON: `application/json`, and any
 * `application/…+json`, parameters (`; charset=utf-8`) allowed. lib/http/app.ts registers its
 * parser for them (Fastify matches the pattern against the lower-cased type with its parameters),
 * and svcgen warns of a body declared with any other (SVC2078). Not the two patch formats, whose
 * rules a PATCH here does not follow: JSON Patch (`application/json-patch+json`, RFC 6902), a list
 * of operations, and JSON Merge Patch (`application/merge-patch+json`, RFC 7396), whose `null`
 * takes a key out of an object (here it sets the field to null, and a dict is replaced whole: a
 * client's merge of one key wiped the others). A 415 says so.
 */
export const JSON_SUFFIX_MEDIA_TYPE =
  /^application\/(?!(?:x-)?json-patch\+json|(?:x-)?merge-patch\+json)[\w.-][\w.+-]*\+json(?:\s*;.*)?$/;

export function isJsonMediaType(type: string): boolean {
  const lower = type.trim().toLowerCase();
  return lower.split(';')[0]!.trim() === 'application/json' || JSON_SUFFIX_MEDIA_TYPE.test(lower);
}
