/**
 * The sample data of the generated tests (the code of samples.ts) and of the OpenAPI document's
 * examples (its values) are one: for every model of every fixture, the code run with `n` makes
 * the value for `n`.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/ir/types.js';
import { fieldSample, modelSamples, sampleObject } from '../../src/plan/shared/samples.js';
import { API_FIXTURES } from '../support/openapi-tools.js';
import { fixtureRaml } from '../support/project.js';
import { serviceModel } from '../support/generated.js';

describe.each(API_FIXTURES)('the samples of %s', (fixture) => {
  it('as code and as values are the same data', () => {
    const models = serviceModel(fixtureRaml(fixture)).models.filter((m) => !m.internal);
    expect(models.length).toBeGreaterThan(0);
    for (const model of models) {
      const code = `({ ${modelSamples(model).properties} })`;
      for (const n of [1, 7, 1234]) {
        // structuredClone: the objects of another context have other prototypes.
        expect(structuredClone(runInNewContext(code, { n })), `${model.name} ${n}`).toEqual(sampleObject(model, n));
      }
    }
  });
});

describe('the samples of a model with a read-only field', () => {
  it('leave it out of the data they create and change: the generated tests write as members too', () => {
    const model = serviceModel(fixtureRaml('ramses-starter')).models.find((m) => m.name === 'Item')!;
    const readOnly = { ...model, fields: model.fields.map((f) => (f.name === 'name' ? { ...f, readOnly: true } : f)) };
    expect(sampleObject(model, 1)).toHaveProperty('name');
    expect(sampleObject(readOnly, 1)).not.toHaveProperty('name');
    expect(sampleObject(readOnly, 1)).toHaveProperty('description');
  });
});

describe('the sample of a scalar field with JSON Schema bounds', () => {
  const base = serviceModel(fixtureRaml('ramses-starter')).models.find((m) => m.name === 'Item')!.fields[0]!;
  const sample = (type: Field['type'], validation: Field['validation'], more: Partial<Field> = {}) =>
    fieldSample({ ...base, type, validation, unique: false, primaryKey: false, choices: null, ...more }).value(1);

  it('is a value of its enum: an integer of 25 or 45 is 25, where 1 made the project fail its typecheck', () => {
    expect(sample('integer', { enum: [25, 45] })).toBe(25);
    expect(sample('float', { enum: [null, 0.5] })).toBe(0.5);
    expect(sample('boolean', { enum: [false] })).toBe(false);
    expect(sample('date', { enum: ['2027-06-01'] })).toBe('2027-06-01');
  });

  it('is a text value of its choices, not the null listed first (a test then wrote null where it meant a value)', () => {
    expect(sample('string', { enum: [null, 'draft', 'live'] })).toBe('draft');
    expect(sample('string', {}, { choices: [null, 'a'] })).toBe('a');
    expect(sample('string', { enum: [null] })).toBeNull();
    expect(sample('list', {}, { choices: [null, 'a'] })).toEqual(['a']);
  });

  it('meets a pattern, a value per n, its code the same as its values (a fresh project failed its tests on one)', () => {
    for (const pattern of ['^[A-Z0-9-]{6,32}$', '^[A-Z]{2}-\\d{4}$', '^\\d{4}-(0[1-9]|1[0-2])$', '^SMP\\d+$']) {
      const field = { ...base, type: 'string' as const, validation: { pattern }, unique: false, primaryKey: false };
      const made = fieldSample({ ...field, choices: null });
      const values = [1, 7, 1234].map((n) => made.value(n) as string);
      for (const value of values) expect(value, pattern).toMatch(new RegExp(pattern, 'u'));
      expect(new Set(values).size, pattern).toBe(3);
      expect(values, pattern).toEqual([1, 7, 1234].map((n) => runInNewContext(made.code, { n })));
    }
    expect(sample('string', { pattern: '^[A-Z]{2}-\\d{4}$' })).toBe('AA-0001');
    // A pattern it does not read keeps the sample it had (custom-samples.ts then says the value).
    expect(sample('string', { pattern: '^\\p{Lu}+$' })).toBe(`${base.name}-1`);
  });

  it('gives a unique date, date and time or time a value per n, its code the same as its values', () => {
    for (const type of ['date', 'datetime', 'time'] as const) {
      const made = fieldSample({ ...base, type, validation: {}, unique: true, primaryKey: false, choices: null });
      const values = [1, 7, 1234].map((n) => made.value(n));
      expect(new Set(values).size, type).toBe(3);
      expect(values, type).toEqual([1, 7, 1234].map((n) => runInNewContext(made.code, { n })));
    }
    expect(sample('date', {}, { unique: true })).toBe('2026-01-03');
    expect(sample('date', {})).toBe('2026-01-02');
  });

  it('meets minimum, maximum, exclusive bounds and multipleOf, with min_value and max_value', () => {
    expect(sample('integer', { multipleOf: 5 }, { minValue: 7 })).toBe(10);
    expect(sample('integer', { exclusiveMinimum: 3 })).toBe(4);
    expect(sample('integer', { maximum: -3 })).toBe(-3);
    expect(sample('integer', { minimum: 2 }, { minValue: 9 })).toBe(9);
    expect(sample('float', { multipleOf: 0.5, minimum: 1.2 })).toBe(2);
    // Without any, as before: 1, or the field's own bound.
    expect(sample('integer', {})).toBe(1);
    expect(sample('integer', {}, { minValue: 3 })).toBe(3);
  });
});

describe('the samples of a model with _unique_together', () => {
  it('give each field of a set a value per n, as unique fields get (a probe’s tests made more objects than fixed samples allowed)', () => {
    const model = serviceModel(fixtureRaml('ramses-starter')).models.find((m) => m.name === 'Item')!;
    const field = (name: string, type: Field['type']): Field => ({
      ...model.fields[0]!,
      name,
      type,
      unique: false,
      primaryKey: false,
      generated: false,
      readOnly: false,
      choices: null,
      validation: {},
    });
    const plan = {
      ...model,
      fields: [field('week', 'date'), field('size', 'integer')],
      uniqueTogether: [['week', 'size']],
    };
    const [one, two] = [sampleObject(plan, 1), sampleObject(plan, 2)];
    expect(one['week']).not.toEqual(two['week']);
    expect(one['size']).not.toEqual(two['size']);
    expect(sampleObject({ ...plan, uniqueTogether: [] }, 1)).toEqual(sampleObject({ ...plan, uniqueTogether: [] }, 2));
  });
});
