/**
 * ts-types.ts prints a model's types without json-schema-to-typescript, on the promise of the same
 * text. Held to it on every type of every fixture's models and of a synthetic API, and on random
 * field schemas (including keywords it hands over to json-schema-to-typescript).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApi } from '../../bench/generate-api.mjs';
import { FieldTypes } from '../../src/plan/shared/field-types.js';
import { compiledType, typeDeclarations, type TypeDeclaration } from '../../src/plan/models/model-file.js';
import { interfaceSource } from '../../src/plan/shared/ts-types.js';
import { shownObjectSchema } from '../../src/plan/openapi/schemas.js';
import { GENERATING_FIXTURES, serviceModel } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

const work = mkdtempSync(join(tmpdir(), 'svcgen-ts-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function declarationsOf(raml: string): TypeDeclaration[] {
  const ir = serviceModel(raml);
  const types = new FieldTypes(ir);
  return ir.models.flatMap((model) => typeDeclarations(model, types));
}

function quick({ name, description, schema }: TypeDeclaration): string | undefined {
  return interfaceSource(name, description, schema);
}

/** The typed client's answer types (src/plan/client/types.ts): `_type`'s const, embedded objects' types, open objects. */
function answerDeclarationsOf(raml: string): TypeDeclaration[] {
  const ir = serviceModel(raml);
  const types = new FieldTypes(ir);
  return ir.models.map((model) => {
    const { description, ...schema } = shownObjectSchema(types, model, (target) => ({ tsType: target }));
    return { name: model.name, description: String(description), schema };
  });
}

describe('ts-types: the types of models as json-schema-to-typescript prints them', () => {
  it.each([...GENERATING_FIXTURES.map((f) => [f, fixtureRaml(f)]), ['a synthetic API', 'synthetic']])(
    'prints every type of %s itself, as json-schema-to-typescript does',
    async (_name, raml) => {
      const declarations = declarationsOf(raml === 'synthetic' ? generateApi(join(work, 'api'), 6) : raml);
      expect(declarations.length).toBeGreaterThan(2);
      for (const declaration of declarations) {
        const text = quick(declaration);
        expect(text, `${declaration.name} is printed without json-schema-to-typescript`).toBeDefined();
        expect(text, declaration.name).toBe(await compiledType(declaration));
      }
    },
  );

  it.each(GENERATING_FIXTURES.map((f) => [f, fixtureRaml(f)]))(
    "prints the typed client's answer types of %s itself, as json-schema-to-typescript does",
    async (_name, raml) => {
      for (const declaration of answerDeclarationsOf(raml)) {
        const text = quick(declaration);
        expect(text, `${declaration.name} is printed without json-schema-to-typescript`).toBeDefined();
        expect(text, declaration.name).toBe(await compiledType(declaration));
      }
    },
  );

  const scalar = fc.constantFrom('string', 'integer', 'number', 'boolean', 'null');
  const literal = fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const valueOnly = fc.record(
    {
      minLength: fc.nat(5),
      maximum: fc.integer(),
      format: fc.constantFrom('date', 'email'),
      pattern: fc.constant('^a'),
    },
    { requiredKeys: [] },
  );
  // Mostly what svcgen makes of fields, sometimes what a user's `items` or validation may add.
  const schema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small' },
      fc.tuple(scalar, valueOnly).map(([type, rest]) => ({ type, ...rest })),
      fc.uniqueArray(scalar, { minLength: 1, maxLength: 3 }).map((type) => ({ type })),
      fc.uniqueArray(literal, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
      fc
        .tuple(
          fc.uniqueArray(literal, { minLength: 1, maxLength: 3 }),
          fc.oneof(scalar, fc.uniqueArray(scalar, { minLength: 1, maxLength: 3 }), fc.constantFrom('array', 'object')),
        )
        .map(([values, type]) => ({ type, enum: values })),
      fc.record(
        { type: fc.constantFrom('array', ['array', 'null']), items: tie('schema') },
        { requiredKeys: ['type'] },
      ),
      fc.constantFrom(
        { type: 'object', additionalProperties: true },
        { type: ['object', 'null'], additionalProperties: true },
        {},
      ),
      fc.constantFrom(
        { const: 'x' },
        { type: 'array', items: { type: 'string' }, minItems: 1 },
        { type: 'object', properties: { a: { type: 'string' } } },
        { anyOf: [{ type: 'string' }] },
        { type: 'string', title: 'Named' },
      ),
    ),
  })).schema;
  const property = fc
    .tuple(schema, fc.option(fc.string({ maxLength: 20 }), { nil: undefined }))
    .map(([s, description]) => (description === undefined ? s : { ...s, description }));
  const key = fc.oneof(
    fc.constantFrom('id', 'name', 'created_at', '$ref', 'a-b', '2nd', 'ünï'),
    fc.string({ minLength: 1, maxLength: 5 }),
  );

  it('prints random field schemas as json-schema-to-typescript does, or leaves them to it', async () => {
    let printed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(key, property, { maxKeys: 5 }),
        fc.string({ maxLength: 30 }),
        async (properties, description) => {
          const required = Object.keys(properties).filter((_, i) => i % 2 === 0);
          const declaration = {
            name: 'Thing',
            description,
            schema: { type: 'object', additionalProperties: false, required, properties },
          };
          const text = quick(declaration);
          if (text === undefined) return;
          printed++;
          expect(text).toBe(await compiledType(declaration));
        },
      ),
      { numRuns: Number(process.env['FUZZ_RUNS'] ?? 300) },
    );
    expect(printed).toBeGreaterThan(30);
  });
});
