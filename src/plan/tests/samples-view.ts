/** The view of test/samples.ts: valid create data for each model (shared/samples.ts). */
import type { ServiceIR } from '../../ir/types.js';
import { modelSamples } from '../shared/samples.js';

export function samplesView(ir: ServiceIR) {
  return {
    models: ir.models.map((m) => {
      const samples = modelSamples(m);
      return {
        name: m.name,
        sample: `(n: number): ${m.name}Create => ({ ${samples.properties} })`,
        change: samples.change ? `{ ${samples.change.field}: ${samples.change.value} }` : '{}',
      };
    }),
  };
}
