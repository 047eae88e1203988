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
import { changedField, changeText, locationOf, type ApiChange } from './change.js';

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
  const { fields, others } = byField(
    changes.filter((c) => c.breaking),
    policy.renames ?? new Map(),
    (name) => sources?.models.has(name) ?? false,
  );
  const report = (what: string, span: Span | undefined, hint: string | undefined) => {
    if (policy.allowBreaking) {
      bag.report('SVC3111', `${what} (allowed by --allow-breaking)`, { span, severity: 'warning' });
      return;
    }
    const unrecorded = policy.check ? ' — API-CHANGES.md does not record it' : '';
    bag.report('SVC3111', `breaks clients: ${what}${unrecorded}`, {
      span,
      hint: `${hint ? `${hint}. ` : ''}If clients can follow, generate with --allow-breaking: the change is recorded in API-CHANGES.md. An API nobody relies on yet can say \`version: v0\` (a pre-release): its breaking changes are listed, not refused`,
    });
  };
  const added = changes.filter((c) => c.kind === 'route-added');
  const removed = changes.filter((c) => c.kind === 'route-removed');
  for (const c of others) {
    // A resource renamed (with its model): said where the new one is, and which one it seems to be.
    const moved = c.kind === 'route-removed' ? movedTo(c, removed, added) : undefined;
    const movedSpan = moved === undefined ? undefined : sources?.routes.get(routeKey(`- ${moved}`));
    const span = sources ? (movedSpan ?? spanOf(c, sources, policy.renames)) : undefined;
    const hint = moved ? `did it move to ${moved}? Clients of the old path must follow` : c.hint;
    report(describeChange(c), span, hint);
  }
  // A field renamed, or removed, is one change to its clients, said once where it was said in each
  // place it shows (a probe's one removed field was five errors alike).
  for (const group of fields) {
    const span = sources ? spanOf(group.changes[0]!, sources, policy.renames) : undefined;
    if (group.to === undefined) {
      report(
        `${group.model}.${group.from} removed: ${fieldPlaces(group.changes)}`,
        span,
        `clients that read or send ${group.from} must do without it`,
      );
      continue;
    }
    report(
      `${group.model}.${group.from} renamed to ${group.to} (renamed_from keeps the stored data, but the name clients use changed): ${fieldPlaces(group.changes)}`,
      span,
      group.changes.find((c) => c.kind === 'response-field-renamed')?.hint ??
        `clients that read or send ${group.from} must use ${group.to}`,
    );
  }
}

interface FieldGroup {
  readonly model: string;
  readonly from: string;
  /** Undefined: the field is removed. */
  readonly to: string | undefined;
  readonly changes: ApiChange[];
}

/** The kinds of change a removed field makes in its model's answers and bodies, grouped as one. */
const REMOVALS: ReadonlySet<ApiChange['kind']> = new Set(['response-field-removed', 'request-field-removed']);

/**
 * The breaking changes a field renamed with renamed_from, or removed, makes, by field: in its
 * model's answers and bodies (`Post.notes`, `PostCreate.notes`…), and in the filters and
 * `_search_fields` of the reads of those answers. The rest as they are.
 */
function byField(
  breaking: readonly ApiChange[],
  renames: ReadonlyMap<string, ReadonlyMap<string, string>>,
  isModel: (name: string) => boolean,
): { fields: FieldGroup[]; others: ApiChange[] } {
  const groups = new Map<string, FieldGroup>();
  const others: ApiChange[] = [];
  for (const c of breaking) {
    const changed = changedField(c, isModel);
    const to = changed && renames.get(c.schema!)?.get(changed.field);
    if (!changed || (to === undefined && !REMOVALS.has(c.kind))) continue;
    const { model, field: from } = changed;
    const key = `${model}.${from}`;
    const group = groups.get(key) ?? { model, from, to: to ?? undefined, changes: [] };
    group.changes.push(c);
    groups.set(key, group);
  }
  for (const c of breaking) {
    if ([...groups.values()].some((g) => g.changes.includes(c))) continue;
    const group = [...groups.values()].find((g) => ofField(c, g));
    if (group) group.changes.push(c);
    else others.push(c);
  }
  return { fields: [...groups.values()], others };
}

/** A change of a read's query that a rename or removal makes: its filter by the old name, or `_search_fields` naming it. */
function ofField(c: ApiChange, group: FieldGroup): boolean {
  const read =
    c.operations.length > 0 && c.operations.every((op) => group.changes.some((g) => g.operations.includes(op)));
  if (!read) return false;
  if (c.kind === 'query-parameter-removed') return c.path === `query ${group.from}`;
  return (
    c.kind === 'enum-value-removed' &&
    c.path === 'query _search_fields[]' &&
    c.message === `no longer takes "${group.from}"`
  );
}

/** Where clients meet a renamed or removed field, by the kind of change each place shows. */
const FIELD_PLACES: readonly (readonly [ApiChange['kind'], string])[] = [
  ['response-field-renamed', 'answers'],
  ['response-field-removed', 'answers'],
  ['request-field-renamed', 'request bodies'],
  ['request-field-removed', 'request bodies'],
  ['query-parameter-removed', 'filters'],
  ['enum-value-removed', '_search_fields'],
];

/** `answers (GET /posts, …), request bodies (POST /posts), filters (GET /posts), _search_fields (GET /posts)`. */
function fieldPlaces(changes: readonly ApiChange[]): string {
  const list = (operations: readonly string[]) =>
    operations.slice(0, 3).join(', ') + (operations.length > 3 ? `, +${operations.length - 3}` : '');
  const said = FIELD_PLACES.flatMap(([kind, what]) => {
    const operations = [...new Set(changes.filter((c) => c.kind === kind).flatMap((c) => c.operations))];
    return operations.length ? [`${what} (${list(operations)})`] : [];
  });
  const rest = changes.filter((c) => !FIELD_PLACES.some(([kind]) => kind === c.kind));
  return [...said, ...rest.map(describeChange)].join(', ');
}

/** `PostCreate.title (POST /posts): request field made required — is now required`. */
export function describeChange(c: ApiChange): string {
  const at = locationOf(c);
  return at ? `${at}: ${changeText(c)}` : changeText(c);
}

/** `GET /a/{id}` → `/a/:id`: an operation's path as `IrSources.routes` keys it. */
function routeKey(operation: string): string {
  return operation.slice(operation.indexOf(' ') + 1).replace(/\{([^}]*)\}/g, ':$1');
}

/**
 * The route `change` removed seems to have moved to: a route added whose path has as many segments,
 * whose first differs (`/activities/{id}` → `/log-entries/{id}`, a resource renamed with its model)
 * while the rest is alike, and which serves the same methods, when exactly one such is added.
 */
function movedTo(change: ApiChange, removed: readonly ApiChange[], added: readonly ApiChange[]): string | undefined {
  const shape = (operation: string) =>
    routeKey(operation)
      .split('/')
      .slice(2)
      .join('/')
      .replace(/:[^/]+/g, ':');
  const depth = (operation: string) => routeKey(operation).split('/').length;
  const pathOf = (operation: string) => operation.slice(operation.indexOf(' ') + 1);
  const methods = (operations: readonly string[]) =>
    [...new Set(operations.map((op) => op.slice(0, op.indexOf(' '))))].sort().join();
  const from = change.operations[0];
  if (from === undefined) return undefined;
  // Every method the removed path served (each route removed is a change of its own).
  const served = removed.flatMap((c) => c.operations).filter((op) => pathOf(op) === pathOf(from));
  // The added routes of that shape, by path, with the methods they serve: a route moved keeps its methods.
  const byPath = new Map<string, string[]>();
  for (const op of added.flatMap((c) => c.operations))
    if (depth(op) === depth(from) && shape(op) === shape(from))
      byPath.set(pathOf(op), [...(byPath.get(pathOf(op)) ?? []), op]);
  const candidates = [...byPath].filter(([, ops]) => methods(ops) === methods(served));
  return candidates.length === 1 ? candidates[0]![0] : undefined;
}

/** Where the RAML or a schema says what the change changed: the field, the resource, or what gives the base path. */
/**
 * A field `_search_fields` no longer takes (`"search": false`): the field, where that was written,
 * when one model has a field of that name; not the route of the read (a nested one, far from it).
 */
function searchedField(c: ApiChange, sources: IrSources): Span | undefined {
  if (c.kind !== 'enum-value-removed' || c.path !== 'query _search_fields[]') return undefined;
  const name = /^no longer takes "(.+)"$/.exec(c.message)?.[1];
  const fields = [...sources.fields.entries()].filter(([key]) => key.slice(key.indexOf('.') + 1) === name);
  return fields.length === 1 ? fields[0]![1] : undefined;
}

/** Changes a field's entry in its schema's `required` array makes. */
const REQUIRED_KINDS: ReadonlySet<ApiChange['kind']> = new Set([
  'request-field-required',
  'request-field-added-required',
]);

function spanOf(c: ApiChange, sources: IrSources, renames: BreakingPolicy['renames'] = new Map()): Span | undefined {
  if (c.kind === 'base-path-changed') return sources.basePath;
  const changed = changedField(c, (name) => sources.models.has(name));
  if (changed) {
    const { model, field: written } = changed;
    const field = renames.get(model)?.get(written) ?? written;
    // Made required: where the schema's `required` says so (a backref's own span is in another schema).
    const required = REQUIRED_KINDS.has(c.kind) ? sources.required?.get(`${model}.${field}`) : undefined;
    // A field that is gone (or renamed): the schema's `properties`, where it was.
    return (
      required ??
      sources.fields.get(`${model}.${field}`) ??
      sources.properties.get(model) ??
      sources.models.get(model) ??
      sources.document
    );
  }
  const searched = searchedField(c, sources);
  if (searched) return searched;
  for (const operation of c.operations) {
    const path = operation.slice(operation.indexOf(' ') + 1).replace(/\{([^}]*)\}/g, ':$1');
    const span = sources.routes.get(path);
    if (span) return span;
  }
  // A route removed: the nearest resource above it that is still there, where it was.
  for (const operation of c.operations) {
    const segments = operation
      .slice(operation.indexOf(' ') + 1)
      .replace(/\{([^}]*)\}/g, ':$1')
      .split('/');
    for (let n = segments.length - 1; n > 1; n--) {
      const span = sources.routes.get(segments.slice(0, n).join('/'));
      if (span) return span;
    }
  }
  // A top-level route removed, with nothing above it: the RAML's title.
  return sources.document;
}
