/**
 * The analysis half of the pipeline, shared by every command: load → expand → read the RAML,
 * then build the service model (IR) and check it. Bad input gives diagnostics, never exceptions.
 */
import { checkIr } from './check/checks.js';
import { DiagnosticBag, hasErrors, sortDiagnostics } from './diagnostics/diagnostic.js';
import { buildIr, type IrSources } from './ir/build/index.js';
import type { ServiceIR } from './ir/types.js';
import { readRaml, type FrontEndResult } from './raml/front-end.js';

export interface Analysis extends FrontEndResult {
  readonly ir?: ServiceIR;
  readonly sources?: IrSources;
}

export function analyze(file: string, options: { cwd?: string } = {}): Analysis {
  const front = readRaml(file, options);
  // Like a compiler: when the RAML itself is wrong, what later stages would say mostly echoes it.
  if (!front.api || !front.document || hasErrors(front.diagnostics)) return front;
  const diagnostics = new DiagnosticBag();
  const { ir, sources } = buildIr(front.api, diagnostics, { rootDir: front.document.rootDir });
  checkIr(diagnostics, ir, sources, front.api);
  return { ...front, ir, sources, diagnostics: sortDiagnostics([...front.diagnostics, ...diagnostics.sorted()]) };
}
