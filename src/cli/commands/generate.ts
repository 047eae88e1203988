/**
 * `svcgen generate api.raml -o out`: runs the generate use case (pipeline.ts) and tells what it
 * did — or, with `--check`, what is out of date; with `--dry-run`, what would change.
 */
import type { ApiChange } from '../../apidiff/change.js';
import { describeChange } from '../../apidiff/report.js';
import { preReleaseNote } from '../../apidiff/pre-release.js';
import { DiagnosticBag, type Diagnostic } from '../../diagnostics/diagnostic.js';
import { isMigrationPath, type GeneratorStamp } from '../../outdir/manifest.js';
import type { Provenance } from '../../outdir/provenance.js';
import type { NewMigration } from '../../plan/migrations/plan.js';
import { generate } from '../../pipeline.js';
import type { Change } from '../../write/changes.js';
import { shortDiff } from '../../write/diff.js';
import { ExitCode } from '../exit-codes.js';
import { shellWord } from '../../util/shown-path.js';
import { printDiagnostics, progressLine, type Io, type OutputFormat } from '../output.js';

export interface GenerateFlags {
  readonly out: string;
  readonly format: OutputFormat;
  readonly check?: boolean;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  readonly allowDataLoss?: boolean;
  readonly allowBreaking?: boolean;
  readonly release?: string;
}

/**
 * Every diagnostic of a run (the API's and the write stage's) is printed once, at the end, so
 * `--format json` prints one array. `onRead` is told which files the API was read from.
 */
export async function runGenerate(
  io: Io,
  file: string,
  flags: GenerateFlags,
  onRead?: (files: readonly string[]) => void,
): Promise<number> {
  const progress = progressLine(io);
  const result = await generate({
    file,
    cwd: io.cwd,
    out: flags.out,
    mode: flags.check ? 'check' : flags.dryRun ? 'dry-run' : 'write',
    force: Boolean(flags.force),
    allowDataLoss: Boolean(flags.allowDataLoss),
    allowBreaking: Boolean(flags.allowBreaking),
    ...(flags.release === undefined ? {} : { release: flags.release }),
    ...(onRead ? { onRead } : {}),
    ...(progress ? { onProgress: (done: number, total: number) => progress.update(done, total) } : {}),
  });
  progress?.end();
  if (result.status === 'invalid') {
    printDiagnostics(io, result.diagnostics, flags.format);
    return ExitCode.failed;
  }
  printApiChanges(io, result.apiChanges, result.preRelease);
  if (result.status === 'refused') return refuse(io, result.diagnostics, flags, result.shown, result.written);
  const { diagnostics, changes, shown } = result;
  if (flags.check) return check(io, diagnostics, flags.format, changes, shown, result.provenance);
  printDiagnostics(io, diagnostics, flags.format);
  if (flags.dryRun) {
    for (const change of changes.filter((c) => c.kind !== 'keep')) io.stderr(`${describe(change)}\n`);
    // What the migration would do to the stored rows is what a dry run is for (a probe found only its name).
    for (const line of newMigration(changes, shown, result.migration, 'dry-run')) io.stderr(line);
    io.stderr(`svcgen: dry run, nothing written to ${shown} (${summary(changes)})\n`);
    return ExitCode.ok;
  }
  io.stderr(`svcgen: ${shown} — ${summary(changes)}\n`);
  for (const line of newMigration(changes, shown, result.migration)) io.stderr(line);
  // A new project: what to do with it, as `init` says what to do next.
  if (changes.length > 0 && changes.every((c) => c.kind === 'add'))
    io.stderr(
      `svcgen: next: cd ${shellWord(shown)} && npm install && npm start (its README.md says what the service does)\n`,
    );
  // A user who upgraded svcgen sees its own files change with their API change: say why.
  const { provenance } = result;
  if (provenance?.generatorChanged && changes.some((c) => c.kind !== 'keep'))
    io.stderr(
      `svcgen: svcgen changed since ${shown} was generated, ${upgradeOf(provenance)}: some changes are its own\n`,
    );
  return ExitCode.ok;
}

/**
 * The changes that do not break clients are no problem, so not diagnostics: one line each, only
 * when the API changed (the breaking ones are the diagnostics). Before a release (pre-release.ts),
 * the breaking ones are no problem either: listed with them, first.
 */
function printApiChanges(io: Io, changes: readonly ApiChange[], preRelease: string | undefined): void {
  const listed = preRelease === undefined ? changes.filter((c) => !c.breaking) : sortedBreakingFirst(changes);
  if (listed.length === 0) return;
  // Beside breaking changes, which are the diagnostics below: said, so that the label is not read as the run's.
  const also = changes.some((c) => c.breaking) ? '; the breaking ones follow, as diagnostics' : '';
  const why = preRelease === undefined ? `compatible${also}` : preReleaseNote(preRelease);
  io.stderr(`svcgen: the API changes for clients (${why}):\n`);
  const label = (c: ApiChange) => (preRelease === undefined ? '' : c.breaking ? 'breaking   ' : 'compatible ');
  for (const c of listed) io.stderr(`  ${label(c)}${describeChange(c)}\n`);
}

function sortedBreakingFirst(changes: readonly ApiChange[]): ApiChange[] {
  return [...changes.filter((c) => c.breaking), ...changes.filter((c) => !c.breaking)];
}

function refuse(
  io: Io,
  diagnostics: readonly Diagnostic[],
  flags: GenerateFlags,
  shown: string,
  written: readonly string[] = [],
): number {
  printDiagnostics(io, diagnostics, flags.format);
  // A write that failed part way left files in place: "nothing written" was untrue (a probe's new migration).
  io.stderr(
    written.length
      ? `svcgen: ${written.length} file(s) written to ${shown} before it stopped, its manifest not: generate again once it can write, to record them\n`
      : `svcgen: nothing written to ${shown}\n`,
  );
  return ExitCode.failed;
}

/**
 * `--check`: exit 1 when writing would change anything, listing each file with a short diff (on
 * stdout; on stderr with `--format json`, where stdout holds the diagnostics).
 */
function check(
  io: Io,
  diagnostics: readonly Diagnostic[],
  format: OutputFormat,
  changes: readonly Change[],
  shown: string,
  provenance: Provenance | undefined,
): number {
  const list = format === 'json' ? io.stderr : io.stdout;
  // Unused stubs are the user's to delete; generating again would not change them.
  const stale = changes.filter((c) => c.kind !== 'keep' && c.kind !== 'unused');
  const refusedChange = diagnostics.some((d) => d.severity === 'error');
  // An edit of a migration that no generation has recorded (SVC3107): generating would record it,
  // and a pull request that edits a migration databases may have run must not pass unseen.
  const editedMigration = diagnostics.some((d) => d.code === 'SVC3107');
  if (stale.length === 0 && !refusedChange && !editedMigration) {
    printDiagnostics(io, diagnostics, format);
    io.stderr(`svcgen: ${shown} is up to date\n`);
    return ExitCode.ok;
  }
  // A diagnostic of its own: with --format json, a CI job reads only the array on stdout (a
  // new-user probe's got [] and exit 1). The files are listed below it.
  const outOfDate = new DiagnosticBag();
  outOfDate.report('SVC3010', `${shown} is out of date`, { hint: remedy(changes, refusedChange, editedMigration) });
  printDiagnostics(io, [...diagnostics, ...outOfDate.sorted()], format);
  for (const change of stale) {
    list(`${describe(change)}\n`);
    if (change.before !== undefined && change.after !== undefined)
      list(`${indent(shortDiff(change.before, change.after))}\n`);
    // A new migration is what a reviewer of the change must read: its statements, not only its name.
    else if (change.kind === 'add' && change.after !== undefined && isMigrationPath(change.path))
      list(`${indent(abridged(change.after, MIGRATION_LINES))}\n`);
  }
  const why = provenance && cause(provenance, stale);
  if (why) io.stderr(`svcgen: ${why}\n`);
  io.stderr(`svcgen: ${shown}: ${summary(changes)}\n`);
  return ExitCode.failed;
}

/**
 * Why the out-dir is out of date, when it is not the usual reason (the API changed): a new svcgen
 * (the CI run after an upgrade), or changes in the out-dir itself. Undefined for the usual one.
 */
function cause(provenance: Provenance, stale: readonly Change[]): string | undefined {
  const { apiChanged, generatorChanged } = provenance;
  const upgrade = upgradeOf(provenance);
  // Files edited in the out-dir are the user's doing, whatever else changed.
  const edited = stale.filter((c) => c.kind === 'conflict').length;
  if (!apiChanged && generatorChanged && edited === stale.length)
    return `the API is as it was, and the files marked edited were changed in the out-dir itself (svcgen changed too, ${upgrade}, and would change nothing else)`;
  if (!apiChanged && generatorChanged)
    return `the API is as it was: the differences listed are svcgen's own, ${upgrade}${edited ? ', but for the files marked edited, changed in the out-dir itself' : ''}; review them, then generate again`;
  if (apiChanged && generatorChanged) return `the API changed, and so did svcgen, ${upgrade}`;
  if (!apiChanged) return 'the API and svcgen are as they were: the differences listed were made in the out-dir itself';
  return undefined;
}

function stamp({ version, build }: GeneratorStamp): string {
  return `${version} (build ${build})`;
}

/** `from svcgen <recorded> to <current>`: the svcgen that generated the out-dir, and this one. */
function upgradeOf({ recorded, current }: Provenance): string {
  return `from svcgen ${stamp(recorded)} to ${stamp(current)}`;
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

/**
 * What to do about it: generating again does it, but for a change it refuses as it is (`refused`:
 * the errors printed above, data loss or a breaking change) and for the files it refuses to
 * overwrite (edited since svcgen wrote them, or not written by svcgen: SVC3005, SVC3006).
 */
function remedy(changes: readonly Change[], refused: boolean, editedMigration: boolean): string {
  // A change generating refuses as it is (data lost, a breaking change): the errors above say what it takes.
  if (refused)
    return 'svcgen generate refuses it until the errors above are resolved (each says how: a change of the API, or a flag such as --allow-data-loss where it is meant)';
  if (editedMigration)
    return 'a migration was edited (SVC3107 above): restore it if any database has run it; if none has, run svcgen generate, which records the edit';
  if (!changes.some((c) => c.kind === 'conflict' || c.kind === 'foreign')) return 'run svcgen generate to update it';
  return 'move the edits of generated files to your own files (src/custom/) or keep them aside, then run svcgen generate --force (it overwrites them)';
}

function summary(changes: readonly Change[]): string {
  const count = (kind: Change['kind']) => changes.filter((c) => c.kind === kind).length;
  const parts = [
    `${count('add')} added`,
    `${count('change')} changed`,
    `${count('delete')} deleted`,
    `${count('keep')} unchanged`,
  ];
  if (count('conflict')) parts.push(`${count('conflict')} edited`);
  if (count('foreign')) parts.push(`${count('foreign')} not written by svcgen`);
  if (count('unused')) parts.push(`${count('unused')} unused`);
  const unrecorded = changes.filter((c) => c.unrecorded).length;
  if (unrecorded)
    parts.push(`${unrecorded} of those unchanged written by a run that stopped before its manifest, recorded now`);
  return parts.join(', ');
}

/** Lines of a new migration `--check` shows; a longer one ends with how many more there are. */
const MIGRATION_LINES = 80;

/**
 * The migration this generate wrote, with what it changes and the data it drops: what happens to
 * the stored rows is what a user must know before the service starts on them (a probe had to open
 * the file to learn it). The initial one, of a new project, is not said: it makes every table.
 */
function newMigration(
  changes: readonly Change[],
  shown: string,
  migration: Pick<NewMigration, 'path' | 'said'> | undefined,
  mode: 'write' | 'dry-run' = 'write',
): string[] {
  const written = changes.some((c) => c.kind === 'add' && c.path === migration?.path) ? migration : undefined;
  // Or put in place by a run that stopped before its manifest, which never said it (changes.ts `unrecorded`).
  const unrecorded = changes.find((c) => c.unrecorded && isMigrationPath(c.path));
  const path = written?.path ?? unrecorded?.path;
  if (path === undefined || path.includes('/0001_')) return [];
  const where = `${shown}/${path}`;
  return [
    mode === 'write'
      ? `svcgen: new migration ${where}${written ? '' : ' (written by the run that stopped)'}, run when the service starts or by npm run migrate (npm run migrate -- --dry-run prints its statements)${written ? ':' : ''}\n`
      : `svcgen: would write the migration ${where}, which the service would run when it starts:\n`,
    ...(written?.said ?? []).filter((line) => line !== '').map((line) => `  ${line}\n`),
  ];
}

function abridged(text: string, lines: number): string {
  const all = text.trimEnd().split('\n');
  if (all.length <= lines) return all.join('\n');
  return [...all.slice(0, lines), `… ${all.length - lines} more lines`].join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `      ${l}`)
    .join('\n');
}
