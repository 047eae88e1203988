import { relative, sep } from 'node:path';
import type { Diagnostic } from './diagnostic.js';
import { lineText, positionAt, type Span } from './source.js';

export interface FormatOptions {
  /** Paths are printed relative to this directory. */
  readonly cwd: string;
  readonly color: boolean;
}

/** The JSON form of a diagnostic, as printed by `--format json`. Lines and columns are 1-based. */
export interface DiagnosticJson {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  /** Null, with the line and columns, for what is about no place in a file (an out-dir out of date). */
  file: string | null;
  line: number | null;
  column: number | null;
  endLine: number | null;
  endColumn: number | null;
  hint?: string;
  related?: { message: string; file: string; line: number; column: number };
}

export function displayPath(path: string, cwd: string): string {
  if (path.startsWith('<')) return path;
  const rel = relative(cwd, path);
  return (rel === '' ? '.' : rel).split(sep).join('/');
}

export function toJson(d: Diagnostic, cwd: string): DiagnosticJson {
  // Every key there always: a consumer reads `d.file` of each (a probe's script failed on a missing key).
  const out: DiagnosticJson = {
    severity: d.severity,
    code: d.code,
    message: d.message,
    file: null,
    line: null,
    column: null,
    endLine: null,
    endColumn: null,
  };
  if (d.span) {
    const start = positionAt(d.span.source, d.span.start);
    const end = positionAt(d.span.source, d.span.end);
    out.file = displayPath(d.span.source.path, cwd);
    out.line = start.line;
    out.column = start.column;
    out.endLine = end.line;
    out.endColumn = end.column;
  }
  if (d.hint) out.hint = d.hint;
  if (d.related) {
    const at = positionAt(d.related.span.source, d.related.span.start);
    out.related = {
      message: d.related.message,
      file: displayPath(d.related.span.source.path, cwd),
      line: at.line,
      column: at.column,
    };
  }
  return out;
}

const ansi = {
  red: (s: string) => `\u001b[91m${s}\u001b[0m`,
  yellow: (s: string) => `\u001b[93m${s}\u001b[0m`,
  cyan: (s: string) => `\u001b[96m${s}\u001b[0m`,
  grey: (s: string) => `\u001b[90m${s}\u001b[0m`,
  bold: (s: string) => `\u001b[1m${s}\u001b[0m`,
};
const plain = { red: id, yellow: id, cyan: id, grey: id, bold: id };
function id(s: string): string {
  return s;
}

/**
 * Compiler-style text: `file:line:col - error SVC1234: message`, a code frame with a `~` marker
 * under the span, and a `help:` line.
 */
export function formatDiagnostic(d: Diagnostic, options: FormatOptions): string {
  const c = options.color ? ansi : plain;
  const severity = d.severity === 'error' ? c.red('error') : c.yellow('warning');
  let head = `${severity} ${c.grey(d.code)}: ${d.message}`;
  const lines: string[] = [];
  if (d.span) {
    const start = positionAt(d.span.source, d.span.start);
    const where = `${c.cyan(displayPath(d.span.source.path, options.cwd))}:${c.yellow(String(start.line))}:${c.yellow(String(start.column))}`;
    head = `${where} - ${head}`;
    // A file that could not be read has no text to show.
    lines.push(head, ...(d.span.source.text === '' ? [] : ['', ...codeFrame(d.span, c)]));
  } else {
    lines.push(head);
  }
  if (d.related) {
    const at = positionAt(d.related.span.source, d.related.span.start);
    lines.push(
      `${c.bold('note')}: ${d.related.message} at ${c.cyan(displayPath(d.related.span.source.path, options.cwd))}:${c.yellow(String(at.line))}:${c.yellow(String(at.column))}`,
    );
  }
  if (d.hint) lines.push(`${c.bold('help')}: ${d.hint}`);
  return lines.join('\n');
}

export function formatDiagnostics(diagnostics: readonly Diagnostic[], options: FormatOptions): string {
  if (diagnostics.length === 0) return '';
  const body = diagnostics.map((d) => formatDiagnostic(d, options)).join('\n\n');
  return `${body}\n\n${summary(diagnostics)}\n`;
}

export function summary(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const warnings = diagnostics.length - errors.length;
  const part = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const found = `Found ${part(errors.length, 'error')} and ${part(warnings, 'warning')}.`;
  // The pipeline stops at the RAML's own errors (pipeline.ts analyze): say what was not checked yet.
  if (errors.some((d) => isRamlCode(d.code)))
    return `${found} The models, their links and the ACLs are checked once these errors are fixed.`;
  // A schema that is not JSON has no model: its own checks, and the links to it, wait for it.
  if (errors.some((d) => d.code === 'SVC2001'))
    return `${found} A schema that is not JSON is read once it is fixed: its model, and the links to it, are checked then.`;
  return found;
}

/** SVC0xxx and SVC1xxx: the RAML as read and expanded, before any model is built. */
function isRamlCode(code: string): boolean {
  return /^SVC[01]\d{3}$/.test(code);
}

/** Lines longer than this are cut around the marker so frames stay readable. */
const MAX_FRAME_WIDTH = 160;

function codeFrame(s: Span, c: typeof plain): string[] {
  const start = positionAt(s.source, s.start);
  const end = positionAt(s.source, Math.max(s.start, s.end - 1));
  const lastLine = Math.max(start.line, end.line);
  // Like tsc: a long span shows its first two and last two lines only.
  const shown =
    lastLine - start.line + 1 > 5
      ? [start.line, start.line + 1, -1, lastLine - 1, lastLine]
      : range(start.line, lastLine);
  const gutterWidth = String(lastLine).length;
  const out: string[] = [];
  for (const line of shown) {
    if (line === -1) {
      out.push(c.grey(`${'.'.repeat(gutterWidth)}`));
      continue;
    }
    const text = lineText(s.source, line).replace(/\t/g, ' ');
    const from = line === start.line ? start.column - 1 : firstNonSpace(text);
    const to = line === lastLine ? Math.max(from + 1, line === end.line ? end.column : text.length) : text.length;
    const [visible, offset] = clip(text, from);
    const markerStart = Math.max(0, from - offset) + (offset > 0 ? 1 : 0);
    const markerLength = Math.max(1, Math.min(to, offset + (offset > 0 ? visible.length - 1 : visible.length)) - from);
    out.push(`${c.grey(String(line).padStart(gutterWidth))} ${visible}`);
    out.push(`${' '.repeat(gutterWidth)} ${' '.repeat(markerStart)}${c.red('~'.repeat(markerLength))}`);
  }
  return out;
}

/** A window of a long line around `from`, with `…` where it was cut. */
function clip(text: string, from: number): [string, number] {
  if (text.length <= MAX_FRAME_WIDTH) return [text, 0];
  const offset = Math.max(0, Math.min(from - 20, text.length - MAX_FRAME_WIDTH));
  const head = offset > 0 ? '…' : '';
  const tail = offset + MAX_FRAME_WIDTH < text.length ? '…' : '';
  return [head + text.slice(offset, offset + MAX_FRAME_WIDTH) + tail, offset];
}

function firstNonSpace(text: string): number {
  const i = text.search(/\S/);
  return i === -1 ? 0 : i;
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}
