/**
 * Source files and spans. Positions stay as offsets until something is printed;
 * line/column are derived on demand from a lazily built line table.
 */

export interface SourceFile {
  /** Absolute path on disk (or a pseudo path such as `<input>` in tests). */
  readonly path: string;
  readonly text: string;
}

/** A half-open range `[start, end)` of UTF-16 offsets into one source file. */
export interface Span {
  readonly source: SourceFile;
  readonly start: number;
  readonly end: number;
}

/** 1-based line and column, as editors and compilers print them. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

const lineTables = new WeakMap<SourceFile, readonly number[]>();

/** Offsets at which each line starts (line 1 starts at 0). */
export function lineStarts(source: SourceFile): readonly number[] {
  let table = lineTables.get(source);
  if (!table) {
    const starts = [0];
    const text = source.text;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
    }
    table = starts;
    lineTables.set(source, table);
  }
  return table;
}

export function positionAt(source: SourceFile, offset: number): Position {
  const starts = lineStarts(source);
  const clamped = Math.max(0, Math.min(offset, source.text.length));
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= clamped) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: clamped - (starts[lo] ?? 0) + 1 };
}

/** The text of a 1-based line, without its line terminator. */
export function lineText(source: SourceFile, line: number): string {
  const starts = lineStarts(source);
  const start = starts[line - 1];
  if (start === undefined) return '';
  const next = starts[line];
  const end = next === undefined ? source.text.length : next;
  return source.text.slice(start, end).replace(/\r?\n$|\r$/, '');
}

export function span(source: SourceFile, start: number, end: number = start): Span {
  return { source, start, end: Math.max(start, end) };
}

/** A span covering the whole first line of a file; used for file-level problems. */
export function fileSpan(source: SourceFile): Span {
  const firstLineEnd = source.text.search(/\r|\n/);
  return span(source, 0, firstLineEnd === -1 ? Math.min(source.text.length, 80) : firstLineEnd);
}
