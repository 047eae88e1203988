/**
 * Breaking changes as diagnostics, like the data-loss findings of a migration: errors unless
 * `--allow-breaking` (then warnings, and the change is recorded in API-CHANGES.md), located at
 * the model or resource in the RAML that the user changed. Compatible changes are no problem:
 * they are listed by the command, not reported; nor are breaking ones while the contract clients
 * have is a pre-release (version 0: pre-release.ts).
 */
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import type { Span } from '../diagnostics/source.js';
import type { IrSources } from '../ir/sources.js';
import { changeText, locationOf, type ApiChange } from './change.js';

export interface BreakingPolicy {
  /** `--allow-breaking`: clients are told (API-CHANGES.md), so the change may be written. */
  readonly allowBreaking: boolean;
  /** `--check`: the out-dir holds the old contract, and records none of these changes. */
  readonly check: boolean;
  /** The old contract's version when it is a pre-release (pre-release.ts): its clients were promised nothing. */
  readonly preRelease?: string;
  /** The fields renamed with `renamed_from`, old name → new, by schema (renames.ts): a change of one is located at its new name. */
  readonly renames?: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export function reportBreakingChanges(
  changes: readonly ApiChange[],
  sources: IrSources | undefined,
  policy: BreakingPolicy,
  bag: DiagnosticBag,
): void {
  // Listed by the command instead (generate.ts), as the compatible changes are.
  if (policy.preRelease !== undefined) return;
  for (const c of changes) {
    if (!c.breaking) continue;
    const what = describeChange(c);
    const span = sources ? spanOf(c, sources, policy.renames) : undefined;
    if (policy.allowBreaking) {
      bag.report('SVC3111', `${what} (allowed by --allow-breaking)`, { span, severity: 'warning' });
      continue;
    }
    const unrecorded = policy.check ? ' — API-CHANGES.md does not record it' : '';
    bag.report('SVC3111', `breaks clients: ${what}${unrecorded}`, {
      span,
      hint: `${c.hint ? `${c.hint}. ` : ''}If clients can follow, generate with --allow-breaking: the change is recorded in API-CHANGES.md. An API nobody relies on yet can say \`version: v0\` (a pre-release): its breaking changes are listed, not refused`,
    });
  }
}

/** `PostCreate.title (POST /posts): request field made required — is now required`. */
export function describeChange(c: ApiChange): string {
  const at = locationOf(c);
  return at ? `${at}: ${changeText(c)}` : changeText(c);
}

/** Svcgen's component schemas are named after their model: `Post`, `PostCreate`, `PostUpdate`, `PostCollection`. */
function spanOf(c: ApiChange, sources: IrSources, renames: BreakingPolicy['renames'] = new Map()): Span | undefined {
  if (c.kind === 'base-path-changed') return sources.basePath;
  if (c.schema !== undefined) {
    const model = sources.models.has(c.schema) ? c.schema : c.schema.replace(/(Create|Update|Collection)$/, '');
    const written = c.path.split(/[.[]/)[0] ?? '';
    const field = renames.get(model)?.get(written) ?? written;
    // A field that is gone (or renamed): the schema's `properties`, where it was.
    return sources.fields.get(`${model}.${field}`) ?? sources.properties.get(model) ?? sources.models.get(model);
  }
  for (const operation of c.operations) {
    const path = operation.slice(operation.indexOf(' ') + 1).replace(/\{([^}]*)\}/g, ':$1');
    const span = sources.routes.get(path);
    if (span) return span;
  }
  return undefined;
}
