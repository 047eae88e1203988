/**
 * Models for tests of the runtime, written as `src/models/*.ts` write them (`defineModel`), with
 * what a test does not care about left at its plainest: a text field, optional and writable; a
 * model with no relationships, nesting, field privacy, search or ACL route.
 */
import { defineModel, type FieldSpec, type Model, type ModelSpec } from '../../runtime/src/lib/model.js';

type Rec = Record<string, unknown>;

/** A field named `name`: a text column of that name, optional and writable, unless `spec` says otherwise. */
export function testField(name: string, spec: Partial<FieldSpec> = {}): FieldSpec {
  return {
    name,
    type: 'string',
    storage: 'text',
    column: name,
    primaryKey: false,
    generated: false,
    required: false,
    requiredOnCreate: false,
    writable: true,
    ...spec,
  };
}

/** A model of `spec`'s name, table, key, fields and `_self`, with the rest at its plainest unless `spec` gives it. */
export function testModel(
  spec: Pick<ModelSpec<Rec>, 'name' | 'table' | 'primaryKey' | 'fields' | 'selfPath'> & Partial<ModelSpec<Rec>>,
): Model {
  return defineModel<Rec>({
    relations: [],
    nestedRelationships: [],
    nestingDepth: 0,
    publicFields: null,
    authFields: null,
    hiddenFields: [],
    searchFields: [],
    aclRoute: null,
    ...spec,
  });
}
