import { hasErrors } from '../../diagnostics/diagnostic.js';
import { analyze } from '../../pipeline.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, summary, type Io, type OutputFormat } from '../output.js';

export function runValidate(io: Io, file: string, opts: { format: OutputFormat }): number {
  const { diagnostics } = analyze(file, { cwd: io.cwd });
  printDiagnostics(io, diagnostics, opts.format);
  if (opts.format === 'text' && diagnostics.length === 0) io.stderr(`${summary(diagnostics)}\n`);
  return hasErrors(diagnostics) ? ExitCode.failed : ExitCode.ok;
}
