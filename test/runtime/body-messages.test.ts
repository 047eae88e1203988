/**
 * What a body that sends a name its schema does not take is told (runtime/src/lib/http/problem-words.ts):
 * the closest name it takes, or, for a field's name before this version of the API (`renamed_from`),
 * its name now. Checked through ajv as Fastify runs it (`verbose`, for the schema beside each error).
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { defineModel, type FieldSpec } from '../../runtime/src/lib/model.js';
import { bodyProblem, type SchemaProblem } from '../../runtime/src/lib/http/problem-words.js';
import { testField } from '../support/models.js';

const properties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  password: { type: 'string' },
} as const;

function model(fields: FieldSpec[]): void {
  defineModel(
    {
      name: 'Task',
      table: 'task',
      primaryKey: 'id',
      fields,
      relations: [],
      nestedRelationships: [],
      nestingDepth: 0,
      publicFields: null,
      authFields: null,
      hiddenFields: [],
      searchFields: [],
      aclRoute: null,
      selfPath: (r) => `/tasks/${String(r['id'])}`,
    },
    properties,
  );
}

model([
  testField('id', { type: 'integer', storage: 'integer', primaryKey: true }),
  testField('name'),
  testField('description', { renamedFrom: 'instructions' }),
  testField('password', { secret: true, renamedFrom: 'passphrase' }),
]);

const ajv = new Ajv({ allErrors: false, verbose: true, strict: false });
/** A create's body, and a change's: the same field schemas, the change's with the names an answer says back. */
const create = ajv.compile({ type: 'object', additionalProperties: false, properties });
const update = ajv.compile({
  type: 'object',
  additionalProperties: false,
  properties: { ...properties, _pk: { type: 'string' } },
});

function told(validate: typeof create, body: object): string[] {
  expect(validate(body)).toBe(false);
  return (validate.errors as SchemaProblem[]).flatMap((e) => bodyProblem(e)).map((p) => `${p.field} ${p.message}`);
}

describe('a body that sends a name its schema does not take', () => {
  it('is told the name a renamed field has now, on a create and on a change', () => {
    expect(told(create, { instructions: 'x' })).toEqual([
      'instructions is not a field here; it is named description now',
    ]);
    expect(told(update, { instructions: 'x' })).toEqual([
      'instructions is not a field here; it is named description now',
    ]);
    // A password's old name too: the body's schema names the field anyway (the OpenAPI document does).
    expect(told(create, { passphrase: 'x' })).toEqual(['passphrase is not a field here; it is named password now']);
  });

  it('is told the closest name for a typo, and nothing for a name like none', () => {
    expect(told(create, { nmae: 'x' })).toEqual(['nmae is not a field here; did you mean name?']);
    expect(told(create, { zzzzzz: 'x' })).toEqual(['zzzzzz is not a field here']);
  });

  it("never names another model's field: a schema of fields no model renamed is told no new name", () => {
    const other = ajv.compile({
      type: 'object',
      additionalProperties: false,
      properties: { title: { type: 'string' }, description: { type: 'string' } },
    });
    expect(told(other, { instructions: 'x' })).toEqual(['instructions is not a field here']);
  });
});
