import { hasErrors } from '../../diagnostics/diagnostic.js';
import { readRaml } from '../../raml/front-end.js';
import { toTckDocument } from '../../raml/tck/serialize.js';
import { printIr } from '../../ir/print.js';
import { aclMatrix, printMatrix } from '../../acl/matrix.js';
import { openApiDocument, openApiJson } from '../../plan/openapi/document.js';
import { analyze } from '../../pipeline.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, type Io } from '../output.js';
import { dirname, resolve } from 'node:path';

export function runInspect(io: Io, file: string, what: 'ir' | 'tck' | 'acl' | 'openapi'): number {
  if (what === 'tck') {
    const result = readRaml(file, { cwd: io.cwd });
    const rootDir = result.document?.rootDir ?? dirname(resolve(io.cwd, file));
    io.stdout(`${JSON.stringify(toTckDocument(result.api, result.diagnostics, rootDir), null, 2)}\n`);
    printDiagnostics(io, result.diagnostics, 'text');
    return hasErrors(result.diagnostics) ? ExitCode.failed : ExitCode.ok;
  }
  const analysis = analyze(file, { cwd: io.cwd });
  if (analysis.ir)
    io.stdout(
      what === 'acl'
        ? printMatrix(analysis.ir, aclMatrix(analysis.ir))
        : what === 'openapi'
          ? openApiJson(openApiDocument(analysis.ir))
          : printIr(analysis.ir),
    );
  printDiagnostics(io, analysis.diagnostics, 'text');
  return hasErrors(analysis.diagnostics) || !analysis.ir ? ExitCode.failed : ExitCode.ok;
}
