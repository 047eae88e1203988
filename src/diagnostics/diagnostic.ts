import { codes, type DiagnosticCode, type Severity } from './codes.js';
import type { Span } from './source.js';

/** Something svcgen has to say about the input: data first, printed later. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** Where the problem is; absent only for problems that belong to no file. */
  readonly span?: Span;
  /** What to do about it ("did you mean `User`?"). */
  readonly hint?: string;
  /** Another place the problem involves: the first of two repeated keys or declarations. */
  readonly related?: RelatedLocation;
}

export interface RelatedLocation {
  readonly span: Span;
  /** What is there, said as a note: `first declared here`. */
  readonly message: string;
}

export interface DiagnosticInit {
  readonly span?: Span | undefined;
  readonly hint?: string | undefined;
  readonly related?: RelatedLocation | undefined;
  /** Override the catalogue severity (rare: e.g. a check that is only a warning in templates). */
  readonly severity?: Severity;
}

/** Collects diagnostics during one run; stages report into it instead of throwing. */
export class DiagnosticBag {
  readonly #items: Diagnostic[] = [];

  report(code: DiagnosticCode, message: string, init: DiagnosticInit = {}): void {
    const diagnostic: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
      code,
      severity: init.severity ?? codes[code].severity,
      message,
    };
    if (init.span) diagnostic.span = init.span;
    if (init.hint) diagnostic.hint = init.hint;
    if (init.related) diagnostic.related = init.related;
    this.add(diagnostic);
  }

  add(diagnostic: Diagnostic): void {
    if (!silenced(diagnostic)) this.#items.push(diagnostic);
  }

  get hasErrors(): boolean {
    return this.#items.some((d) => d.severity === 'error');
  }

  get size(): number {
    return this.#items.length;
  }

  /** All diagnostics in a stable order: by file, then position, then code. Exact duplicates are dropped. */
  sorted(): readonly Diagnostic[] {
    return sortDiagnostics(this.#items);
  }
}

/**
 * A warning its author has judged: `# svcgen: ignore SVC2086` (codes separated by spaces or
 * commas) on the line it points at, a YAML comment or one at the end of an x-ACL rule; in a JSON
 * schema, which has no comments, its root's `"_svcgen_ignore": ["SVC2092"]`. Errors are never
 * silenced: what they say stops the generation for a reason.
 */
function silenced(diagnostic: Diagnostic): boolean {
  const span = diagnostic.span;
  if (diagnostic.severity !== 'warning' || !span) return false;
  if (ignoredBySchema(span.source).has(diagnostic.code)) return true;
  const text = span.source.text;
  const end = text.indexOf('\n', span.start);
  const line = text.slice(text.lastIndexOf('\n', span.start - 1) + 1, end < 0 ? text.length : end);
  const ignored = /#.*?\bsvcgen:\s*ignore\s+([A-Z0-9,\s]+)/i.exec(line)?.[1];
  return (
    ignored !== undefined &&
    ignored
      .toUpperCase()
      .split(/[\s,]+/)
      .includes(diagnostic.code)
  );
}

const schemaIgnores = new WeakMap<Span['source'], ReadonlySet<string>>();

/** The codes a JSON schema's root lists in `_svcgen_ignore` (read once per file; ir/build checks the list). */
function ignoredBySchema(source: Span['source']): ReadonlySet<string> {
  let codes = schemaIgnores.get(source);
  if (!codes) {
    codes = new Set();
    if (source.path.endsWith('.json') && source.text.includes('"_svcgen_ignore"')) {
      try {
        const listed = (JSON.parse(source.text) as { _svcgen_ignore?: unknown })._svcgen_ignore;
        if (Array.isArray(listed)) codes = new Set(listed.filter((c): c is string => typeof c === 'string'));
      } catch {
        // Not JSON: the loader reports it.
      }
    }
    schemaIgnores.set(source, codes);
  }
  return codes;
}

export function sortDiagnostics(items: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique: Diagnostic[] = [];
  for (const d of items) {
    const key = `${d.span?.source.path ?? ''}\0${d.span?.start ?? -1}\0${d.code}\0${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(d);
  }
  return unique.sort(compareDiagnostics);
}

function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fa = a.span?.source.path ?? '';
  const fb = b.span?.source.path ?? '';
  if (fa !== fb) return fa < fb ? -1 : 1;
  const sa = a.span?.start ?? -1;
  const sb = b.span?.start ?? -1;
  if (sa !== sb) return sa - sb;
  if (a.code !== b.code) return a.code < b.code ? -1 : 1;
  return a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
