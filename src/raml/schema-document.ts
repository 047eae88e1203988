/**
 * A body schema as a located tree. An included schema is read from its file; a schema written in
 * the RAML file as a block scalar (`schema: |`) is read in place, so positions are RAML-file
 * positions (JSON ignores the indentation around it); any other inline schema is located at its
 * scalar.
 */
import { DiagnosticBag, type Diagnostic } from '../diagnostics/diagnostic.js';
import { span, type SourceFile, type Span } from '../diagnostics/source.js';
import { parseJsonLocated } from '../load/json.js';
import { isMap, type YMap, type YNode, type YScalar } from '../load/ynode.js';
import type { Resource, RamlApi, SchemaReference } from './model.js';

export interface SchemaDocument {
  readonly root: YMap;
  /** Where the schema text is (the included file, or the RAML file). */
  readonly source: SourceFile;
}

/** A schema's text as read: its JSON tree (as far as it parses) and what is wrong with it. */
interface Reading {
  readonly root: YNode | undefined;
  readonly source: SourceFile;
  readonly problems: readonly { readonly span: Span; readonly message: string; readonly duplicateKey: boolean }[];
}

// Each schema's text is parsed once: the RAML stage's check and the IR's reading of a model schema share it.
const cache = new WeakMap<YScalar, Reading>();

/**
 * A problem of a body schema that looks like JSON (SVC1115, or a duplicate key as SVC1005), a
 * warning: nothing is built from such a schema. `schema` is the schema's node: when the IR reads
 * it as a model schema, its problems are errors instead, and the IR reports them.
 */
export interface SchemaWarning {
  readonly schema: YScalar;
  readonly diagnostic: Diagnostic;
}

/** A model schema: problems are errors (the model cannot be built). */
export function readSchemaDocument(ref: SchemaReference, diagnostics: DiagnosticBag): SchemaDocument | undefined {
  const { root, source, problems } = reading(ref.contentNode);
  for (const p of problems) {
    if (p.duplicateKey)
      diagnostics.report('SVC1005', p.message, { span: p.span, hint: DUPLICATE_KEY_HINT, severity: 'error' });
    else diagnostics.report('SVC2001', `the schema is not valid JSON: ${p.message}`, { span: p.span });
  }
  // Past a trailing comma the reader goes on, to report the next one too; the schema is still not
  // one to build a model from (nothing else about it is reported, so nothing follows from it).
  if (!root || problems.some((p) => !p.duplicateKey)) return undefined;
  if (!isMap(root)) {
    diagnostics.report('SVC2002', 'a model schema must be a JSON object with "properties"', { span: root.span });
    return undefined;
  }
  return { root, source };
}

/**
 * Every JSON schema of the API parses: the declared ones and every body's. Run by the RAML stage,
 * before anything is built; which schemas are model schemas only the IR knows, so the warnings are
 * handed on with their schemas, and those of model schemas give way to the IR's errors.
 */
export function checkBodySchemas(api: RamlApi): SchemaWarning[] {
  const warnings: SchemaWarning[] = [];
  const check = (node: YScalar) =>
    warnings.push(...checkSchemaSyntax(node).map((diagnostic) => ({ schema: node, diagnostic })));
  for (const s of api.schemas) check(s.node);
  const visit = (resources: readonly Resource[]) => {
    for (const r of resources) {
      for (const m of r.methods) {
        for (const b of [...(m.body ?? []), ...(m.responses ?? []).flatMap((x) => x.body ?? [])]) {
          if (b.schema && !b.schema.declaration) check(b.schema.contentNode);
        }
      }
      visit(r.resources);
    }
  };
  visit(api.resources);
  return warnings;
}

/** A body schema that looks like JSON: its problems, as warnings. Any other text is not JSON's to judge. */
function checkSchemaSyntax(node: YScalar): Diagnostic[] {
  const trimmed = node.text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return [];
  const diagnostics = new DiagnosticBag();
  for (const p of reading(node).problems) {
    if (p.duplicateKey)
      diagnostics.report('SVC1005', p.message, { span: p.span, hint: DUPLICATE_KEY_HINT, severity: 'warning' });
    else diagnostics.report('SVC1115', `the schema is not valid JSON: ${p.message}`, { span: p.span });
  }
  return [...diagnostics.sorted()];
}

const DUPLICATE_KEY_HINT = 'JSON keeps only the last one; remove or rename the other';

function reading(node: YScalar): Reading {
  let read = cache.get(node);
  if (!read) {
    const { text, source, locate } = where(node);
    const { node: root, problems } = parseJsonLocated(text, locate);
    read = {
      root,
      source,
      problems: problems.map((p) => ({
        span: locate(p.offset, p.end),
        message: p.message,
        duplicateKey: p.duplicateKey !== undefined,
      })),
    };
    cache.set(node, read);
  }
  return read;
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
