/**
 * `svcgen generate api.raml -o out` (contract §1): analyse, generate the tree in memory, then
 * write only what changed — or, with `--check`, only compare; with `--dry-run`, only tell.
 */
import { basename, relative, resolve } from 'node:path';
import { DiagnosticBag, hasErrors } from '../../diagnostics/diagnostic.js';
import { generateProject } from '../../generate.js';
import { analyze } from '../../pipeline.js';
import { planChanges, type Change } from '../../write/changes.js';
import { shortDiff } from '../../write/diff.js';
import { manifestOf } from '../../write/manifest.js';
import { reportOutcomes } from '../../write/outcomes.js';
import { checkPlannedPaths, openOutDir } from '../../write/out-dir.js';
import { readHistory } from '../../write/history.js';
import { reportMigrationFindings } from '../../plan/migration-findings.js';
import { previousOutput } from '../../write/previous.js';
import { applyChanges } from '../../write/write.js';
import { ExitCode } from '../exit-codes.js';
import { printDiagnostics, progressLine, type Io, type OutputFormat } from '../output.js';

export interface GenerateFlags {
  readonly out: string;
  readonly format: OutputFormat;
  readonly check?: boolean;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  readonly allowDataLoss?: boolean;
}

/**
 * Every diagnostic of a run (the API's and the write stage's) is printed once, at the end, so
 * `--format json` prints one array. The out-dir is untrusted input: every path is checked before
 * anything is written, in every mode (write/out-dir.ts). `onRead` is told which files the API was
 * read from.
 */
export async function runGenerate(io: Io, file: string, flags: GenerateFlags, onRead?: (files: readonly string[]) => void): Promise<number> {
  const analysis = analyze(file, { cwd: io.cwd });
  // --watch watches every file the API was read from, the includes too.
  onRead?.(analysis.document?.files.map((f) => f.path) ?? []);
  if (hasErrors(analysis.diagnostics) || !analysis.ir) {
    printDiagnostics(io, analysis.diagnostics, flags.format);
    return ExitCode.failed;
  }
  const bag = new DiagnosticBag();
  for (const d of analysis.diagnostics) bag.add(d);
  const outDir = resolve(io.cwd, flags.out);
  const shown = relative(io.cwd, outDir) || '.';
  const out = openOutDir(outDir, bag);
  if (!out) return refuse(io, bag, flags, shown);
  const history = readHistory(out, bag);
  if (!history) return refuse(io, bag, flags, shown);
  const ramlFile = basename(file);
  const progress = progressLine(io);
  const { tree, migrations, inputKey } = await generateProject(analysis.ir, {
    ramlFile,
    // --check trusts nothing in the out-dir (it may come from a pull request): it generates afresh.
    ...(flags.check ? {} : { previous: previousOutput(out.real, out.manifest) }),
    history,
    allowDataLoss: Boolean(flags.allowDataLoss),
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.end();
  if (migrations) reportMigrationFindings(migrations.findings, analysis.sources, Boolean(flags.allowDataLoss), bag);
  if (bag.hasErrors) return refuse(io, bag, flags, shown);
  if (!checkPlannedPaths(out, tree.keys(), bag)) return refuse(io, bag, flags, shown);
  const changes = planChanges(out.real, tree, out.manifest, Boolean(flags.force));
  if (flags.check) return check(io, bag, flags.format, changes, shown);
  if (flags.dryRun) {
    printDiagnostics(io, bag.sorted(), flags.format);
    for (const change of changes.filter((c) => c.kind !== 'keep')) io.stderr(`${describe(change)}\n`);
    io.stderr(`svcgen: dry run, nothing written to ${shown} (${summary(changes)})\n`);
    return ExitCode.ok;
  }
  reportOutcomes(changes, out.shown, ramlFile, bag);
  if (bag.hasErrors) return refuse(io, bag, flags, shown);
  const unused = changes.filter((c) => c.kind === 'unused').map((c) => c.path);
  applyChanges(out.real, changes, manifestOf(tree, ramlFile, inputKey, unused), out.manifest);
  printDiagnostics(io, bag.sorted(), flags.format);
  io.stderr(`svcgen: ${shown} — ${summary(changes)}\n`);
  return ExitCode.ok;
}

function refuse(io: Io, bag: DiagnosticBag, flags: GenerateFlags, shown: string): number {
  printDiagnostics(io, bag.sorted(), flags.format);
  io.stderr(`svcgen: nothing written to ${shown}\n`);
  return ExitCode.failed;
}

/**
 * `--check`: exit 1 when writing would change anything, listing each file with a short diff (on
 * stdout; on stderr with `--format json`, where stdout holds the diagnostics).
 */
function check(io: Io, bag: DiagnosticBag, format: OutputFormat, changes: readonly Change[], shown: string): number {
  printDiagnostics(io, bag.sorted(), format);
  const list = format === 'json' ? io.stderr : io.stdout;
  // Unused stubs are the user's to delete; generating again would not change them.
  const stale = changes.filter((c) => c.kind !== 'keep' && c.kind !== 'unused');
  if (stale.length === 0) {
    io.stderr(`svcgen: ${shown} is up to date\n`);
    return ExitCode.ok;
  }
  for (const change of stale) {
    list(`${describe(change)}\n`);
    if (change.before !== undefined && change.after !== undefined) list(`${indent(shortDiff(change.before, change.after))}\n`);
  }
  io.stderr(`svcgen: ${shown} is out of date (${summary(changes)}); run svcgen generate to update it\n`);
  return ExitCode.failed;
}

const VERBS: Readonly<Record<Change['kind'], string>> = {
  add: 'add',
  change: 'change',
  delete: 'delete',
  keep: 'keep',
  conflict: 'edited (would overwrite)',
  foreign: 'not written by svcgen (would overwrite)',
  'stale-edited': 'stale but edited (would keep)',
  unused: 'unused (kept)',
};

function describe(change: Change): string {
  return `  ${VERBS[change.kind].padEnd(8)} ${change.path}`;
}

function summary(changes: readonly Change[]): string {
  const count = (kind: Change['kind']) => changes.filter((c) => c.kind === kind).length;
  const parts = [`${count('add')} added`, `${count('change')} changed`, `${count('delete')} deleted`, `${count('keep')} unchanged`];
  if (count('conflict')) parts.push(`${count('conflict')} edited`);
  if (count('foreign')) parts.push(`${count('foreign')} not written by svcgen`);
  if (count('unused')) parts.push(`${count('unused')} unused`);
  return parts.join(', ');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}
