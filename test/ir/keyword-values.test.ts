/**
 * Every property schema svcgen takes without an error gives the generated service route schemas
 * its validator takes: a probe's `"maxLength": "10"`, draft 4's `"exclusiveMinimum": true` and a
 * `"format": "phone"` passed `svcgen validate` and stopped the service at its start with a stack
 * trace. Keywords drawn at random, with values of the right and the wrong kinds, through analyze()
 * and the plan's body schemas into the runtime's own app (its Ajv options and formats).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { FieldTypes } from '../../src/plan/shared/field-types.js';
import { raml, writeTree } from '../support/files.js';
import { testApp } from '../support/app.js';

const API = raml(
  'title: T\n/items:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n',
);

/** Each keyword with values the validator takes and values it does not. */
const KEYWORDS: Record<string, readonly unknown[]> = {
  maxLength: [10, '10', -1, 1.5],
  minLength: [1, '1'],
  minimum: [0, '0', 2.5],
  maximum: [100, 'x'],
  exclusiveMinimum: [true, false, 3, 'x'],
  exclusiveMaximum: [true, 99],
  multipleOf: [2, 0, -1],
  format: ['email', 'phone', 'date-time', 'uri', 3],
  enum: [['a', 'b'], 'a', []],
  pattern: ['^[a-z]+$', 3],
  uniqueItems: [true, 'yes'],
  items: [{ type: 'string' }, { type: 'strin' }, { type: 'string', 'x-a': 1, description: 'd', maxLength: '3' }],
  properties: [{ mood: { type: 'string', format: 'phone', example: 'glad', 'x-b': true } }, { mood: 'string' }],
  additionalProperties: [false, { type: 'integer' }, 'no'],
  anyOf: [[{ maxLength: 3 }]],
  'x-note': [1],
  description: ['d'],
  examples: [['a']],
};

const BASES = [
  { type: 'string', _db_settings: { type: 'string' } },
  { type: 'number', _db_settings: { type: 'float' } },
  { type: 'array', _db_settings: { type: 'list', item_type: 'string' } },
  { type: 'object', _db_settings: { type: 'dict' } },
];

const property = fc
  .tuple(fc.constantFrom(...BASES), fc.dictionary(fc.constantFrom(...Object.keys(KEYWORDS)), fc.nat(), { maxKeys: 4 }))
  .map(([base, picks]) => ({
    ...base,
    ...Object.fromEntries(Object.entries(picks).map(([k, n]) => [k, KEYWORDS[k]![n % KEYWORDS[k]!.length]])),
  }));

/** The body schemas of Item's fields, or undefined when svcgen says the schema has errors. */
function bodySchemas(p: object): Record<string, unknown>[] | undefined {
  const item = { type: 'object', properties: { id: { _db_settings: { type: 'id_field', primary_key: true } }, p } };
  const dir = writeTree({ 'api.raml': API, 'item.json': JSON.stringify(item) });
  const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
  if (!analysis.ir || analysis.diagnostics.some((d) => d.severity === 'error')) return undefined;
  const types = new FieldTypes(analysis.ir);
  const model = analysis.ir.models.find((m) => m.name === 'Item')!;
  return model.fields.map((field) => types.bodySchema(model, field));
}

/** Whether the runtime's app builds a route whose body has these properties. */
async function takes(schemas: Record<string, unknown>[]): Promise<true | string> {
  const app = testApp();
  const properties = Object.fromEntries(schemas.map((schema, i) => [`f${i}`, schema]));
  app.post('/items', { schema: { body: { type: 'object', properties } } }, (_request, reply) => reply.send({}));
  try {
    await app.ready();
    return true;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await app.close();
  }
}

describe('JSON Schema keywords of a property', () => {
  it('that svcgen takes, the service takes too', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(property, async (p) => {
        const schemas = bodySchemas(p);
        if (!schemas) return;
        taken++;
        expect(await takes(schemas), JSON.stringify(p)).toBe(true);
      }),
      { numRuns: 150 },
    );
    // Some drawn schemas had no error: the property was tried, not only the refusals.
    expect(taken).toBeGreaterThan(10);
  });

  it("takes draft 4's exclusive bounds, as the drafts since write them", () => {
    const [, amount] = bodySchemas({
      type: 'number',
      minimum: 0,
      exclusiveMinimum: true,
      _db_settings: { type: 'float' },
    })!;
    expect(amount).toMatchObject({ exclusiveMinimum: 0 });
    expect(amount).not.toHaveProperty('minimum');
    const [, plain] = bodySchemas({
      type: 'number',
      maximum: 5,
      exclusiveMaximum: false,
      _db_settings: { type: 'float' },
    })!;
    expect(plain).toMatchObject({ maximum: 5 });
    expect(plain).not.toHaveProperty('exclusiveMaximum');
  });

  it.each([
    [{ maxLength: '10' }, 'SVC2119'],
    [{ exclusiveMinimum: true }, 'SVC2119'],
    [{ enum: 'a' }, 'SVC2119'],
    [{ items: { type: 'strin' } }, 'SVC2119'],
    [{ format: 'phone' }, 'SVC2120w'],
    [{ anyOf: [{ maxLength: 3 }] }, 'SVC2120w'],
  ])('says what is wrong with %j (%s)', (keywords, code) => {
    const dir = writeTree({
      'api.raml': API,
      'item.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          p: { type: 'string', ...keywords, _db_settings: { type: 'string' } },
        },
      }),
    });
    const { diagnostics } = analyze(join(dir, 'api.raml'), { cwd: dir });
    expect(diagnostics.map((d) => `${d.code}${d.severity === 'warning' ? 'w' : ''}`)).toEqual([code]);
    // Located in the schema file, on the keyword or its value.
    expect(diagnostics[0]!.span?.source.path).toMatch(/item\.json$/);
  });
});
