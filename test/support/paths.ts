import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** `../shared` beside the project (spec, references, TCK corpus, Ramses fixtures). */
export const sharedDir = resolve(repoRoot, '../shared');
export const tckDir = resolve(sharedDir, 'conformance/raml-0.8-tck');
export const svcgenBin = resolve(repoRoot, 'bin/svcgen.js');
