/**
 * raml-1-parser 1.1.67 as a test oracle (dev dependency only; svcgen never uses it). It
 * reproduces the RAML 0.8 TCK exactly, so it can judge inputs the TCK does not cover.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface R1Error {
  code: string;
  message: string;
  path: string;
  range: { start: { line: number; column: number } };
  isWarning?: boolean;
}
interface R1Api {
  expand(): { setAttributeDefaults(on: boolean): void; toJSON(options: object): unknown };
  errors(): R1Error[];
}
interface R1 {
  loadRAMLSync(file: string, extra: unknown[]): R1Api;
}

let parser: R1 | undefined;

/** The TCK document raml-1-parser produces for `file`. */
export function oracleTck(file: string): { specification: unknown; errors: R1Error[] } {
  parser ??= require('raml-1-parser') as R1;
  const api = parser.loadRAMLSync(file, []);
  const expanded = api.expand();
  expanded.setAttributeDefaults(true);
  const json = JSON.parse(
    JSON.stringify(expanded.toJSON({ rootNodeDetails: true, serializeMetadata: true, sourceMap: true })),
  ) as { specification: unknown };
  return { specification: json.specification, errors: api.errors() };
}
