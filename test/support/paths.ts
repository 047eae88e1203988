import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const svcgenBin = resolve(repoRoot, 'bin/svcgen.js');

/** Where the RAML 0.8 TCK is usually checked out beside the project (and where CI finds it). */
const defaultTckDir = resolve(repoRoot, '../shared/conformance/raml-0.8-tck');

/**
 * The RAML 0.8 TCK corpus, the one test input that is not in this repository: `RAML_TCK_DIR`, else
 * `../shared/conformance/raml-0.8-tck` when it exists. Undefined when neither is set up: the TCK
 * tests are then skipped with {@link tckMissing}. A `RAML_TCK_DIR` that does not exist is kept, so
 * the tests that read it fail rather than skip.
 */
export const tckDir: string | undefined = process.env['RAML_TCK_DIR']
  ? resolve(process.env['RAML_TCK_DIR'])
  : existsSync(defaultTckDir)
    ? defaultTckDir
    : undefined;

/** Why the TCK tests are skipped, and how to run them. */
export const tckMissing =
  'RAML 0.8 TCK not found, its tests are skipped: set RAML_TCK_DIR to a checkout of the RAML 0.8 TCK ' +
  '(src/parser/test/data/TCK/raml-0.8 of github.com/raml-org/raml-js-parser-2), or put it at ../shared/conformance/raml-0.8-tck';
