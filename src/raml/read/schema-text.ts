/**
 * Light checks of schema text at the RAML level (the IR stage reads JSON schemas fully): JSON that
 * does not parse, and a bare word that names no declared schema (probably a typo).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { span, type Span } from '../../diagnostics/source.js';
import type { YScalar } from '../../load/ynode.js';
import { didYouMean } from '../../util/suggest.js';

export function checkSchemaText(diagnostics: DiagnosticBag, node: YScalar, text: string, declaredNames: Iterable<string>): void {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    checkJson(diagnostics, node, text);
    return;
  }
  if (/^[\w.-]+$/.test(trimmed) && node.style !== 'include') {
    diagnostics.report('SVC1118', `"${trimmed}" is neither a declared schema nor JSON or XML schema text`, {
      span: node.span,
      hint: didYouMean(trimmed, declaredNames) ?? 'declare it under `schemas:` at the root, or write the schema itself',
    });
  }
}

function checkJson(diagnostics: DiagnosticBag, node: YScalar, text: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message.replace(/^JSON\.parse: /, '');
    const offset = Number(/position (\d+)/.exec(message)?.[1] ?? NaN);
    diagnostics.report('SVC1115', `the schema is not valid JSON: ${message.replace(/ in JSON at position \d+.*$/, '')}`, {
      span: locate(node, text, offset),
    });
  }
}

/** The position of `offset` inside the schema text, in the file it was written in when we can tell. */
function locate(node: YScalar, text: string, offset: number): Span {
  if (Number.isNaN(offset)) return node.span;
  if (node.includedFile) return span(node.includedFile, offset, Math.min(offset + 1, text.length));
  const written = node.span.source.text.slice(node.span.start, node.span.end);
  const at = written.indexOf(text);
  return at >= 0 ? span(node.span.source, node.span.start + at + offset, node.span.start + at + offset + 1) : node.span;
}
