import { hasErrors } from '../../diagnostics/diagnostic.js';
import { readRaml } from '../../raml/front-end.js';
import { toTckDocument } from '../../raml/tck/serialize.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, type Io } from '../output.js';
import { dirname, resolve } from 'node:path';

export function runInspect(io: Io, file: string, what: 'ir' | 'tck'): number {
  const result = readRaml(file, { cwd: io.cwd });
  if (what === 'tck') {
    const rootDir = result.document?.rootDir ?? dirname(resolve(io.cwd, file));
    io.stdout(`${JSON.stringify(toTckDocument(result.api, result.diagnostics, rootDir), null, 2)}\n`);
    printDiagnostics(io, result.diagnostics, 'text');
    return hasErrors(result.diagnostics) ? ExitCode.failed : ExitCode.ok;
  }
  printDiagnostics(io, result.diagnostics, 'text');
  io.stderr('svcgen inspect --ir: the service model is not available yet\n');
  return ExitCode.failed;
}
