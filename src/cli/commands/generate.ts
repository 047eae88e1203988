/**
 * `svcgen generate api.raml -o out` (contract §1): analyse, generate the tree in memory, then
 * write only what changed — or, with `--check`, only compare; with `--dry-run`, only tell.
 */
import { basename, relative, resolve } from 'node:path';
import { hasErrors } from '../../diagnostics/diagnostic.js';
import { generateProject, inputKey } from '../../generate.js';
import { analyze } from '../../pipeline.js';
import { planChanges, type Change } from '../../write/changes.js';
import { shortDiff } from '../../write/diff.js';
import { manifestOf, readManifest } from '../../write/manifest.js';
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
}

export async function runGenerate(io: Io, file: string, flags: GenerateFlags): Promise<number> {
  const analysis = analyze(file, { cwd: io.cwd });
  printDiagnostics(io, analysis.diagnostics, flags.format);
  if (hasErrors(analysis.diagnostics) || !analysis.ir) return ExitCode.failed;
  const outDir = resolve(io.cwd, flags.out);
  const shown = relative(io.cwd, outDir) || '.';
  const ramlFile = basename(file);
  const previous = readManifest(outDir);
  const progress = progressLine(io);
  const tree = await generateProject(analysis.ir, {
    ramlFile,
    previous: previousOutput(outDir, previous),
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.end();
  const changes = planChanges(outDir, tree, previous, Boolean(flags.force));
  if (flags.check) return check(io, changes, shown);
  if (flags.dryRun) {
    for (const change of changes.filter((c) => c.kind !== 'keep')) io.stderr(`${describe(change)}\n`);
    io.stderr(`svcgen: dry run, nothing written to ${shown} (${summary(changes)})\n`);
    return ExitCode.ok;
  }
  const conflicts = changes.filter((c) => c.kind === 'conflict');
  if (conflicts.length) {
    for (const c of conflicts) io.stderr(`refusing to overwrite ${c.path}: it was changed since svcgen wrote it (or svcgen did not write it)\n`);
    io.stderr(`svcgen: nothing written. Move your changes to the user-owned files, or run again with --force to overwrite.\n`);
    return ExitCode.failed;
  }
  const unused = changes.filter((c) => c.kind === 'unused').map((c) => c.path);
  applyChanges(outDir, changes, manifestOf(tree, ramlFile, inputKey(analysis.ir, ramlFile), unused), previous);
  for (const c of changes.filter((x) => x.kind === 'stale-edited')) io.stderr(`kept ${c.path}: svcgen no longer generates it, but it was edited; delete it if it is not needed\n`);
  reportUnused(io, unused, ramlFile);
  io.stderr(`svcgen: ${shown} — ${summary(changes)}\n`);
  return ExitCode.ok;
}

/** User code is never deleted: a stub the API stopped using is named on every run until the user deletes it. */
function reportUnused(io: Io, unused: readonly string[], ramlFile: string): void {
  for (const path of unused) {
    io.stderr(`unused ${path}: ${ramlFile} no longer refers to it; kept (yours: delete it when you no longer need it)\n`);
  }
}

/** `--check`: exit 1 when writing would change anything, listing each file with a short diff. */
function check(io: Io, changes: readonly Change[], shown: string): number {
  // Unused stubs are the user's to delete; generating again would not change them.
  const stale = changes.filter((c) => c.kind !== 'keep' && c.kind !== 'unused');
  if (stale.length === 0) {
    io.stderr(`svcgen: ${shown} is up to date\n`);
    return ExitCode.ok;
  }
  for (const change of stale) {
    io.stdout(`${describe(change)}\n`);
    if (change.before !== undefined && change.after !== undefined) io.stdout(`${indent(shortDiff(change.before, change.after))}\n`);
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
  if (count('unused')) parts.push(`${count('unused')} unused`);
  return parts.join(', ');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}
