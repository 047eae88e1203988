/**
 * `svcgen diff <old> <new>`: what changes for clients between two versions of the API, each an
 * api.raml (read and planned in memory: nothing is written) or an openapi.json. Prints the
 * classified list (text, or a stable JSON array with --format json); exits 1 when anything
 * breaks clients of a released API (the older side's version is 1 or more: pre-release.ts), or
 * of any with --strict (a CI gate from the first day), 0 otherwise, 2 when a side cannot be read.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CHANGE_KINDS, type ApiChange } from '../../apidiff/change.js';
import { classifyChanges } from '../../apidiff/classify.js';
import { preReleaseNote, preReleaseVersion } from '../../apidiff/pre-release.js';
import { classifyOptionsOf } from '../../apidiff/renames.js';
import { describeChange } from '../../apidiff/report.js';
import { hasErrors } from '../../diagnostics/diagnostic.js';
import type { ServiceIR } from '../../ir/types.js';
import { openApiDocument } from '../../plan/openapi/document.js';
import { analyze } from '../../pipeline.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, type Io, type OutputFormat } from '../output.js';

type Document = Record<string, unknown>;

interface Side {
  readonly document: Document;
  /** The service model, when the side is an api.raml (its renames are said as such). */
  readonly ir?: ServiceIR;
}

export function runDiff(
  io: Io,
  before: string,
  after: string,
  flags: { readonly format: OutputFormat; readonly strict?: boolean | undefined },
): number {
  const old = readSide(io, before);
  const next = readSide(io, after);
  if (!old || !next) return ExitCode.usage;
  const changes = classifyChanges(old.document, next.document, next.ir ? classifyOptionsOf(next.ir) : {});
  if (flags.format === 'json') io.stdout(`${JSON.stringify(changes.map(asJson), null, 2)}\n`);
  else for (const c of changes) io.stdout(`${c.breaking ? 'breaking  ' : 'compatible'} ${describeChange(c)}\n`);
  const breaking = changes.filter((c) => c.breaking).length;
  const preRelease = breaking && !flags.strict ? preReleaseVersion(old.document) : undefined;
  io.stderr(
    changes.length === 0
      ? 'svcgen diff: no changes for clients\n'
      : `svcgen diff: ${breaking} breaking, ${changes.length - breaking} compatible${preRelease === undefined ? '' : ` (${preReleaseNote(preRelease)})`}\n`,
  );
  return breaking && preRelease === undefined ? ExitCode.failed : ExitCode.ok;
}

/** The JSON form, its keys in a fixed order (CI scripts read it). */
function asJson(c: ApiChange): Record<string, unknown> {
  return {
    kind: c.kind,
    breaking: c.breaking,
    title: CHANGE_KINDS[c.kind].title,
    operations: c.operations,
    ...(c.schema ? { schema: c.schema } : {}),
    path: c.path,
    message: c.message,
    ...(c.hint ? { hint: c.hint } : {}),
  };
}

/** An openapi.json (by its extension) or an api.raml; undefined when it cannot be read (said on stderr). */
function readSide(io: Io, file: string): Side | undefined {
  if (/\.json$/i.test(file)) return readDocument(io, file);
  const analysis = analyze(file, { cwd: io.cwd });
  if (hasErrors(analysis.diagnostics) || !analysis.ir) {
    printDiagnostics(io, analysis.diagnostics, 'text');
    io.stderr(`svcgen diff: ${file} has errors: nothing to compare\n`);
    return undefined;
  }
  return { document: openApiDocument(analysis.ir), ir: analysis.ir };
}

function readDocument(io: Io, file: string): Side | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(resolve(io.cwd, file), 'utf8'));
  } catch (error) {
    io.stderr(`svcgen diff: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  }
  const paths = typeof parsed === 'object' && parsed !== null ? (parsed as Document)['paths'] : undefined;
  if (typeof paths !== 'object' || paths === null || Array.isArray(paths) || Array.isArray(parsed)) {
    io.stderr(`svcgen diff: ${file} is not an OpenAPI document (no \`paths\` object)\n`);
    return undefined;
  }
  return { document: parsed as Document };
}
