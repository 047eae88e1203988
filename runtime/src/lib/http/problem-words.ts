/**
 * How a JSON Schema problem of a body reads to a person: "name must be at most 30 characters
 * long", where ajv says "must NOT have more than 30 characters". The 400 of a client's body says
 * it so (error-handler.ts), and so does the 500 of a value the service's own code gave a field
 * (written-values.ts).
 */
import type { FastifyError } from 'fastify';
import type { FieldError } from '../errors.js';
import { renamedInBody } from '../model.js';
import { closest } from '../suggest.js';
import { isScriptLink } from './patterns.js';

export type SchemaProblem = NonNullable<FastifyError['validation']>[number];

export function bodyProblem(e: SchemaProblem): FieldError[] {
  const params = e.params;
  const path = e.instancePath.replace(/^\//, '').split('/').join('.');
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(params['additionalProperty']);
      // The fields the body's schema names (the OpenAPI document's): `nme` is told of `name`, and
      // a field's name before this version of the API, of its name now.
      const properties = schemaProperties(e);
      const renamed = renamedInBody(properties, name);
      const match = renamed === undefined ? closest(name, Object.keys(properties)) : undefined;
      const hint = renamed !== undefined ? `; it is named ${renamed} now` : match ? `; did you mean ${match}?` : '';
      return [{ field: join(path, name), message: `is not a field here${hint}` }];
    }
    case 'required': {
      const missing = String(params['missingProperty']);
      return [{ field: join(path, missing), message: `is required${foreignKeySent(e, missing)}` }];
    }
    case 'type':
      return [
        path === ''
          ? { field: '(body)', message: 'must be a JSON object' }
          : { field: path, message: `must be ${typeWords(params['type'])}${isNull(e) ? ', not null' : ''}` },
      ];
    case 'enum':
      return [
        {
          field: path,
          message: `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        },
      ];
    case 'format':
      return [{ field: path, message: formatWords(String(params['format']), e) ?? e.message ?? 'is invalid' }];
    case 'pattern':
      // A link to an object with an integer key takes it as a number or its text (`_pk`).
      if (params['pattern'] === INTEGER_KEY)
        return [{ field: path, message: 'must be the key of the object it links to: a whole number' }];
      // A time field's pattern (field-types.ts), which a client was shown as a regular expression.
      if (params['pattern'] === TIME_OF_DAY)
        return [{ field: path, message: 'must be a time of day: HH:MM or HH:MM:SS, from 00:00 to 23:59:59' }];
      return [{ field: path, message: e.message ?? 'is invalid' }];
    case 'anyOf':
    case 'oneOf':
      return [];
    default: {
      const limit = LIMIT_WORDS[e.keyword]?.(params['limit'] ?? params['multipleOf']);
      return [{ field: path || '(body)', message: limit ?? e.message ?? 'is invalid' }];
    }
  }
}

/** A limit's problem as a client reads it: ajv's "must NOT have fewer than 8 characters" says it backwards. */
const LIMIT_WORDS: Readonly<Record<string, (limit: unknown) => string>> = {
  minLength: (n) => `must be at least ${count(n, 'character')} long`,
  maxLength: (n) => `must be at most ${count(n, 'character')} long`,
  minimum: (n) => `must be at least ${String(n)}`,
  maximum: (n) => `must be at most ${String(n)}`,
  exclusiveMinimum: (n) => roundedBound(n, 'least') ?? `must be greater than ${String(n)}`,
  exclusiveMaximum: (n) => roundedBound(n, 'most') ?? `must be less than ${String(n)}`,
  minItems: (n) => `must hold at least ${count(n, 'item')}`,
  maxItems: (n) => `must hold at most ${count(n, 'item')}`,
  minProperties: (n) => `must hold at least ${count(n, 'key')}`,
  maxProperties: (n) => `must hold at most ${count(n, 'key')}`,
  multipleOf: (n) => `must be a multiple of ${String(n)}`,
};

/**
 * A decimal's bound (src/plan/shared/field-types.ts): 9999.995 for numeric(6, 2), whose values are
 * rounded to 2 places, so that 9999.994 fits: a client reads it as "at most 9999.99", not as the
 * half-digit it is written with.
 */
function roundedBound(n: unknown, side: 'least' | 'most'): string | undefined {
  const digits = /^(-?(?:9+|0)(?:\.9*)?)5$/.exec(String(n))?.[1]?.replace(/\.$/, '');
  if (digits === undefined) return undefined;
  const places = digits.includes('.') ? digits.length - digits.indexOf('.') - 1 : 0;
  return `must be at ${side} ${digits} (${places ? `rounded to ${count(places, 'decimal place')}` : 'a whole number, once rounded'})`;
}

function count(n: unknown, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** The properties of the object schema a problem is of (ajv's `verbose` gives it as `parentSchema`). */
function schemaProperties(problem: SchemaProblem): Readonly<Record<string, unknown>> {
  const parent = (problem as { parentSchema?: { properties?: unknown } }).parentSchema;
  return typeof parent?.properties === 'object' && parent.properties !== null
    ? (parent.properties as Readonly<Record<string, unknown>>)
    : {};
}

/** The pattern of a link's integer key given as text (src/plan/shared/field-types.ts `bodySchema`). */
const INTEGER_KEY = '^-?[0-9]+$';
/** The pattern of a time field's values (src/plan/shared/field-types.ts `jsonSchema`). */
const TIME_OF_DAY = '^([01]?\\d|2[0-3]):[0-5]\\d(:[0-5]\\d)?$';

/**
 * A link left out of a body that sends its foreign key instead (`campaign_id` for `campaign`,
 * which the service serves but never takes: writes.ts `checkBody`), said with the missing link.
 */
function foreignKeySent(problem: SchemaProblem, link: string): string {
  const body = (problem as { data?: unknown }).data;
  const key = `${link}_id`;
  const sent = typeof body === 'object' && body !== null && key in body;
  return sent ? ` (${key} is its foreign key, which is not written: send the key as "${link}")` : '';
}

/** A problem with a null value (ajv's `verbose` puts the value in `data`). */
function isNull(problem: SchemaProblem): boolean {
  return (problem as { data?: unknown }).data === null;
}

/** What a value of `format` looks like; a link that would run script is said as what it is. */
function formatWords(format: string, problem: SchemaProblem): string | undefined {
  if ((format === 'uri' || format === 'uri-reference') && isScriptLink((problem as { data?: unknown }).data))
    return 'must not be a javascript: or vbscript: link';
  return FORMAT_WORDS[format];
}

/** What a value of each format looks like, as the filters say it too (query.ts). */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  'date-time':
    'must be a date and time (YYYY-MM-DDTHH:MM:SSZ, or with an offset such as +01:00; one without either is taken as UTC; years 0001 to 9999)',
  date: 'must be a date (YYYY-MM-DD)',
  time: 'must be a time (HH:MM:SS)',
  email: 'must be an email address',
  uri: 'must be an absolute URI, with a scheme (https://example.com/a%20b: a space written as %20)',
  'uri-reference': 'must be a URI or a relative reference (a%20b: a space written as %20)',
  uuid: 'must be a UUID',
  byte: 'must be base64',
};

/** JSON Schema type names as a client reads them: `integer,string,null` → "a whole number, a string or null". */
function typeWords(type: unknown): string {
  const words: Record<string, string> = {
    integer: 'a whole number',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
    array: 'a list',
    object: 'an object',
    null: 'null',
  };
  const list = (Array.isArray(type) ? type : String(type).split(',')).map((t: string) => words[t] ?? t);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : (list[0] ?? 'valid');
}

function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}
