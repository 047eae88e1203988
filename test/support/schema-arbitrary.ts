/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI document: values a schema accepts
 * (for valid bodies and parameters), within small bounds so that requests stay quick. The
 * keywords are those svcgen's documents use; anything else is any small JSON value.
 */
import fc from 'fast-check';
import { atPointer } from './conformance.js';

type Json = Record<string, unknown>;

export class SchemaArbitraries {
  constructor(readonly document: Json) {}

  /** A value `schema` accepts (`$ref`s into the document followed). */
  valid(schema: Json, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if ('const' in s) return fc.constant(s['const']);
    if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
    if (Array.isArray(s['anyOf']))
      return fc.oneof(...(s['anyOf'] as Json[]).map((branch) => this.valid(branch, depth)));
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : typeof s['type'] === 'string' ? [s['type']] : [];
    if (types.length === 0) return smallJson();
    return fc.oneof(...types.map((type) => this.ofType(type, s, depth)));
  }

  /** A value of the same shape but anything inside: wrong types, unknown fields, nulls. */
  invalid(schema: Json): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const properties = (s['properties'] as Json | undefined) ?? {};
    const names = Object.keys(properties);
    const wrongField = names.length
      ? fc
          .tuple(this.valid(s), fc.constantFrom(...names), smallJson())
          .map(([value, name, junk]) => ({ ...(value as Json), [name]: junk }))
      : smallJson();
    return fc.oneof(smallJson(), wrongField, fc.constant({ not_a_field: 1 }), fc.constant([]));
  }

  resolve(schema: Json): Json {
    let s = schema;
    for (let i = 0; typeof s['$ref'] === 'string' && i < 10; i++) s = atPointer(this.document, s['$ref']) as Json;
    return s;
  }

  private ofType(type: string, s: Json, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = Math.max(num(s['minimum'], -1000), -1000);
        const max = Math.min(num(s['maximum'], 1000), 1000);
        // Mostly the small keys that exist (links to related objects are integers too).
        const small = fc.integer({ min: Math.max(min, 1), max: Math.min(max, 3) });
        return min <= 3 && max >= 1
          ? fc.oneof({ weight: 3, arbitrary: small }, { weight: 1, arbitrary: fc.integer({ min, max }) })
          : fc.integer({ min, max });
      }
      case 'number':
        return fc
          .double({
            min: Math.max(num(s['minimum'], -1000), -1000),
            max: Math.min(num(s['maximum'], 1000), 1000),
            noNaN: true,
            noDefaultInfinity: true,
          })
          .filter(
            (n) =>
              (s['exclusiveMaximum'] === undefined || n < num(s['exclusiveMaximum'], 0)) &&
              (s['exclusiveMinimum'] === undefined || n > num(s['exclusiveMinimum'], 0)),
          );
      case 'string':
        return this.string(s);
      case 'array':
        return depth > 2
          ? fc.constant([])
          : fc.array(this.valid((s['items'] as Json | undefined) ?? {}, depth + 1), { maxLength: 3 });
      case 'object':
        return depth > 2 ? fc.constant({}) : this.object(s, depth);
      default:
        return smallJson();
    }
  }

  private string(s: Json): fc.Arbitrary<string> {
    const minLength = num(s['minLength'], 0);
    const maxLength = Math.min(num(s['maxLength'], 24), 24);
    const fits = (text: string) => text.length >= minLength && text.length <= num(s['maxLength'], Infinity);
    if (s['format'] === 'date-time') return isoDate().map((d) => `${d.toISOString().slice(0, 19)}Z`);
    if (s['format'] === 'date') return isoDate().map((d) => d.toISOString().slice(0, 10));
    if (typeof s['pattern'] === 'string') return fc.stringMatching(new RegExp(s['pattern'])).filter(fits);
    return fc.string({ minLength, maxLength: Math.max(minLength, maxLength), unit: 'grapheme' });
  }

  private object(s: Json, depth: number): fc.Arbitrary<Json> {
    const properties = (s['properties'] as Record<string, Json> | undefined) ?? {};
    const required = new Set((s['required'] as string[] | undefined) ?? []);
    const entries = Object.entries(properties);
    if (entries.length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), smallJson(), { maxKeys: 3 });
    return fc.record(Object.fromEntries(entries.map(([name, p]) => [name, this.valid(p, depth + 1)])), {
      requiredKeys: entries.map(([name]) => name).filter((name) => required.has(name)),
    });
  }
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

function isoDate(): fc.Arbitrary<Date> {
  return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
}

/** Small JSON values of every kind, with text that tends to break parsers and query builders. */
export function smallJson(): fc.Arbitrary<unknown> {
  const hostile = fc.constantFrom(
    "'",
    '"',
    '\\',
    '%',
    '_',
    '*',
    '(',
    ')',
    '--',
    ';',
    '\u0000',
    '𝄞',
    '../',
    'null',
    '1e309',
    '-0',
    '{"$gt":""}',
  );
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 12 }),
    hostile,
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), hostile), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), hostile), { maxKeys: 2 }),
  );
}
