/**
 * What the value of each JSON Schema keyword must be for the generated service's validator (Ajv,
 * draft 7, strict) to take it. A value it would not take stopped the generated service at its
 * start, with a stack trace, from a schema `svcgen validate` had passed (`"maxLength": "10"`,
 * `"minimum": "0"`, `"format": "phone"`): here it is a located error, or a warning where JSON
 * Schema itself reads the keyword as a note (an unknown format). Draft 4's boolean
 * `exclusiveMinimum` / `exclusiveMaximum` (`svcgen init` writes draft-4 schemas) is taken, in the
 * number form of the drafts since.
 */
import { closest } from '../../util/suggest.js';

interface Kind {
  readonly holds: (value: unknown) => boolean;
  /** What the value must be, for the message: "a whole number, 0 or more". */
  readonly what: string;
}

const COUNT: Kind = { holds: (v) => Number.isSafeInteger(v) && (v as number) >= 0, what: 'a whole number, 0 or more' };
const NUMBER: Kind = { holds: (v) => typeof v === 'number' && Number.isFinite(v), what: 'a number' };
const BOUND: Kind = {
  holds: (v) => NUMBER.holds(v) || typeof v === 'boolean',
  what: 'a number (or, as draft 4 wrote it, true beside the bound it makes exclusive)',
};
const SCHEMA: Kind = { holds: (v) => isObject(v) || typeof v === 'boolean', what: 'a schema (an object)' };
const SCHEMAS: Kind = {
  holds: (v) => Array.isArray(v) && v.length > 0 && v.every((s) => SCHEMA.holds(s)),
  what: 'a list of schemas',
};
const SCHEMA_MAP: Kind = {
  holds: (v) => isObject(v) && Object.values(v).every((s) => SCHEMA.holds(s)),
  what: 'an object whose values are schemas',
};
const NAMES: Kind = {
  holds: (v) => Array.isArray(v) && v.every((name) => typeof name === 'string'),
  what: 'a list of property names',
};
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** Notes, which the validator knows and checks nothing by. */
const NOTES = ['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment'];

/** Every keyword the validator knows, with what its value must be (`const`, `default`…: anything). */
const KINDS: ReadonlyMap<string, Kind | null> = new Map(
  Object.entries({
    minLength: COUNT,
    maxLength: COUNT,
    minItems: COUNT,
    maxItems: COUNT,
    minProperties: COUNT,
    maxProperties: COUNT,
    minimum: NUMBER,
    maximum: NUMBER,
    exclusiveMinimum: BOUND,
    exclusiveMaximum: BOUND,
    multipleOf: { holds: (v) => NUMBER.holds(v) && (v as number) > 0, what: 'a number above 0' },
    pattern: null, // validation.ts checks it (a safe regular expression)
    format: { holds: (v) => typeof v === 'string', what: 'the name of a format, in a string' },
    enum: { holds: (v) => Array.isArray(v) && v.length > 0, what: 'a list of one value or more' },
    const: null,
    uniqueItems: { holds: (v) => typeof v === 'boolean', what: 'true or false' },
    required: NAMES,
    type: {
      holds: (v) =>
        Array.isArray(v) ? v.length > 0 && v.every((t) => TYPES.includes(t as string)) : TYPES.includes(v as string),
      what: `one of ${TYPES.join(', ')}, or a list of them`,
    },
    items: { holds: (v) => SCHEMA.holds(v) || SCHEMAS.holds(v), what: 'a schema, or a list of schemas' },
    additionalItems: SCHEMA,
    contains: SCHEMA,
    properties: SCHEMA_MAP,
    patternProperties: SCHEMA_MAP,
    additionalProperties: SCHEMA,
    propertyNames: SCHEMA,
    dependencies: {
      holds: (v) => isObject(v) && Object.values(v).every((d) => SCHEMA.holds(d) || NAMES.holds(d)),
      what: 'an object whose values are schemas or lists of property names',
    },
    allOf: SCHEMAS,
    anyOf: SCHEMAS,
    oneOf: SCHEMAS,
    not: SCHEMA,
    if: SCHEMA,
    // oxlint-disable-next-line unicorn/no-thenable -- JSON Schema's keyword, in a table nothing awaits
    then: SCHEMA,
    else: SCHEMA,
    ...Object.fromEntries(NOTES.map((note) => [note, null])),
  } as Record<string, Kind | null>),
);

/** Keywords that combine or condition schemas: taken inside a subschema, not on a property or a root (SVC2120). */
export const COMBINING_KEYWORDS: ReadonlySet<string> = new Set([
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependencies',
  'contains',
]);

/**
 * The formats the validator checks: ajv-formats' own, which the generated service's Fastify adds,
 * and which its app.ts replaces some of (`byte`, `date-time`, `date`, `uri`, `uri-reference`).
 */
export const CHECKED_FORMATS: ReadonlySet<string> = new Set([
  'date',
  'time',
  'date-time',
  'iso-time',
  'iso-date-time',
  'duration',
  'uri',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'regex',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
  'byte',
  'int32',
  'int64',
  'float',
  'double',
  'password',
  'binary',
]);

/** Whether the validator knows `keyword` (an unknown one stops it, strict as it is). */
export function isValidatorKeyword(keyword: string): boolean {
  return KINDS.has(keyword);
}

/** Whether the validator checks values by `keyword` (it knows it, and it is no note such as `description`). */
export function isRuleKeyword(keyword: string): boolean {
  return KINDS.has(keyword) && !NOTES.includes(keyword);
}

/** What is wrong with `value` as the value of `keyword`, or undefined when the validator takes it. */
export function valueProblem(keyword: string, value: unknown): string | undefined {
  const kind = KINDS.get(keyword);
  if (!kind || kind.holds(value)) return undefined;
  return `"${keyword}" must be ${kind.what}, not ${JSON.stringify(value)}`;
}

/** The validator's keyword `keyword` is nearly (`maxlenght`), for a key it does not know. */
export function nearKeyword(keyword: string): string | undefined {
  return closest(keyword, [...KINDS.keys()]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
