/**
 * Build stage: the expanded RAML and its JSON schemas → the service model (IR), reporting every
 * problem found on the way. The result is always a complete IR (parts that could not be read are
 * left out), so later checks and `inspect --ir` work on broken input too. What a reported error
 * left out is recorded as poisoned (poisoned.ts), so that the steps after it do not echo it.
 */
import { withholdsFields } from '../privacy.js';
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import type { Span } from '../../diagnostics/source.js';
import type { YScalar } from '../../load/ynode.js';
import type { RamlApi } from '../../raml/model.js';
import { didYouMean } from '../../util/suggest.js';
import { slug } from '../naming.js';
import type { Acl, EventBinding, Field, Model, Route, ServiceIR, UserFunction } from '../types.js';
import { defineModels, reportMisnamedDocuments, reportMissingModels } from './definitions.js';
import { readEventHandlers } from './events.js';
import { reportUnknownRequired, warnOfDocumentationOnly, type ModelDraft, type NameList } from './models.js';
import { pathTree, ROUTER_SYNTAX, ROUTER_SYNTAX_MEANS } from './paths.js';
import { Poisoned } from './poisoned.js';
import type { HandlerUse, IrSources } from '../sources.js';
import { resolveRelationships } from './relationships.js';
import { buildRoutes } from './routes.js';
import { resolveUniqueTogether } from './unique-together.js';
import { readAcls, readAuthSchemes } from './security.js';
import { checkStorageNames } from './storage-names.js';
import { addCredentialModel, addLoginFailureModel, addLoginNameModel, settleUserModel } from './user-model.js';

export interface IrResult {
  readonly ir: ServiceIR;
  readonly sources: IrSources;
}

export interface BuildOptions {
  /** Folder of the root RAML file: schema file names are shown relative to it. */
  readonly rootDir: string;
}

export function buildIr(api: RamlApi, diagnostics: DiagnosticBag, options: BuildOptions): IrResult {
  const tree = pathTree(api, diagnostics);
  const models = new Map<string, ModelDraft>();
  const poisoned = new Poisoned();
  const definitions = { diagnostics, rootDir: options.rootDir, models, poisoned, modelSchemas: new Set<YScalar>() };
  defineModels(definitions, tree);
  const schemes = readAuthSchemes(diagnostics, api);
  const userModel = settleUserModel(diagnostics, models, schemes.span);
  if (userModel && schemes.span) {
    addCredentialModel(diagnostics, models, schemes.span);
    addLoginFailureModel(diagnostics, models, schemes.span);
    addLoginNameModel(diagnostics, models, schemes.span);
  }
  reportMissingModels(definitions, tree);
  reportMisnamedDocuments(definitions, tree);
  resolveRelationships({ diagnostics, models, poisoned });
  checkStorageNames(diagnostics, models);
  const uniques = new Map<string, (readonly string[])[]>();
  for (const model of models.values()) {
    uniques.set(model.name, resolveUniqueTogether(diagnostics, model, poisoned));
    reportUnknownRequired(diagnostics, model, poisoned);
    checkFieldLists(diagnostics, model, poisoned);
    warnOfDocumentationOnly(diagnostics, model);
  }
  const acls = readAcls(diagnostics, api);
  const routes = buildRoutes(
    { diagnostics, api, models, poisoned, aclSchemes: new Set(acls.map((a) => a.acl.name)) },
    tree,
  );
  const handlerUses: (HandlerUse & { model: string })[] = [];
  const bindings = new Map<string, EventBinding[]>();
  for (const model of models.values()) {
    const { bindings: b, uses } = readEventHandlers(diagnostics, model);
    bindings.set(model.name, b);
    handlerUses.push(...uses.map((u) => ({ ...u, model: model.name })));
  }
  const authOn = Boolean(userModel && schemes.span);
  const finished = [...models.values()]
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .map((m) => finishModel(m, bindings.get(m.name) ?? [], uniques.get(m.name) ?? [], authOn));
  const ir: ServiceIR = {
    name: slug(api.title ?? 'service'),
    title: api.title ?? 'Service',
    version: api.version ?? null,
    basePath: basePath(diagnostics, api),
    documentation: (api.documentation ?? []).flatMap((d) =>
      d.title !== undefined && d.content !== undefined ? [{ title: d.title, content: d.content }] : [],
    ),
    models: finished,
    routes,
    auth:
      userModel && schemes.span ? { userModel: userModel.name, ticket: schemes.ticket, apiKey: schemes.apiKey } : null,
    acls: acls.map((a) => a.acl).sort((a, b) => (a.name < b.name ? -1 : 1)),
    userCode: userCode(
      finished,
      acls.map((a) => a.acl),
      routes,
    ),
  };
  const sources: IrSources = {
    models: new Map([...models.values()].map((m) => [m.name, m.definedAt])),
    properties: new Map(
      [...models.values()].flatMap((m) => (m.propertiesAt ? [[m.name, m.propertiesAt] as const] : [])),
    ),
    fields: new Map(
      [...models.values()].flatMap((m) => m.fields.map((f) => [`${m.name}.${f.field.name}`, f.nameSpan] as const)),
    ),
    required: new Map(
      [...models.values()].flatMap((m) =>
        [...(m.requiredAt ?? new Map<string, Span>())].map(([name, span]) => [`${m.name}.${name}`, span] as const),
      ),
    ),
    groupFields: new Map(
      [...models.values()].flatMap((m) => m.groupFields.map((g) => [`${m.name}.${g.group}`, g.span] as const)),
    ),
    routes: routeSpans(api, routes),
    ...basePathSpan(api),
    ...documentSpan(api),
    acls: new Map(acls.map((a) => [a.acl.name, a.span])),
    aclEntries: new Map(acls.flatMap((a) => [...a.entrySpans])),
    handlers: handlerUses,
    poisoned,
    modelSchemas: definitions.modelSchemas,
  };
  return { ir, sources };
}

/** Privacy lists and `_nested_relationships` name fields of the model. */
function checkFieldLists(diagnostics: DiagnosticBag, model: ModelDraft, poisoned: Poisoned): void {
  const names = model.fields.map((f) => f.field.name);
  const check = (list: NameList | null, key: string, allowed: readonly string[], what: 'field' | 'relationship') => {
    list?.names.forEach((name, i) => {
      if (allowed.includes(name)) return;
      // A failed relationship, its backref, or a backref from a schema that was not read: reported already.
      if (names.includes(name) ? poisoned.hasField(model.name, name) : poisoned.mayBeBackref(model.name, name)) return;
      diagnostics.report('SVC2061', `"${name}" in ${key} is not a ${what} of ${model.name}`, {
        span: list.spans[i]!,
        hint:
          didYouMean(name, allowed) ??
          (allowed.length ? `${what}s of ${model.name}: ${allowed.join(', ')}` : `${model.name} has no ${what}s`),
      });
    });
  };
  check(model.publicFields, '_public_fields', names, 'field');
  check(model.authFields, '_auth_fields', names, 'field');
  check(model.hiddenFields, '_hidden_fields', names, 'field');
  for (const list of model.groupFields) check(list, `_group_fields of g:${list.group}`, names, 'field');
  warnOfPrivacyLists(diagnostics, model);
  warnOfGroupFields(diagnostics, model);
  check(
    model.nestedRelationships,
    '_nested_relationships',
    model.relationships.map((r) => r.name),
    'relationship',
  );
}

/**
 * Privacy lists that say what cannot be so: a password listed to be shown (it never is), and a
 * field anonymous callers are shown that members are not (`_public_fields` wider than
 * `_auth_fields`: a member sees less than a stranger, which a probe took for a slip).
 */
function warnOfPrivacyLists(diagnostics: DiagnosticBag, model: ModelDraft): void {
  for (const [list, key] of [
    [model.publicFields, '_public_fields'],
    [model.authFields, '_auth_fields'],
  ] as const) {
    list?.names.forEach((name, i) => {
      if (!model.isAuthModel || name !== 'password') return;
      diagnostics.report('SVC2092', `${key} of ${model.name} lists its password, which is shown to no one`, {
        span: list.spans[i]!,
        hint: 'take "password" out of the list: listed or not, no answer carries it',
      });
    });
  }
  warnOfUsersPrivateToStrangers(diagnostics, model);
  const members = model.authFields ? new Set(model.authFields.names) : null;
  // A name that is not a field is SVC2061's to say, once.
  const fields = new Set(model.fields.map((f) => f.field.name));
  model.publicFields?.names.forEach((name, i) => {
    if (members === null || members.has(name) || !fields.has(name) || (model.isAuthModel && name === 'password'))
      return;
    diagnostics.report(
      'SVC2092',
      `_public_fields of ${model.name} shows "${name}" to anonymous callers, and _auth_fields hides it from logged-in ones`,
      {
        span: model.publicFields!.spans[i]!,
        hint: `add "${name}" to _auth_fields, or take it out of _public_fields`,
      },
    );
  });
}

/**
 * A user model that limits what anonymous callers see (`_public_fields`) and not what members do:
 * with no `_auth_fields` a logged-in member sees every field of every user they may view, the
 * emails too (a probe's students read each other's). `_public_fields` alone reads as "users are
 * private", and is not.
 */
function warnOfUsersPrivateToStrangers(diagnostics: DiagnosticBag, model: ModelDraft): void {
  const shown = model.publicFields;
  if (!model.isAuthModel || shown === null || model.authFields !== null) return;
  const hidden = new Set(model.hiddenFields?.names ?? []);
  const more = model.fields
    .map((f) => f.field.name)
    .filter((name) => !shown.names.includes(name) && name !== 'password' && !hidden.has(name));
  if (more.length === 0) return;
  diagnostics.report(
    'SVC2102',
    `${model.name} has _public_fields but no _auth_fields: a logged-in member sees every field of every user they may view, ${more.map((name) => `"${name}"`).join(', ')} too`,
    {
      span: shown.span,
      hint: `list what members see of other users: "_auth_fields": ${JSON.stringify(shown.names)} (a user always sees all of their own record)`,
    },
  );
}

/** A `_group_fields` entry that shows its group nothing more: all members, or no one, see the field. */
function warnOfGroupFields(diagnostics: DiagnosticBag, model: ModelDraft): void {
  for (const list of model.groupFields) {
    list.names.forEach((name, i) => {
      const problem = groupFieldProblem(model, name, `g:${list.group}`);
      if (!problem) return;
      diagnostics.report(
        'SVC2092',
        `_group_fields of ${model.name} shows "${name}" to g:${list.group}, but ${problem.why}`,
        {
          span: list.spans[i]!,
          hint: problem.hint,
        },
      );
    });
  }
}

function groupFieldProblem(model: ModelDraft, name: string, group: string): { why: string; hint: string } | undefined {
  if (model.isAuthModel) {
    const apart = `keep what only ${group} sees of a user in a model of its own, linked one-to-one, whose x-ACL lets ${group} alone read it`;
    // Their groups only admins change; a read-only field or a foreign key no caller sends.
    const field = model.fields.find((f) => f.field.name === name)?.field;
    const written = field !== undefined && !field.readOnly && field.type !== 'foreign_key' && name !== 'groups';
    return written
      ? {
          why: 'a user sees all of their own record: the user it describes sees it too, and may write it',
          hint: `${apart}; or mark "${name}" readOnly so the user cannot change it`,
        }
      : { why: 'a user sees all of their own record: the user it describes sees it too', hint: apart };
  }
  if (model.hiddenFields?.names.includes(name))
    return {
      why: '_hidden_fields shows it to admins only',
      hint: `take "${name}" out of _hidden_fields to show it to ${group}`,
    };
  if (model.authFields === null)
    return {
      why: 'without _auth_fields every member sees every field',
      hint: `list in _auth_fields the fields every member sees, without "${name}"`,
    };
  if (model.authFields.names.includes(name))
    return {
      why: '_auth_fields shows it to every member',
      hint: `take "${name}" out of _auth_fields to show it to ${group} only`,
    };
  return undefined;
}

function finishModel(
  draft: ModelDraft,
  eventHandlers: EventBinding[],
  uniqueTogether: readonly (readonly string[])[],
  authOn: boolean,
): Model {
  const pk = draft.primaryKey;
  const fields: Field[] = draft.fields.map(({ field }) => {
    const generated = field.primaryKey && field.type === 'id_field';
    // A read-only field is not the caller's to send: the service's handlers set it (checks.ts warns when none can).
    const writable = !generated && field.type !== 'foreign_key' && !field.readOnly;
    // Read-only says more than write-once: a field that is both is read-only (no create sets it either).
    const writeOnce = field.writeOnce && !field.readOnly;
    return { ...field, generated, writeOnce, requiredOnCreate: writable && field.required && field.default === null };
  });
  const list = (l: NameList | null) => (l ? [...l.names] : null);
  const model: Model = {
    name: draft.name,
    table: draft.table,
    plural: draft.plural,
    schemaFile: draft.schemaFile,
    title: draft.title,
    primaryKey: pk,
    fields,
    relationships: [...draft.relationships].sort((a, b) => (a.name < b.name ? -1 : 1)),
    isAuthModel: draft.isAuthModel,
    isDefaultUserModel: draft.isDefaultUserModel,
    internal: draft.internal ?? false,
    publicFields: list(draft.publicFields),
    authFields: list(draft.authFields),
    hiddenFields: list(draft.hiddenFields) ?? [],
    groupFields: draft.groupFields.map((l) => ({ group: l.group, fields: [...new Set(l.names)] })),
    nestedRelationships: list(draft.nestedRelationships) ?? [],
    nestingDepth: draft.nestingDepth,
    uniqueTogether,
    eventPrevious: draft.eventPrevious ?? false,
    eventHandlers,
    renamedFrom: draft.renamedFrom,
  };
  // The change feed holds back an update that changed nothing its caller may read, which it tells
  // by `changed`: a model that keeps fields from some callers has it unless it says otherwise, and
  // so does one with links kept in other models' rows, whose objects a caller may not all view (a
  // probe's member was sent a proposal's update that only moved a vote she could not see: its
  // list was [] to her before and after, and the event told her it had changed).
  if (draft.eventPrevious !== null || !authOn || model.internal) return model;
  if (!withholdsFields(model) && !linksKeptElsewhere(model)) return model;
  return { ...model, eventPrevious: true };
}

/** Whether some relationship of `model` is kept in the related model's rows (a user's `stories`). */
function linksKeptElsewhere(model: Model): boolean {
  return model.relationships.some((r) => r.foreignKey.model !== model.name);
}

/** The RAML's `title` key, else its first key (sources.ts `document`). */
function documentSpan(api: RamlApi): { document?: Span } {
  const entry = api.node.entries.find((e) => e.key.text === 'title') ?? api.node.entries[0];
  return entry ? { document: entry.key.span } : {};
}

/** Where the base path is written: `version`'s value where `baseUri` names `{version}`, else `baseUri`'s. */
function basePathSpan(api: RamlApi): { basePath?: Span } {
  const value = (key: string) => api.node.entries.find((e) => e.key.text === key)?.value.span;
  const version = api.baseUri?.includes('{version}') ? value('version') : undefined;
  const span = version ?? value('baseUri');
  return span ? { basePath: span } : {};
}

/** The base path is the path of `baseUri` with `{version}` replaced. */
function basePath(diagnostics: DiagnosticBag, api: RamlApi): string {
  const uri = api.baseUri;
  if (!uri) return '';
  const withVersion = uri.replaceAll('{version}', api.version ?? '');
  const path = withVersion.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  // Every problem of the base path is located at baseUri's value.
  const span = api.node.entries.find((e) => e.key.text === 'baseUri')?.value.span;
  const params = [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  if (params.length) {
    diagnostics.report(
      'SVC2027',
      `the base path of baseUri uses {${params.join('}, {')}}; svcgen serves a fixed base path`,
      {
        span,
        hint: 'parameters are fine in the host part (http://{host}:{port}/{version}), not in the path',
      },
    );
  }
  const clean = path
    .replace(/\{[^}]*\}/g, '')
    .replace(/\/+/g, '/')
    .replace(/\/$/, '');
  if (ROUTER_SYNTAX.test(clean)) {
    diagnostics.report('SVC2027', `the base path of baseUri is "${clean}": ${ROUTER_SYNTAX_MEANS}`, {
      span,
      hint: 'use letters, digits, "-", "_" or "." in the base path',
    });
  }
  if (clean.split('/').some((segment) => segment === '.' || segment === '..')) {
    diagnostics.report('SVC2027', `the base path of baseUri is "${clean}": a "." or ".." segment`, {
      span,
      hint: 'clients resolve "." and ".." away before they send a URL (/../v1 is /v1), so the service would never be reached: write the path they resolve to',
    });
  }
  return clean === '' || clean === '/' ? '' : clean.startsWith('/') ? clean : `/${clean}`;
}

function routeSpans(api: RamlApi, routes: readonly Route[]): Map<string, Span> {
  const byRamlPath = new Map<string, Span>();
  const visit = (list: RamlApi['resources']) => {
    for (const r of list) {
      byRamlPath.set(r.path, r.keyNode.span);
      visit(r.resources);
    }
  };
  visit(api.resources);
  const out = new Map<string, Span>();
  for (const route of routes) {
    const at =
      byRamlPath.get(route.ramlPath) ??
      [...byRamlPath.entries()].find(([p]) => p.replace(/\/+/g, '/') === route.ramlPath)?.[1];
    if (at) out.set(route.path, at);
  }
  return out;
}

/** The user-owned functions, with the models that use them (to type their stubs). */
function userCode(models: readonly Model[], acls: readonly Acl[], routes: readonly Route[]): ServiceIR['userCode'] {
  const handlers = new Collector();
  const processors = new Collector();
  const principals = new Collector();
  const callables = new Collector();
  for (const model of models) {
    for (const b of model.eventHandlers)
      for (const h of b.handlers) handlers.add(h, { model: model.name, event: `${b.phase}_${b.action}` });
    for (const f of model.fields) {
      for (const p of f.processors) processors.add(p, { model: model.name, field: f.name });
      for (const v of [f.default, f.onUpdate])
        if (v?.kind === 'callable') callables.add(v.name, { model: model.name, field: f.name });
    }
  }
  for (const acl of acls) {
    const guarded = [...new Set(routes.filter((r) => r.acl === acl.name).map((r) => r.model))].sort();
    for (const entry of [...acl.collection, ...acl.item]) {
      if (entry.principal.kind !== 'dynamic') continue;
      if (guarded.length === 0) principals.add(entry.principal.name, { model: '', acl: acl.name });
      for (const model of guarded) principals.add(entry.principal.name, { model, acl: acl.name });
    }
  }
  return {
    handlers: handlers.list(),
    processors: processors.list(),
    principals: principals.list(),
    callables: callables.list(),
  };
}

class Collector {
  readonly #uses = new Map<string, UserFunction['usedBy'][number][]>();
  readonly #seen = new Set<string>();

  add(name: string, use: UserFunction['usedBy'][number]): void {
    const key = `${name}\0${use.model}\0${use.field ?? ''}\0${use.acl ?? ''}\0${use.event ?? ''}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const list = this.#uses.get(name);
    if (list) list.push(use);
    else this.#uses.set(name, [use]);
  }

  list(): UserFunction[] {
    return [...this.#uses.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, usedBy]) => ({ name, usedBy }));
  }
}
