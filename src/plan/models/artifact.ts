/**
 * The models and their storage: one module per model (types, fields, request bodies), its
 * repository's type, the registry of every model, the database that opens them, and the user's
 * stub of each callable default (`{{name}}`) the schemas name.
 */
import type { Model, ServiceIR } from '../../ir/types.js';
import { planned, type Artifact, type PlannedFile } from '../artifact.js';
import { camel, defaultModule, modelNames } from '../shared/names.js';
import { quote } from '../shared/literal.js';
import { templateSource as template, type DefaultStubView, type RepositoryView } from '../views.js';
import { holdsKey } from '../../ir/links.js';
import { modelView } from './model-file.js';
import { modelsView } from './views.js';
import { localName, typeImport } from '../shared/type-imports.js';

export const models: Artifact = {
  name: 'models',
  files: async ({ ir, types }) => [
    planned('src/models/index.ts', 'Every model of the service.', template('models-index.ts', modelsView(ir))),
    planned(
      'src/db/index.ts',
      'Opens the database named in service.ini, migrates it, and gives the repositories of every model.',
      template('db.ts', modelsView(ir)),
    ),
    ...(
      await Promise.all(
        ir.models.map(async (model): Promise<PlannedFile[]> => {
          const names = modelNames(model);
          return [
            planned(
              `src/models/${names.file}.ts`,
              `The ${model.name} model: its types, fields and request bodies.`,
              template('model.ts', await modelView(ir, model, types)),
            ),
            planned(
              `src/repositories/${names.file}.ts`,
              `The type of the ${model.name} repository.`,
              template('repository.ts', repositoryView(model)),
            ),
          ];
        }),
      )
    ).flat(),
    ...defaultStubs(ir),
  ],
};

/** A model's repository type: which of its relationships a read gives only where `include` names them. */
function repositoryView(model: Model): RepositoryView {
  const linked = model.relationships.filter((r) => !holdsKey(model, r)).map((r) => r.name);
  const listed = linked.map((name) => `\`${name}\``);
  return {
    name: model.name,
    ...modelNames(model),
    linked: linked.length ? linked.map(quote).join(' | ') : null,
    linkedText:
      listed.length > 1 ? `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)} are` : `${listed[0] ?? ''} is`,
    firstLinked: linked[0] ?? '',
    one: linked.length === 1,
  };
}

function defaultStubs(ir: ServiceIR): PlannedFile[] {
  return ir.userCode.callables.map((callable) =>
    planned(
      `src/${defaultModule(callable.name)}.ts`,
      `The {{${callable.name}}} default value.`,
      template('default-stub.ts', defaultStubView(callable.name, callable.usedBy)),
      'user',
    ),
  );
}

function defaultStubView(
  name: string,
  usedBy: readonly { readonly model: string; readonly field?: string }[],
): DefaultStubView {
  const fields = usedBy.filter((u): u is { model: string; field: string } => u.field !== undefined);
  const models = [...new Set(fields.map((u) => u.model))].sort();
  // One function gives every field that names it: its value must fit them all.
  const types = fields.map((u) => `NonNullable<${localName(u.model)}[${quote(u.field)}]>`);
  const value = types.length > 1 ? `(${[...new Set(types)].join(' & ')})` : (types[0] ?? 'unknown');
  return {
    placeholder: `{{${name}}}`,
    functionName: camel(name),
    usedBy: usedBy.map((u) => `${u.model}.${u.field ?? '?'}`).join(', '),
    imports: models.map(typeImport),
    returnType: types.length ? `${value} | null` : value,
  };
}
