/**
 * What every part of the OpenAPI document is built from: the IR, the field types, the names of
 * the component schemas and the ACL matrix (security). Made once per document.
 */
import { aclMatrix, type MatrixRow } from '../../acl/matrix.js';
import type { Model, Operation, Route, ServiceIR } from '../../ir/types.js';
import { FieldTypes } from '../shared/field-types.js';

export type Json = Record<string, unknown>;

/** The schemas every service has; a model of the same name keeps its own name and these step aside. */
const SHARED_SCHEMAS = ['Error', 'Status', 'Count', 'Login', 'Token'] as const;
export type SharedSchema = (typeof SHARED_SCHEMAS)[number];

export class OpenApiContext {
  readonly types: FieldTypes;
  /** The models the API shows (the auth credentials are the service's own, never documented). */
  readonly models: readonly Model[];
  readonly #shared: ReadonlyMap<SharedSchema, string>;
  readonly #matrix: ReadonlyMap<string, MatrixRow>;

  constructor(readonly ir: ServiceIR) {
    this.types = new FieldTypes(ir);
    this.models = ir.models.filter((m) => !m.internal);
    const taken = new Set(this.models.flatMap((m) => Object.values(this.modelSchemaNames(m))));
    this.#shared = new Map(SHARED_SCHEMAS.map((name) => [name, freeName(name, taken)]));
    this.#matrix = new Map(ir.auth ? aclMatrix(ir).map((row) => [operationKey(row.route, row.operation), row]) : []);
  }

  model(name: string): Model {
    return this.types.model(name);
  }

  modelSchemaNames(model: Pick<Model, 'name'>) {
    return {
      item: model.name,
      create: `${model.name}Create`,
      update: `${model.name}Update`,
      collection: `${model.name}Collection`,
    };
  }

  sharedName(name: SharedSchema): string {
    return this.#shared.get(name)!;
  }

  /** `{ $ref }` to a component schema of a model (`item`, `create`…) or a shared one. */
  modelRef(model: string, which: keyof ReturnType<OpenApiContext['modelSchemaNames']>): Json {
    return schemaRef(this.modelSchemaNames({ name: model })[which]);
  }

  sharedRef(name: SharedSchema): Json {
    return schemaRef(this.sharedName(name));
  }

  /** The ACL matrix row of a route's operation (only when the API has auth). */
  matrixRow(route: Route, operation: Operation): MatrixRow | undefined {
    return this.#matrix.get(operationKey(route, operation));
  }
}

export function schemaRef(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

function operationKey(route: Route, operation: Operation): string {
  return `${operation.method} ${route.path}`;
}

function freeName(name: string, taken: ReadonlySet<string>): string {
  let candidate = name;
  while (taken.has(candidate)) candidate = `${candidate}_`;
  return candidate;
}

/** Objects whose key order means nothing (paths, components) are written sorted, so the output never depends on build order. */
export function sorted<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
