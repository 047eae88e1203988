/**
 * The pipeline's use cases. `analyze`, shared by every command: load → expand → read the RAML,
 * then build the service model (IR) and check it. `generate`: analyse, generate the project in
 * memory (plan → render → format), then compare it with the out-dir and write what changed. Bad
 * input gives diagnostics, never exceptions.
 */
import { basename, resolve } from 'node:path';
import { shownPath } from './util/shown-path.js';
import { checkIr } from './check/checks.js';
import { DiagnosticBag, hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics/diagnostic.js';
import { generateProject } from './generate.js';
import { buildIr } from './ir/build/index.js';
import type { IrSources } from './ir/sources.js';
import type { ServiceIR } from './ir/types.js';
import { reportMigrationFindings } from './plan/migrations/findings.js';
import type { NewMigration } from './plan/migrations/plan.js';
import { readRaml, type FrontEndResult } from './raml/front-end.js';
import { readHistory } from './outdir/history.js';
import { filesOnDisk } from './outdir/on-disk.js';
import { lockOutDir } from './outdir/lock.js';
import { checkPlannedPaths, openOutDir, reportChangedPath, reportUnwritable, type OutDir } from './outdir/out-dir.js';
import { previousOutput } from './outdir/previous.js';
import { apiDigest, provenanceOf, thisGenerator, type Provenance } from './outdir/provenance.js';
import { planChanges, type Change } from './write/changes.js';
import { manifestOf } from './write/manifest.js';
import { reportOutcomes } from './write/outcomes.js';
import { applyChanges, OutDirChanged, OutDirUnwritable } from './write/write.js';
import type { ApiChange } from './apidiff/change.js';
import { changelogWithEntry, hasUnreleased, isNewestRelease, releasedBefore } from './apidiff/changelog.js';
import { classifyChanges } from './apidiff/classify.js';
import { classifyOptionsOf, renamesOf } from './apidiff/renames.js';
import { reportBreakingChanges } from './apidiff/report.js';
import { renamedOntoTakenNames, reportNarrowedStoredValues } from './apidiff/stored-values.js';
import { preReleaseVersion } from './apidiff/pre-release.js';
import { CHANGELOG_FILE, CONTRACT_FILE, readPreviousContract, type PreviousContract } from './outdir/contract.js';
import type { Manifest } from './outdir/manifest.js';
import type { OutputTree } from './output.js';
import { header } from './render/header.js';
import { kebab } from './ir/naming.js';

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
  checkIr(diagnostics, ir, sources);
  // A model schema's problems are the build's errors (SVC2001), said once: not its warnings too.
  const schemaWarnings = front.schemaWarnings
    .filter((w) => !sources.modelSchemas.has(w.schema))
    .map((w) => w.diagnostic);
  return {
    ...front,
    ir,
    sources,
    diagnostics: sortDiagnostics([...front.diagnostics, ...schemaWarnings, ...diagnostics.sorted()]),
  };
}

export interface GenerateRequest {
  /** The RAML file, relative to `cwd`. */
  readonly file: string;
  readonly cwd: string;
  /** The out-dir, relative to `cwd`. */
  readonly out: string;
  /** `write` the changes; `check` or `dry-run`: only find them. */
  readonly mode: 'write' | 'check' | 'dry-run';
  /** `--force`: overwrite generated files even if they were edited. */
  readonly force: boolean;
  /** `--allow-data-loss`: a migration may drop data (it says so in a comment). */
  readonly allowDataLoss: boolean;
  /** `--allow-breaking`: the API may change in ways that break its clients (API-CHANGES.md says how). */
  readonly allowBreaking?: boolean;
  /** `--release <name>`: the title of the API-CHANGES.md entry this run adds. */
  readonly release?: string;
  /** Told which files the API was read from (the includes too), even when it has errors. */
  readonly onRead?: (files: readonly string[]) => void;
  /** Called as files are produced (for a progress line). */
  readonly onProgress?: (done: number, total: number) => void;
}

export type GenerateResult =
  /** The API has errors: nothing was generated. */
  | { readonly status: 'invalid'; readonly diagnostics: readonly Diagnostic[] }
  /** Something in the out-dir, or in the schema's evolution, forbids writing: nothing was written. */
  | {
      readonly status: 'refused';
      readonly diagnostics: readonly Diagnostic[];
      readonly shown: string;
      readonly apiChanges: readonly ApiChange[];
      readonly preRelease?: string;
      /** What a write that failed part way had put in place (the manifest not): not nothing written. */
      readonly written?: readonly string[];
    }
  /** The changes found, and written in `write` mode. */
  | {
      readonly status: 'done';
      readonly diagnostics: readonly Diagnostic[];
      readonly shown: string;
      readonly changes: readonly Change[];
      /** What the new openapi.json changes for clients, compared with the out-dir's. */
      readonly apiChanges: readonly ApiChange[];
      /** The version of the contract clients have, when it is a pre-release: its breaking changes are not refused. */
      readonly preRelease?: string;
      /** Whether the API and svcgen changed since the out-dir was generated; undefined when its manifest does not say. */
      readonly provenance?: Provenance;
      /** The migration this run planned, if any (among `changes` when it is new), and what it says it does. */
      readonly migration?: Pick<NewMigration, 'path' | 'said'>;
    };

/**
 * The out-dir is untrusted input: every path is checked before anything is written, in every mode
 * (outdir/out-dir.ts). `check` trusts nothing in it (it may come from a pull request): it generates
 * afresh instead of reusing the earlier tree.
 */
export async function generate(request: GenerateRequest): Promise<GenerateResult> {
  const analysis = analyze(request.file, { cwd: request.cwd });
  request.onRead?.(analysis.document?.files.map((f) => f.path) ?? []);
  if (hasErrors(analysis.diagnostics) || !analysis.ir) return { status: 'invalid', diagnostics: analysis.diagnostics };
  const bag = new DiagnosticBag();
  for (const d of analysis.diagnostics) bag.add(d);
  const outDir = resolve(request.cwd, request.out);
  const shown = shownPath(request.cwd, request.out, outDir);
  const use = request.mode === 'write' ? 'write' : 'read';
  const out = openOutDir(outDir, bag, (opened) => lockOutDir(opened, use, shown, bag));
  if (!out) return { status: 'refused', diagnostics: bag.sorted(), shown, apiChanges: [] };
  try {
    return await generateInto(out, { ...analysis, ir: analysis.ir }, request, bag, shown);
  } finally {
    out.lock.release();
  }
}

/** The run, once the out-dir is open and no other svcgen writes it. */
async function generateInto(
  out: OutDir,
  analysis: Analysis & { readonly ir: ServiceIR },
  request: GenerateRequest,
  bag: DiagnosticBag,
  shown: string,
): Promise<GenerateResult> {
  let apiChanges: readonly ApiChange[] = [];
  let preRelease: string | undefined;
  const contractNews = () => ({ apiChanges, ...(preRelease === undefined ? {} : { preRelease }) });
  const refused = (): GenerateResult => ({ status: 'refused', diagnostics: bag.sorted(), shown, ...contractNews() });
  const history = readHistory(out, bag);
  if (!history) return refused();
  const contract = readPreviousContract(out, bag);
  const ramlFile = basename(request.file);
  const api = apiDigest(analysis.document?.files ?? [], analysis.document?.rootDir ?? request.cwd);
  const {
    tree: project,
    migrations,
    inputKey,
  } = await generateProject(analysis.ir, {
    ramlFile,
    ...(request.mode === 'check' ? {} : { previous: previousOutput(out.real, out.manifest) }),
    history,
    allowDataLoss: request.allowDataLoss,
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
  });
  if (migrations) reportMigrationFindings(migrations.findings, analysis.sources, request.allowDataLoss, bag);
  apiChanges = contractChanges(contract, project, analysis.ir);
  preRelease = apiChanges.length ? preReleaseVersion(contract.document) : undefined;
  reportBreakingChanges(
    apiChanges,
    analysis.sources,
    {
      allowBreaking: request.allowBreaking ?? false,
      check: request.mode === 'check',
      renames: renamesOf(analysis.ir),
      ...(preRelease === undefined ? {} : { preRelease }),
    },
    bag,
  );
  // And the fields renamed in this run onto a name another field had (two swapped): the contract's
  // diff compared them with that field, whose values they do not hold. Other renamed fields it
  // compares with their old selves (a probe's `result` become `outcome` with choices was not told).
  const checked = new Set([
    ...(migrations?.findings.flatMap((f) => (f.checked ? [`${f.model}.${f.field}`] : [])) ?? []),
    ...renamedOntoTakenNames(migrations?.renamed ?? new Set(), analysis.ir, contract.document),
  ]);
  reportNarrowedStoredValues(apiChanges, analysis.ir, analysis.sources, checked, bag);
  if (request.release?.trim()) checkRelease(request.release, contract, out.manifest, apiChanges, bag);
  const tree = withChangelog(project, contract, out.manifest, apiChanges, ramlFile, request.release);
  // `check` goes on past a refused change (data loss, a break of clients): what is out of date is
  // listed with it. An unsafe path stops every mode.
  if (!checkPlannedPaths(out, tree.keys(), bag) || (bag.hasErrors && request.mode !== 'check')) return refused();
  const disk = filesOnDisk(out.real, [...tree.keys(), ...Object.keys(out.manifest?.files ?? {})]);
  const changes = planChanges(tree, disk, out.manifest, request.force);
  if (request.mode !== 'check') {
    // A dry run refuses what a write would (an edited file, one svcgen did not write), with its exit code.
    reportOutcomes(changes, out.shown, ramlFile, bag, false, renamedFiles(analysis.ir));
    if (bag.hasErrors) return refused();
  } else reportOutcomes(changes, out.shown, ramlFile, bag, true, renamedFiles(analysis.ir));
  if (request.mode === 'write') {
    const unused = changes.filter((c) => c.kind === 'unused').map((c) => c.path);
    const origin = { raml: ramlFile, input: inputKey, api, svcgen: thisGenerator() };
    try {
      applyChanges(out.real, changes, manifestOf(tree, origin, unused), out.manifest);
    } catch (error) {
      if (error instanceof OutDirUnwritable) reportUnwritable(out, error, bag);
      else if (error instanceof OutDirChanged) reportChangedPath(out, error.path, error.problem, bag);
      else throw error;
      const written = error instanceof OutDirUnwritable ? error.partly : [];
      return { ...refused(), ...(written.length ? { written } : {}) };
    }
  }
  const provenance = provenanceOf(out.manifest, api);
  return {
    status: 'done',
    diagnostics: bag.sorted(),
    shown,
    changes,
    ...contractNews(),
    ...(provenance ? { provenance } : {}),
    ...(migrations?.added ? { migration: migrations.added } : {}),
  };
}

/** The models the API renamed (`_renamed_from`), old → new, as their user files are named (`time-entry.ts`). */
function renamedFiles(ir: ServiceIR): [string, string][] {
  return ir.models.flatMap((m) => (m.renamedFrom ? [[kebab(m.renamedFrom), kebab(m.name)] as [string, string]] : []));
}

/** What the new openapi.json changes for clients (nothing at the first generation). */
function contractChanges(contract: PreviousContract, tree: OutputTree, ir: ServiceIR): ApiChange[] {
  const next = tree.get(CONTRACT_FILE);
  if (!contract.document || !next || contract.text === next.content) return [];
  return classifyChanges(contract.document, JSON.parse(next.content) as Record<string, unknown>, classifyOptionsOf(ir));
}

/** `--release`: a name no earlier release has (SVC3114), for changes there are (SVC3115). */
function checkRelease(
  release: string,
  contract: PreviousContract,
  manifest: Manifest | null,
  changes: readonly ApiChange[],
  bag: DiagnosticBag,
): void {
  const name = release.trim();
  // The same --release again, with nothing since (a CI job run twice): the release it wrote stands.
  if (changes.length === 0 && isNewestRelease(contract.changelog, name)) return;
  if (releasedBefore(contract.changelog, name))
    bag.report('SVC3114', `--release ${name}: API-CHANGES.md already has a release ${name}`, {
      hint: 'name this release anew (the next version); its clients were told of the other one under that name',
    });
  else if (
    changes.length === 0 &&
    !(manifest?.files[CHANGELOG_FILE]?.owner === 'generated' && hasUnreleased(contract.changelog))
  )
    bag.report('SVC3115', `--release ${name}: nothing unreleased, so no entry is written and ${name} is not used`, {
      hint: 'API-CHANGES.md has no Unreleased entry, and this run changes nothing for clients',
    });
}

/**
 * API-CHANGES.md is generated but keeps its earlier entries: a run that changes the API prepends
 * one; any other run keeps the file as it is, while the manifest says svcgen wrote it. A file of
 * that name svcgen did not write is left to the write stage, which refuses to overwrite it.
 */
function withChangelog(
  tree: OutputTree,
  contract: PreviousContract,
  manifest: Manifest | null,
  changes: readonly ApiChange[],
  ramlFile: string,
  release: string | undefined,
): OutputTree {
  const ours = manifest?.files[CHANGELOG_FILE]?.owner === 'generated';
  let content: string;
  // `--release` also names what earlier runs wrote as Unreleased, when this one changes nothing.
  if (changes.length || (ours && release?.trim() && hasUnreleased(contract.changelog))) {
    const purpose = 'What each regeneration changed for clients, newest first.';
    content = `${header(CHANGELOG_FILE, 'generated', ramlFile, purpose)}\n${changelogWithEntry(contract.changelog, changes, release)}`;
  } else if (ours && contract.changelog !== undefined) content = contract.changelog;
  else return tree;
  const files = new Map(tree);
  files.set(CHANGELOG_FILE, { path: CHANGELOG_FILE, owner: 'generated', content });
  return files;
}
