/**
 * The view of test/samples.ts: valid create data for each model (shared/samples.ts), each merged
 * with what the user's test/custom-samples.ts gives for it.
 */
import type { ServiceIR } from '../../ir/types.js';
import { modelSamples, unsampledRequired } from '../shared/samples.js';

export function samplesView(ir: ServiceIR) {
  const models = sampled(ir).map((m) => {
    const samples = modelSamples(m);
    const generated = samples.change ? `{ ${samples.change.field}: ${samples.change.value} }` : '{}';
    // A create type the sample cannot fill (a required link) is typed with those fields optional.
    const missing = unsampledRequired(m);
    const type = missing.length
      ? `Sampled<${m.name}Create, ${missing.map((name) => `'${name}'`).join(' | ')}>`
      : `${m.name}Create`;
    return {
      name: m.name,
      partial: missing.length > 0,
      sample: `(n: number): ${type} => ({ ${samples.properties}${samples.properties ? ', ' : ''}...yours('${m.name}', overrides.samples?.${m.name}?.(n), 'sample') })`,
      change: `yours('${m.name}', overrides.changes?.${m.name}, 'change') ?? ${generated}`,
    };
  });
  return { models, partial: models.some((m) => m.partial) };
}

/** The view of test/sample-overrides.ts: the models whose samples and changes the user's file may give. */
export function sampleOverridesView(ir: ServiceIR) {
  return { models: sampled(ir).map((m) => ({ name: m.name })) };
}

/** The models the tests make objects of: not the service's own (`internal`: credentials), which no route serves. */
function sampled(ir: ServiceIR) {
  return ir.models.filter((m) => !m.internal);
}

/**
 * The view of test/custom-samples.ts, the user's: an example of a text field a PATCH test could
 * change, of the first model that has one (the stub's comment shows it in use).
 */
export function customSamplesView(ir: ServiceIR) {
  for (const model of sampled(ir)) {
    const field = modelSamples(model).change?.field;
    if (field) return { example: model.name, field, value: field.toUpperCase() };
  }
  return { example: ir.models[0]?.name ?? 'Model', field: 'name', value: 'NAME' };
}
