/**
 * The samples of shaped dict fields (src/plan/shared/schema-sample.ts): every value it gives for a
 * schema is one the schema takes (ajv, as the service checks bodies), for random schemas of the
 * keywords it knows; where it cannot be sure of one it says so (undefined) instead of guessing.
 */
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { schemaSample } from '../../src/plan/shared/schema-sample.js';

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

type Schema = Record<string, unknown>;

const scalar: fc.Arbitrary<Schema> = fc.oneof(
  fc.record({ type: fc.constant('string'), minLength: fc.nat(12), maxLength: fc.nat(12) }, { requiredKeys: ['type'] }),
  fc.record(
    {
      type: fc.constantFrom('integer', 'number'),
      minimum: fc.integer({ min: -50, max: 50 }),
      maximum: fc.integer({ min: -50, max: 50 }),
      exclusiveMinimum: fc.integer({ min: -50, max: 50 }),
      multipleOf: fc.integer({ min: 1, max: 7 }),
    },
    { requiredKeys: ['type'] },
  ),
  fc.constant({ type: 'boolean' }),
  fc.record({ enum: fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { minLength: 1, maxLength: 4 }) }),
  fc.record({ type: fc.constant('string'), pattern: fc.constant('^[a-z]+$') }),
);

const schema: fc.Arbitrary<Schema> = fc.letrec<{ node: Schema }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.record(
      {
        type: fc.constant('array'),
        items: tie('node'),
        minItems: fc.nat(3),
        maxItems: fc.nat(3),
        uniqueItems: fc.boolean(),
      },
      { requiredKeys: ['type', 'items'] },
    ),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('node'), { maxKeys: 4 }).chain((properties) =>
      fc.record(
        {
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray([...Object.keys(properties), 'z']),
          additionalProperties: fc.oneof(fc.boolean(), scalar),
          minProperties: fc.nat(3),
          maxProperties: fc.nat(4),
        },
        { requiredKeys: ['type', 'properties'] },
      ),
    ),
  ),
})).node;

describe('a sample of a JSON Schema', () => {
  it('is a value the schema takes, or undefined', () => {
    let sampled = 0;
    fc.assert(
      fc.property(schema, (given) => {
        const value = schemaSample(given);
        if (value === undefined) return;
        sampled++;
        const validate = ajv.compile(given);
        expect(validate(value), `${JSON.stringify(given)} → ${JSON.stringify(value)}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
    // Many schemas have one: the test is not passing on undefined alone.
    expect(sampled).toBeGreaterThan(500);
  });

  it('gives a shape its required keys, each of its own shape', () => {
    const marker = {
      type: 'object',
      required: ['start', 'title'],
      additionalProperties: false,
      properties: { start: { type: 'integer', minimum: 0 }, title: { type: 'string', maxLength: 40 } },
    };
    expect(
      schemaSample({
        type: 'object',
        required: ['markers'],
        properties: { markers: { type: 'array', items: marker } },
      }),
    ).toEqual({
      markers: [{ start: 0, title: 'value' }],
    });
    expect(schemaSample({ type: 'string', pattern: '^[0-9]+$' })).toBeUndefined();
  });
});
