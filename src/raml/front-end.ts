/**
 * The RAML front end: load (with includes) → expand (resource types, traits, default media
 * type) → read into the typed model → check that its JSON schemas parse. Never throws on bad
 * input: everything wrong is a diagnostic, and as much of the model as could be read is returned.
 */
import { DiagnosticBag, type Diagnostic } from '../diagnostics/diagnostic.js';
import { fileSpan } from '../diagnostics/source.js';
import { loadRaml, type LoadedDocument } from '../load/load-raml.js';
import { isMap, isSeq, type YMap, type YNode } from '../load/ynode.js';
import { collectDeclarations, expandApi, mediaTypeOf, pivotMethodBodies, pivotResourceBodies } from './expand.js';
import type { RamlApi } from './model.js';
import { readApi } from './read/api.js';
import { checkBodySchemas, type SchemaWarning } from './schema-document.js';
import { checkDeclaredTemplates } from './template-checks.js';

export interface FrontEndResult {
  /** Undefined only when the file could not be loaded or is not a RAML 0.8 mapping at all. */
  readonly api?: RamlApi;
  readonly document?: LoadedDocument;
  readonly diagnostics: readonly Diagnostic[];
  /**
   * Body schemas that look like JSON and do not parse (SVC1115): warnings, unless the IR reads the
   * schema as a model's, where they are errors. Apart from `diagnostics` until then.
   */
  readonly schemaWarnings: readonly SchemaWarning[];
}

export interface FrontEndOptions {
  readonly cwd?: string;
}

export function readRaml(file: string, options: FrontEndOptions = {}): FrontEndResult {
  const diagnostics = new DiagnosticBag();
  const document = loadRaml(file, diagnostics, options);
  if (!document) return { diagnostics: diagnostics.sorted(), schemaWarnings: [] };
  if (document.root === undefined) return { document, diagnostics: diagnostics.sorted(), schemaWarnings: [] };
  if (!isMap(document.root)) {
    const what =
      document.root.kind === 'scalar' && document.root.value === null
        ? 'empty'
        : `a ${document.root.kind === 'seq' ? 'list' : 'scalar'}`;
    const at = what === 'empty' ? fileSpan(document.rootFile) : document.root.span;
    diagnostics.report('SVC1103', `the document must be a mapping of RAML properties, but it is ${what}`, { span: at });
    return { document, diagnostics: diagnostics.sorted(), schemaWarnings: [] };
  }
  const api = readLoaded(document.root, diagnostics);
  return { api, document, diagnostics: diagnostics.sorted(), schemaWarnings: checkBodySchemas(api) };
}

export function readLoaded(root: YMap, diagnostics: DiagnosticBag): RamlApi {
  const declared = {
    traits: collectDeclarations(root, 'traits', diagnostics),
    resourceTypes: collectDeclarations(root, 'resourceTypes', diagnostics),
  };
  const declarations = { ...declared, cyclicTypes: checkDeclaredTemplates(declared, diagnostics) };
  const expanded = expandApi(root, declarations, diagnostics);
  return readApi({ root: expanded, declarationsRoot: pivotDeclarations(root), ctx: { diagnostics } });
}

/** Declarations as they are applied: with the default media type already in their bodies. */
function pivotDeclarations(root: YMap): YMap {
  const mediaType = mediaTypeOf(root);
  if (!mediaType) return root;
  const pivotList = (node: YNode, pivot: (body: YNode) => YNode): YNode => {
    const pivotDeclarationMap = (m: YNode): YNode =>
      isMap(m) ? { ...m, entries: m.entries.map((e) => ({ key: e.key, value: pivot(e.value) })) } : m;
    return isSeq(node) ? { ...node, items: node.items.map(pivotDeclarationMap) } : pivotDeclarationMap(node);
  };
  return {
    ...root,
    entries: root.entries.map((e) => {
      if (e.key.text === 'resourceTypes')
        return { key: e.key, value: pivotList(e.value, (b) => (isMap(b) ? pivotResourceBodies(b, mediaType) : b)) };
      if (e.key.text === 'traits')
        return { key: e.key, value: pivotList(e.value, (b) => pivotMethodBodies(b, mediaType)) };
      return e;
    }),
  };
}
