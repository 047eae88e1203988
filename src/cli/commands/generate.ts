import { hasErrors } from '../../diagnostics/diagnostic.js';
import { readRaml } from '../../raml/front-end.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, type Io, type OutputFormat } from '../output.js';

export async function runGenerate(io: Io, file: string, opts: { out: string; format: OutputFormat }): Promise<number> {
  const { diagnostics } = readRaml(file, { cwd: io.cwd });
  printDiagnostics(io, diagnostics, opts.format);
  if (hasErrors(diagnostics)) return ExitCode.failed;
  io.stderr('svcgen generate: writing the project is not implemented yet\n');
  return ExitCode.failed;
}
