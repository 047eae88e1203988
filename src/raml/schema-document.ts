/**
 * A body schema as a located tree. An included schema is read from its file; a schema written in
 * the RAML file as a block scalar (`schema: |`) is read in place, so positions are RAML-file
 * positions (JSON ignores the indentation around it); any other inline schema is located at its
 * scalar.
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { span, type SourceFile, type Span } from '../diagnostics/source.js';
import { parseJsonLocated } from '../load/json.js';
import { isMap, type YMap, type YScalar } from '../load/ynode.js';
import type { Resource, RamlApi, SchemaReference } from './model.js';

export interface SchemaDocument {
  readonly root: YMap;
  /** Where the schema text is (the included file, or the RAML file). */
  readonly source: SourceFile;
}

const cache = new WeakMap<YScalar, SchemaDocument | null>();

/** A model schema: problems are errors (the model cannot be built). */
export function readSchemaDocument(ref: SchemaReference, diagnostics: DiagnosticBag): SchemaDocument | undefined {
  return cached(ref.contentNode, () => read(ref.contentNode, diagnostics, 'SVC2001'));
}

/**
 * Every JSON schema of the API parses: the declared ones and every body's. Run after the service
 * model is built, which reads the model schemas first, as errors (a model cannot be built from a
 * broken schema); the rest are documentation, and a broken one is only a warning.
 */
export function checkBodySchemas(api: RamlApi, diagnostics: DiagnosticBag): void {
  for (const s of api.schemas) checkSchemaSyntax(s.node, diagnostics);
  const visit = (resources: readonly Resource[]) => {
    for (const r of resources) {
      for (const m of r.methods) {
        for (const b of [...(m.body ?? []), ...(m.responses ?? []).flatMap((x) => x.body ?? [])]) {
          if (b.schema && !b.schema.declaration) checkSchemaSyntax(b.schema.contentNode, diagnostics);
        }
      }
      visit(r.resources);
    }
  };
  visit(api.resources);
}

/**
 * Any other body schema that looks like JSON: problems are warnings (nothing is built from it).
 * A schema already read as a model schema is not read or reported again.
 */
export function checkSchemaSyntax(node: YScalar, diagnostics: DiagnosticBag): void {
  const trimmed = node.text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return;
  cached(node, () => read(node, diagnostics, 'SVC1115'));
}

function cached(node: YScalar, compute: () => SchemaDocument | undefined): SchemaDocument | undefined {
  const hit = cache.get(node);
  if (hit !== undefined) return hit ?? undefined;
  const document = compute();
  cache.set(node, document ?? null);
  return document;
}

function read(node: YScalar, diagnostics: DiagnosticBag, code: 'SVC2001' | 'SVC1115'): SchemaDocument | undefined {
  const { text, source, locate } = where(node);
  const { node: root, problems } = parseJsonLocated(text, locate);
  for (const p of problems) {
    const at = locate(p.offset, p.end);
    if (p.duplicateKey !== undefined) {
      diagnostics.report('SVC1005', p.message, { span: at, hint: 'JSON keeps only the last one; remove or rename the other', severity: code === 'SVC2001' ? 'error' : 'warning' });
    } else {
      diagnostics.report(code, `the schema is not valid JSON: ${p.message}`, { span: at });
    }
  }
  if (code === 'SVC1115') return root && isMap(root) ? { root, source } : undefined;
  if (!root) return undefined;
  if (!isMap(root)) {
    diagnostics.report('SVC2002', 'a model schema must be a JSON object with "properties"', { span: root.span });
    return undefined;
  }
  return { root, source };
}

interface Located {
  readonly text: string;
  readonly source: SourceFile;
  readonly locate: (start: number, end: number) => Span;
}

function where(node: YScalar): Located {
  if (node.includedFile) {
    const file = node.includedFile;
    return { text: file.text, source: file, locate: (s, e) => span(file, s, e) };
  }
  const source = node.span.source;
  const inPlace = node.style === 'block' ? blockInPlace(node) : undefined;
  if (inPlace !== undefined) return { text: inPlace, source, locate: (s, e) => span(source, s, e) };
  return { text: node.text, source, locate: () => node.span };
}

/**
 * The RAML file's text with everything but the block scalar's content turned into spaces (line
 * breaks kept), so JSON offsets are file offsets. Only when the content really is the value (not a
 * template whose parameters were substituted).
 */
function blockInPlace(node: YScalar): string | undefined {
  const text = node.span.source.text;
  const firstBreak = text.indexOf('\n', node.span.start);
  if (firstBreak === -1 || firstBreak >= node.span.end) return undefined;
  const region = text.slice(firstBreak + 1, node.span.end);
  if (region.replace(/\s+/g, '') !== node.text.replace(/\s+/g, '')) return undefined;
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return blank(text.slice(0, firstBreak + 1)) + region + blank(text.slice(node.span.end));
}
