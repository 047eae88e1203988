/** Views of the model registry (src/models/index.ts) and the database (src/db/index.ts): every model with its names. */
import type { ServiceIR } from '../../ir/types.js';
import { modelNames } from '../shared/names.js';

/**
 * What src/db/index.ts declares or imports besides the models: a model of one of these names is
 * imported as its module's namespace there (`configModule.Config`), where its name would clash.
 */
const DATABASE_MODULE_NAMES = new Set([
  'Config',
  'Engine',
  'ServiceDatabase',
  'Database',
  'Repositories',
  'OpenOptions',
  'Promise',
]);

/** Every model with its names: for the model registry and the database's repositories. */
export function modelsView(ir: ServiceIR) {
  return {
    models: ir.models.map((m) => {
      const names = modelNames(m);
      const qualified = DATABASE_MODULE_NAMES.has(m.name);
      const module = `${names.property}Module`;
      const ref = (name: string) => (qualified ? `${module}.${name}` : name);
      return {
        name: m.name,
        ...names,
        /** Imported as a namespace in src/db/index.ts, and named through it (`ref`). */
        qualified,
        module,
        ref: { name: ref(m.name), create: ref(names.create), update: ref(names.update), variable: ref(names.variable) },
      };
    }),
  };
}
