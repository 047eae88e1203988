/**
 * How a user-owned module of the project imports a model's type: under its own name, unless the
 * language has that name already.
 */
import { modelNames } from './names.js';

/**
 * Names a user's module should keep for what the language gives: a model of one of these names
 * (`/records`, `/sets`) is imported into the principal's stub as `RecordModel`, `SetModel`.
 */
const GLOBAL_TYPES: ReadonlySet<string> = new Set([
  'Array',
  'Boolean',
  'Date',
  'Error',
  'Function',
  'Map',
  'Number',
  'Object',
  'Omit',
  'Partial',
  'Pick',
  'Promise',
  'Readonly',
  'Record',
  'Required',
  'Set',
  'String',
  'Symbol',
  'URL',
]);

/** The import of model `name`'s type into a module of the project, under its local name where that differs. */
export function typeImport(name: string) {
  return { name, alias: localName(name) === name ? null : localName(name), file: modelNames({ name }).file };
}

/** What a user's module calls the type of model `name`. */
export function localName(name: string): string {
  return GLOBAL_TYPES.has(name) ? `${name}Model` : name;
}
