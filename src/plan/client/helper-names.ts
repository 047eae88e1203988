/**
 * The names client/src/index.ts gives what it takes from the client's generic modules, and the
 * operator sets it declares: their own, unless a model of the API has that name (`/pages` is
 * `Page`, `/filters` is `Filter`), whose type keeps it. Then `<name>_`: model names have no "_".
 * Imported, declared and re-exported under that name.
 */
import type { ServiceIR } from '../../ir/types.js';

export const CLIENT_HELPERS = [
  'Filter',
  'ListQuery',
  'SearchQuery',
  'Selection',
  'Sort',
  'Key',
  'Page',
  'ReadOptions',
  'WriteOptions',
  'FieldChoice',
  'Choosing',
  'Shown',
  'Http',
  'ClientOptions',
  'Credentials',
  'ApiError',
  'Fetch',
  'FieldError',
  'StatusBody',
  'OnComparable',
  'OnList',
  'OnOpaque',
  'OnText',
] as const;

export type ClientHelper = (typeof CLIENT_HELPERS)[number];

/** The name of each helper in client/src/index.ts. */
export type HelperNames = (name: ClientHelper) => string;

export function helperNames(ir: Pick<ServiceIR, 'models'>): HelperNames {
  const models = new Set(ir.models.map((m) => m.name));
  return (name) => (models.has(name) ? `${name}_` : name);
}

/** `Filter`, or `Filter as Filter_` where a model takes the name: for an import or export list. */
export function importName(names: HelperNames, name: ClientHelper, typeOnly = false): string {
  const local = names(name);
  return `${typeOnly ? 'type ' : ''}${name}${local === name ? '' : ` as ${local}`}`;
}
