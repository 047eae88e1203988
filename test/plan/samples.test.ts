/**
 * The sample data of the generated tests (the code of samples.ts) and of the OpenAPI document's
 * examples (its values) are one: for every model of every fixture, the code run with `n` makes
 * the value for `n`.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { modelSamples, sampleObject } from '../../src/plan/shared/samples.js';
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
