// Gives the runtime (runtime/) its dependencies, for type-checking and linting it as the source
// tree it is: runtime/node_modules becomes a link to the shared install of generated projects'
// dependencies (scripts/project-deps.mjs), installed first if this machine has none yet.
import { lstatSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedDependencies } from './project-deps.mjs';

const link = join(dirname(fileURLToPath(import.meta.url)), '..', 'runtime', 'node_modules');
const modules = await installedDependencies();
let current;
try {
  current = lstatSync(link);
} catch {
  current = undefined;
}
if (current) rmSync(link, { recursive: true, force: true });
symlinkSync(modules, link, 'dir');
