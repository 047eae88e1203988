import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatDiagnostics, summary, toJson } from '../diagnostics/format.js';

export type OutputFormat = 'text' | 'json';

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  /** Colours are used only on a terminal and never when NO_COLOR is set. */
  readonly color: boolean;
}

export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    color: Boolean(process.stderr.isTTY) && !process.env['NO_COLOR'],
  };
}

/** Prints diagnostics: JSON on stdout (always an array) or text with code frames on stderr. */
export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], format: OutputFormat): void {
  if (format === 'json') {
    io.stdout(`${JSON.stringify(diagnostics.map((d) => toJson(d, io.cwd)), null, 2)}\n`);
    return;
  }
  if (diagnostics.length) io.stderr(formatDiagnostics(diagnostics, { cwd: io.cwd, color: io.color }));
}

export { summary };
