/**
 * What every part of the OpenAPI document is built from: the IR, the field types, the names of
 * the component schemas and the ACL matrix (security). Made once per document.
 */
import { aclMatrix, type MatrixRow } from '../../acl/matrix.js';
import type { Model, Operation, Route, ServiceIR } from '../../ir/types.js';
import { replaceDiffers } from '../shared/replacement.js';
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
  readonly #modelSchemas: ReadonlyMap<string, ModelSchemaNames>;
  readonly #matrix: ReadonlyMap<string, MatrixRow>;

  constructor(readonly ir: ServiceIR) {
    this.types = new FieldTypes(ir);
    this.models = ir.models.filter((m) => !m.internal);
    this.#modelSchemas = modelSchemaNames(this.models);
    const taken = new Set([...this.#modelSchemas.values()].flatMap((names) => Object.values(names)));
    this.#shared = new Map(SHARED_SCHEMAS.map((name) => [name, freeName(name, taken)]));
    this.#matrix = new Map(ir.auth ? aclMatrix(ir).map((row) => [operationKey(row.route, row.operation), row]) : []);
  }

  model(name: string): Model {
    return this.types.model(name);
  }

  /** The names of a model's component schemas (`replace` only where a PUT's body differs from a create's). */
  modelSchemaNames(model: Pick<Model, 'name'>): ModelSchemaNames {
    return this.#modelSchemas.get(model.name) ?? { item: model.name, ...derivedNames(model.name, new Set()) };
  }

  sharedName(name: SharedSchema): string {
    return this.#shared.get(name)!;
  }

  /** `{ $ref }` to a component schema of a model (`item`, `create`…) or a shared one. */
  modelRef(model: string, which: Exclude<keyof ModelSchemaNames, 'replace'>): Json {
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

export interface ModelSchemaNames {
  readonly item: string;
  readonly create: string;
  readonly update: string;
  readonly collection: string;
  readonly replace?: string;
}

/**
 * Each model's schemas are named after it (`Post`, `PostCreate`…), and a model's own name wins: with
 * models `Item` and `ItemCollection`, Item's page is `ItemCollection_` (one name, one schema).
 */
function modelSchemaNames(models: readonly Model[]): Map<string, ModelSchemaNames> {
  const taken = new Set(models.map((m) => m.name));
  return new Map(models.map((m) => [m.name, { item: m.name, ...derivedNames(m.name, taken, replaceDiffers(m)) }]));
}

function derivedNames(model: string, taken: Set<string>, replace = false): Omit<ModelSchemaNames, 'item'> {
  const name = (suffix: string) => {
    const free = freeName(`${model}${suffix}`, taken);
    taken.add(free);
    return free;
  };
  return {
    create: name('Create'),
    update: name('Update'),
    collection: name('Collection'),
    ...(replace ? { replace: name('Replace') } : {}),
  };
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
