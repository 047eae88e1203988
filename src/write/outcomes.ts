/**
 * What a write run has to say about the files it did not write as planned, as
 * diagnostics located at those files: refusals are errors (nothing written), files kept are
 * warnings (reported on every run until the user acts).
 */
import { basename, dirname, join } from 'node:path';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/source.js';
import { commentStyle } from '../output.js';
import type { Change } from './changes.js';
import { fileAt } from '../outdir/out-dir.js';

export function reportOutcomes(
  changes: readonly Change[],
  outDir: string,
  ramlFile: string,
  bag: DiagnosticBag,
  /** `--check`: only what a write would keep and warn of (it lists the refusals among the changes). */
  warningsOnly = false,
  /** What the API renamed (`_renamed_from`), old name → new, as file names have them (`time-entry` → `work-log`). */
  renames: readonly (readonly [string, string])[] = [],
): void {
  for (const change of changes) {
    if (
      warningsOnly &&
      change.kind !== 'stale-edited' &&
      change.kind !== 'unused' &&
      !change.restored &&
      !change.adopted
    )
      continue;
    const span = fileAt(join(outDir, change.path));
    const { path } = change;
    switch (change.kind) {
      case 'conflict':
        bag.report('SVC3005', `refusing to overwrite ${path}: it was changed since svcgen wrote it`, {
          span,
          hint: 'move your changes to the user-owned files, or run again with --force to overwrite',
        });
        break;
      case 'foreign':
        bag.report('SVC3006', `refusing to overwrite ${path}: svcgen did not write it`, {
          span,
          hint: 'svcgen overwrites only the files its manifest records as generated and unedited; move the file away, or run again with --force to overwrite',
        });
        break;
      case 'stale-edited':
        bag.report('SVC3007', `kept ${path}: ${staleReason(change)}; delete it if it is not needed`, {
          span,
          ...(change.unproven && {
            hint: 'svcgen deletes a file only when the file itself shows it wrote it (its first line is the generated header): the manifest is not enough, as anyone can edit it',
          }),
        });
        break;
      case 'unused': {
        // User code is never deleted: a stub the API stopped using is named on every run until the user deletes it.
        // Only a stub this run left unused has a successor among the stubs this run adds: one an
        // earlier run left so was told to move its code to a new model's stub that had nothing to do with it.
        const successor = change.unusedBefore ? undefined : successorOf(changes, path, renames);
        const gone = typesGone(changes, change.before ?? '');
        const breaks = gone.length
          ? `; it no longer compiles (${gone.join('; ')}), so npm run build fails until you move its code and delete it`
          : '';
        bag.report(
          'SVC3008',
          `unused ${path}: ${ramlFile} no longer refers to it; kept (yours: delete it when you no longer need it)${breaks}`,
          {
            span,
            ...(successor
              ? { hint: `renamed? ${successor} is new in this run, as an empty stub: move this file's code there` }
              : gone.length
                ? {
                    hint: 'move its code into the function that took its place (its stub in the same folder), or delete it',
                  }
                : {}),
          },
        );
        break;
      }
      case 'keep':
        if (change.adopted) reportAdopted(change, span, ramlFile, bag);
        break;
      case 'add':
        // A stub the API still names, deleted: it comes back empty, and its code does nothing until written.
        if (change.restored)
          bag.report(
            'SVC3009',
            `${warningsOnly ? 'would re-create' : 're-created'} ${path}, which was missing: ${ramlFile} still refers to it, and a new stub does nothing until you write it`,
            {
              span,
              hint: 'if it held your code, restore it from version control; if the API no longer needs it, take its name out',
            },
          );
        break;
      default:
        break;
    }
  }
}

/**
 * A file of the user's found where svcgen creates a stub (a handler named in the API for the first
 * time, whose file the user had written already): it is kept and becomes the stub, said once, with
 * what the stub would export. Silently taken, it failed the build in a generated module that
 * imports the stub's function, far from the file.
 */
function reportAdopted(change: Change, span: Span, ramlFile: string, bag: DiagnosticBag): void {
  const exported = [
    ...(change.after ?? '').matchAll(/^export (?:default )?(?:async )?(?:function|const|class) ?(\w*)/gm),
  ]
    .map((found) => found[1] || 'default')
    .join(', ');
  bag.report(
    'SVC3013',
    `took ${change.path} as the stub ${ramlFile} needs there: svcgen did not create it, and keeps it as it is${exported ? `; it must export what the stub would (${exported})` : ''}`,
    { span, hint: 'if it is not meant as that stub, move it away and generate again: svcgen then creates the stub' },
  );
}

function staleReason(change: Change): string {
  if (!change.unproven) return 'svcgen no longer generates it, but it was edited';
  return commentStyle(change.path)
    ? "the manifest records it as generated, but it does not begin with svcgen's generated header"
    : 'svcgen no longer generates it, and a file of its type has no header to show svcgen wrote it';
}

/**
 * A file of the user's that this run adds in the folder of `path` (a handler renamed in the schema:
 * its old file unused, its new stub empty), which would otherwise run no code of theirs silently.
 * Where the API says what it renamed, the stub of the new name is the old one's, and no other
 * file's: a probe's removed model was told to move its code to the stub of a renamed one.
 */
function successorOf(
  changes: readonly Change[],
  path: string,
  renames: readonly (readonly [string, string])[],
): string | undefined {
  const folder = dirname(path);
  const added = new Set(
    changes.filter((c) => c.kind === 'add' && c.owner === 'user' && dirname(c.path) === folder).map((c) => c.path),
  );
  const renamedTo = (file: string) =>
    renames.flatMap(([from, to]) => (basename(file) === `${from}.ts` ? [join(dirname(file), `${to}.ts`)] : []));
  const own = renamedTo(path).find((p) => added.has(p));
  if (own) return own;
  const unused = changes.filter((c) => c.kind === 'unused' && dirname(c.path) === folder);
  for (const other of unused) for (const claimed of renamedTo(other.path)) added.delete(claimed);
  return added.values().next().value;
}

/**
 * The types a kept stub imports from a generated module (src/events.ts: its `ComputeFineEvent`;
 * src/principals.ts: its `…Object`) that this run's module no longer exports, named with it
 * (`src/events.ts has no ComputeFineEvent`): a handler renamed in the schema takes its event type
 * along, a principal no x-ACL names its object type, and the old stub then fails the build.
 */
function typesGone(changes: readonly Change[], stub: string): string[] {
  const gone: string[] = [];
  for (const found of stub.matchAll(/import\s+type\s*\{([^}]*)\}\s*from\s*'(?:\.\.\/)+(events|principals)\.js'/g)) {
    const module = `src/${found[2]!}.ts`;
    const generated = changes.find((c) => c.path === module);
    const exported = generated ? (generated.kind === 'delete' ? '' : (generated.after ?? generated.before)) : undefined;
    if (exported === undefined) continue;
    const names = found[1]!
      .split(',')
      .map((name) =>
        name
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((name) => name !== '' && !new RegExp(`^export type ${name}\\b`, 'm').test(exported));
    if (names.length) gone.push(`${module} has no ${names.join(', ')}`);
  }
  return gone;
}
