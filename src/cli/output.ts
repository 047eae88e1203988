import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { formatDiagnostics, summary, toJson } from '../diagnostics/format.js';

export type OutputFormat = 'text' | 'json';

export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  /** Colours are used only on a terminal and never when NO_COLOR is set. */
  readonly color: boolean;
  /** stderr is a terminal: long runs show their progress there. */
  readonly progress?: boolean;
}

export function processIo(): Io {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    color: Boolean(process.stderr.isTTY) && !process.env['NO_COLOR'],
    progress: Boolean(process.stderr.isTTY),
  };
}

/** Files a run formats before it shows its progress: small projects finish before a line would help. */
const PROGRESS_FROM = 60;

/**
 * A progress line on stderr for long runs on a terminal (`generating 120/360 files`), redrawn in
 * place and erased at the end; nothing otherwise.
 */
export function progressLine(io: Io): { update(done: number, total: number): void; end(): void } | undefined {
  if (!io.progress) return undefined;
  let shown = false;
  return {
    update(done, total) {
      if (total < PROGRESS_FROM) return;
      shown = true;
      io.stderr(`\rsvcgen: generating ${done}/${total} files`);
    },
    end() {
      if (shown) io.stderr('\r\u001b[K');
    },
  };
}

/** Prints diagnostics: JSON on stdout (always an array) or text with code frames on stderr. */
export function printDiagnostics(io: Io, diagnostics: readonly Diagnostic[], format: OutputFormat): void {
  if (format === 'json') {
    io.stdout(
      `${JSON.stringify(
        diagnostics.map((d) => toJson(d, io.cwd)),
        null,
        2,
      )}\n`,
    );
    return;
  }
  if (diagnostics.length) io.stderr(formatDiagnostics(diagnostics, { cwd: io.cwd, color: io.color }));
}

export { summary };
