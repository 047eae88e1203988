/**
 * The generated README: how to run the service, its routes, objects, query language, writing,
 * errors and authentication. Plain data for templates/project/README.md.hbs.
 */
import type { Field, Model, ServiceIR } from '../../ir/types.js';
import { QUERY_OPERATORS } from '../../../runtime/src/lib/query-operators.js';
import { isSafeIdentifier } from '../../ir/naming.js';
import { defaultGroups } from '../../ir/users.js';
import { clientAccessors } from '../client/accessors.js';
import { helperNames } from '../client/helper-names.js';
import { DEFAULT_PRECISION, isSecretField } from '../shared/field-types.js';
import { sampleObject, unsampledRequired } from '../shared/samples.js';
import { camel, modelNames } from '../shared/names.js';
import { OperationIds, operationKey, routeOperationIds } from '../openapi/operation-ids.js';
import { settingEnv } from './container.js';
import { openApiDocument } from '../openapi/document.js';
import { openApiPath } from '../openapi/paths.js';
import { routeSummary } from '../shared/route-summary.js';
import { searchFields } from '../shared/search.js';
import { eventTypes } from '../shared/event-types.js';
import { subscriberName } from '../outbox/views.js';

// --- README ---------------------------------------------------------------------------------------

/** What the values of each kind of operator look like in the README's table. */
const SAMPLE_VALUES = { one: 'value', list: 'a,b', text: 'text', boolean: 'true' } as const;
const TAKES = {
  one: '',
  list: ' (comma-separated, or the parameter repeated)',
  text: ' (commas are part of the text)',
  boolean: '',
} as const;

/** The README's table of filter operators: the runtime's own table (runtime/src/lib/query-operators.ts). */
function queryOperatorRows() {
  return QUERY_OPERATORS.map((op) => ({
    parameter: `field${op.suffix === '' ? '' : `__${op.suffix}`}=${SAMPLE_VALUES[op.takes]}`,
    meaning: `${op.meaning}${TAKES[op.takes]}`,
  }));
}

export function readmeView(ir: ServiceIR) {
  const operationIds = routeOperationIds(ir, new OperationIds());
  return {
    operators: queryOperatorRows(),
    title: md(ir.title),
    clientPackage: `${ir.name}-client`,
    basePath: ir.basePath || '/',
    healthPath: `${ir.basePath}/health`,
    documentation: ir.documentation.map((d) => ({ title: md(d.title), content: d.content.trim() })),
    routes: ir.routes.flatMap((route) =>
      route.operations
        .filter((o) => o.method !== 'HEAD')
        .map((o) => ({
          method: o.method,
          path: cell(`${ir.basePath}${openApiPath(route.path)}`),
          action: o.action,
          operationId: operationIds.get(operationKey(o.method, route.path)) ?? '',
          description: cell(o.description ?? routeSummary(route.kind, route.model, o.action)),
        })),
    ),
    serviceRoutes: serviceRoutes(ir),
    models: ir.models
      .filter((m) => !m.internal)
      .map((m) => ({
        name: m.name,
        table: m.table,
        schemaFile: cell(m.schemaFile),
        primaryKey: m.primaryKey,
        fields: m.fields.map((f) => ({ name: f.name, type: cell(fieldType(m, f)), rules: cell(rules(f)) })),
        searched: searchFields(m)
          .map((f) => `\`${f.name}\``)
          .join(', '),
      })),
    example: exampleCollection(ir),
    clientExample: clientExample(ir),
    auth: readmeAuth(ir),
    events: readmeEvents(ir),
    custom: {
      handlers: ir.userCode.handlers.map((h) => ({
        name: h.name,
        uses: cell(h.usedBy.map((u) => `${u.event} of ${u.model}`).join(', ')),
      })),
      processors: ir.userCode.processors.map((p) => ({
        name: p.name,
        uses: cell(p.usedBy.map((u) => `${u.model}.${u.field}`).join(', ')),
      })),
      ...scriptExample(ir),
    },
  };
}

/** The model the README's script examples read and change. */
function scriptExample(ir: ServiceIR) {
  const model = ir.models.find((m) => !m.internal);
  return {
    exampleRepository: modelNames(model ?? { name: 'Item' }).property,
    exampleModel: model?.name ?? 'Item',
    examplePrimaryKey: model?.primaryKey ?? 'id',
  };
}

/**
 * The routes the service adds to the API's (health, the auth routes, `/users/self`, the change
 * feed, webhooks' deliveries), as the OpenAPI document has them: the same operationIds and summaries.
 */
function serviceRoutes(ir: ServiceIR) {
  const own = new Set(ir.routes.map((r) => openApiPath(r.path)));
  const paths = openApiDocument(ir)['paths'] as Record<
    string,
    Record<string, { operationId?: string; summary?: string }>
  >;
  return Object.entries(paths)
    .filter(([path]) => !own.has(path))
    .flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => typeof op === 'object' && op !== null && typeof op.operationId === 'string')
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          path: cell(`${ir.basePath}${path}`),
          operationId: op.operationId!,
          description: cell(op.summary ?? ''),
        })),
    );
}

/** The outbox's event types, for the README's "Events and webhooks" (null: no route changes anything). */
function readmeEvents(ir: ServiceIR) {
  const types = [...eventTypes(ir)].flatMap(([model, verbs]) => verbs.map((verb) => `${model}.${verb}`));
  if (types.length === 0) return null;
  const first = types[0]!;
  const model = first.slice(0, first.indexOf('.'));
  return { types: types.map((t) => `\`${t}\``).join(', '), example: first, model, stub: subscriberName(model) };
}

function readmeAuth(ir: ServiceIR) {
  const auth = ir.auth;
  if (!auth) return null;
  const usersRoute = ir.routes.find((r) => r.model === auth.userModel && r.kind === 'item' && r.parent === null);
  return {
    schemes: [auth.ticket ? 'cookie logins (x-Ticket)' : null, auth.apiKey ? 'API tokens (x-ApiKey)' : null]
      .filter(Boolean)
      .join(' and '),
    secretSetting: auth.ticket?.secretSetting ?? null,
    secretEnv: auth.ticket ? settingEnv(auth.ticket.secretSetting) : null,
    ticket: auth.ticket !== null,
    cookieName: auth.ticket?.cookieName ?? '',
    apiKey: auth.apiKey !== null,
    usersPath: usersRoute ? usersRoute.ramlPath.split('/')[1] : 'users',
    /** Whether an admin can change a user's groups over HTTP (the users' item route takes PATCH). */
    usersPatch: usersRoute?.operations.some((o) => o.method === 'PATCH') ?? false,
    principals: ir.userCode.principals.length > 0,
    /** The type of `request.user` (models/<user>.ts): the caller's own row. */
    signedIn: modelNames({ name: auth.userModel }).signedIn,
    placeholder: '{{name}}',
    /** The groups a registered user starts in, as the user model's `groups` default says. */
    newcomerGroups: newcomerGroups(ir),
  };
}

function newcomerGroups(ir: ServiceIR): string {
  const groups = defaultGroups(ir);
  return groups === undefined
    ? 'none: its `groups` has no default'
    : groups.length
      ? `\`${JSON.stringify(groups)}\``
      : 'none: its default is `[]`';
}

/** The first top-level collection that takes POST, for the README's curl examples. */
function exampleCollection(ir: ServiceIR) {
  const creating = ir.routes.filter(
    (r) => r.kind === 'collection' && !r.parent && r.operations.some((o) => o.action === 'create'),
  );
  const modelOf = (name: string) => ir.models.find((m) => m.name === name);
  // One whose sample is a whole body: a required link it cannot give made a probe's curl a 400.
  const route =
    creating.find((r) => {
      const model = modelOf(r.model);
      return model !== undefined && unsampledRequired(model).length === 0;
    }) ?? creating[0];
  const model = route && modelOf(route.model);
  if (!route || !model) return null;
  // The generated tests' first sample, as a shell's single-quoted word (a new user found `{ … }` there).
  const body = JSON.stringify(sampleObject(model, 1)).replace(/'/g, `'\\''`);
  return { path: `${ir.basePath}${route.ramlPath}`, sortField: model.primaryKey, body };
}

/**
 * The README's five lines of the typed client: the first top-level collection it can list, filtered
 * by a text field where the model has one, sorted by its key, newest first.
 */
function clientExample(ir: ServiceIR) {
  const { access } = clientAccessors(ir);
  const route = ir.routes.find(
    (r) => r.kind === 'collection' && !r.parent && r.operations.some((o) => o.action === 'index'),
  );
  const model = route && ir.models.find((m) => m.name === route.model);
  const accessor = route && access.get(route)?.[0]?.name;
  if (!route || !model || !accessor) return null;
  const text = model.fields.find(
    (f) => f.type === 'string' && !f.primaryKey && !isSecretField(model, f) && /^[A-Za-z_]\w*$/.test(f.name),
  );
  const variable = camel(model.name);
  return {
    basePath: ir.basePath,
    accessor,
    variable: isSafeIdentifier(variable) && variable !== 'api' && variable !== 'page' ? variable : 'item',
    where: text ? `where: { ${text.name}: { contains: 'a' } }, ` : '',
    sortField: model.primaryKey,
    // `ApiError_` where a model is named ApiError (client/src/index.ts exports it so).
    apiError: helperNames(ir)('ApiError'),
  };
}

function fieldType(model: Model, field: Field): string {
  if (field.type === 'relationship') {
    const r = model.relationships.find((x) => x.name === field.name)!;
    return r.cardinality === 'many' ? `keys of ${r.target}` : `key of ${r.target}`;
  }
  if (field.type === 'foreign_key')
    return `foreign key → ${field.foreignKey!.model}.${field.foreignKey!.column} (read-only)`;
  if (field.type === 'list') return `list of ${field.itemType ?? 'string'}`;
  return field.type;
}

/** A decimal's digits, as it is stored (rounded to its scale, half away from zero). */
function decimalDigits(precision: number, scale: number): string {
  const whole = precision - scale;
  const after =
    scale === 0
      ? 'rounded to a whole number'
      : `rounded to ${scale} ${scale === 1 ? 'digit' : 'digits'} after the point`;
  return `${after}, at most ${whole} ${whole === 1 ? 'digit' : 'digits'} before it`;
}

function characters(count: number): string {
  return count === 1 ? '1 character' : `${count} characters`;
}

function rules(field: Field): string {
  const parts: string[] = [];
  if (field.primaryKey) parts.push('primary key');
  if (field.generated) parts.push('set by the service');
  if (field.readOnly && !field.generated) parts.push('read-only: set by the service (or an admin)');
  if (field.writeOnce && field.type !== 'foreign_key')
    parts.push('write-once: set when created, then changed by the service (or an admin)');
  if (field.requiredOnCreate) parts.push('required');
  if (field.unique) parts.push('unique');
  if (field.minLength !== null) parts.push(`at least ${characters(field.minLength)}`);
  if (field.maxLength !== null) parts.push(`at most ${characters(field.maxLength)}`);
  if (field.minValue !== null) parts.push(`≥ ${field.minValue}`);
  if (field.maxValue !== null) parts.push(`≤ ${field.maxValue}`);
  if (field.type === 'decimal' && (field.precision !== null || field.scale !== null))
    parts.push(decimalDigits(field.precision ?? DEFAULT_PRECISION, field.scale ?? 0));
  if (field.choices) parts.push(`one of ${field.choices.map((c) => JSON.stringify(c)).join(', ')}`);
  if (field.default)
    parts.push(
      `default ${field.default.kind === 'literal' ? JSON.stringify(field.default.value) : field.default.kind === 'now' ? 'now' : `{{${field.default.name}}}`}`,
    );
  if (field.onUpdate)
    parts.push(
      `on update ${field.onUpdate.kind === 'literal' ? JSON.stringify(field.onUpdate.value) : field.onUpdate.kind === 'now' ? 'now' : `{{${field.onUpdate.name}}}`}`,
    );
  if (field.helpText) parts.push(field.helpText);
  return parts.join('; ');
}

/** Text in a Markdown table cell: no line breaks, no column separators. */
function cell(text: string): string {
  return md(text).replace(/\|/g, '\\|');
}

function md(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/</g, '&lt;')
    .trim();
}
