/** Views of the model registry (src/models/index.ts) and the database (src/db/index.ts): every model with its names. */
import type { ServiceIR } from '../../ir/types.js';
import { modelNames } from '../shared/names.js';

/** Every model with its names: for the model registry and the database's repositories. */
export function modelsView(ir: ServiceIR) {
  return { models: ir.models.map((m) => ({ name: m.name, ...modelNames(m) })) };
}
