/**
 * A field that may be null takes null in its request schema once: an `enum` or a `type` list that
 * names null already is left as it is. Before, `"enum": ["EU", "NA", null]` became
 * `["EU", "NA", null, null]`, which Fastify refuses as a schema: the generated service did not start.
 */
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { FieldTypes } from '../../src/plan/shared/field-types.js';
import { raml, writeTree } from '../support/files.js';
import { serviceModel } from '../support/generated.js';

const API = raml(`title: T
/teams:
  post:
    body:
      application/json:
        schema: !include team.json
`);

const TEAM = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    region: { type: ['string', 'null'], enum: ['EU', 'NA', null], _db_settings: { type: 'string' } },
    best_of: { type: ['integer', 'null'], enum: [1, 3, null], _db_settings: { type: 'integer' } },
    seed: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
    tier: { type: 'string', enum: ['gold', 'silver'], _db_settings: { type: 'string' } },
  },
});

describe('the request schema of a field that may be null', () => {
  it('names null once, and compiles', () => {
    const ir = serviceModel(join(writeTree({ 'api.raml': API, 'team.json': TEAM }), 'api.raml'));
    const team = ir.models.find((m) => m.name === 'Team')!;
    const types = new FieldTypes(ir);
    const schemaOf = (name: string) =>
      types.bodySchema(
        team,
        team.fields.find((f) => f.name === name)!,
      );
    expect(schemaOf('region')['enum']).toEqual(['EU', 'NA', null]);
    expect(schemaOf('best_of')['enum']).toEqual([1, 3, null]);
    expect((schemaOf('seed')['type'] as string[]).filter((t) => t === 'null')).toEqual(['null']);
    const ajv = new Ajv();
    for (const name of ['region', 'best_of', 'seed', 'tier'])
      expect(() => ajv.compile(schemaOf(name)), name).not.toThrow();
  });

  it('takes null, where its enum names null and its type a type (it took none: `type` was "string" alone)', () => {
    const ir = serviceModel(join(writeTree({ 'api.raml': API, 'team.json': TEAM }), 'api.raml'));
    const team = ir.models.find((m) => m.name === 'Team')!;
    const types = new FieldTypes(ir);
    const ajv = new Ajv();
    const takes = (name: string, value: unknown) =>
      ajv.validate(
        types.bodySchema(
          team,
          team.fields.find((f) => f.name === name)!,
        ),
        value,
      );
    for (const [name, value] of [
      ['region', 'EU'],
      ['best_of', 3],
      ['seed', 7],
      ['tier', 'gold'],
    ] as const) {
      expect(takes(name, value), name).toBe(true);
      expect(takes(name, null), `${name}: null`).toBe(true);
    }
    expect(takes('region', 'XX')).toBe(false);
    expect(takes('tier', 'bronze')).toBe(false);
    expect(takes('best_of', 2)).toBe(false);
  });
});
