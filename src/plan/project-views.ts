/**
 * Views of the project-level files: package.json, service.ini, README, app, config, database,
 * migrations, the model registry and the test samples. Each is plain data for its template.
 */
import type { Field, Model, ServiceIR } from '../ir/types.js';
import { commentText, literal, quote } from './literal.js';
import { modelNames, routeGroupNames, groupOf, withArticle } from './names.js';
import { OperationIds, operationKey, routeOperationIds } from './openapi/operation-ids.js';
import { modelSamples } from './samples.js';
import { searchFields } from './search.js';

/** Versions the generated project depends on: the newest majors that still run on Node 20. */
const DEPENDENCIES = {
  // CORS (`[cors]` in service.ini): the headers, and the answers to preflight requests.
  '@fastify/cors': '^11.4.3',
  // Per-client limits on writes and on the auth routes (`[rate_limit]` in service.ini).
  '@fastify/rate-limit': '^11.2.0',
  'better-sqlite3': '^12.11.1',
  fastify: '^5.12.8',
  // What the route plugins share, decorated once on the instance (lib/http/services.ts).
  'fastify-plugin': '^6.0.1',
  ini: '^6.0.0',
  kysely: '^0.28.18',
  // 6.x: the 7.x driver needs Node 20.19.
  mongodb: '^6.22.0',
  pg: '^8.23.1',
  // Readable logs when the service writes to a terminal (`npm run dev`); JSON lines otherwise.
  'pino-pretty': '^13.2.0',
  // The assets of the /docs page, served from node_modules (it works offline).
  'swagger-ui-dist': '^5.35.0',
};
const DEV_DEPENDENCIES = {
  '@types/better-sqlite3': '^7.6.13',
  '@types/ini': '^4.1.1',
  '@types/node': '^20.19.43',
  '@types/pg': '^8.23.1',
  typescript: '^7.0.2',
  vitest: '^4.1.12',
};

/** What authentication adds (only to APIs that configure it; scripts/project-deps.mjs installs them for every project). */
export const AUTH_DEPENDENCIES = {
  '@fastify/cookie': '^11.1.5',
  argon2: '^0.45.1',
  // Verifies the bcrypt hashes of users brought over from Ramses (replaced by argon2id at login); pure JS.
  bcryptjs: '^3.0.3',
};

export function packageJson(ir: ServiceIR): string {
  const pkg = {
    name: ir.name,
    version: '1.0.0',
    description: ir.title,
    private: true,
    type: 'module',
    engines: { node: '>=20.17' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      prestart: 'npm run build',
      start: 'node dist/server.js',
      // tsc --watch and node --watch dist/server.js (scripts/dev.mjs): no dependency of its own.
      dev: 'node scripts/dev.mjs',
      migrate: 'npm run build && node dist/db/migrate.js',
      typecheck: 'tsc --noEmit',
      test: 'vitest run',
    },
    dependencies: ir.auth ? sortKeys({ ...DEPENDENCIES, ...AUTH_DEPENDENCIES }) : DEPENDENCIES,
    devDependencies: DEV_DEPENDENCIES,
    // npm 11 asks before running install scripts; better-sqlite3 needs its build.
    allowScripts: { 'better-sqlite3': true },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

function sortKeys<T extends Record<string, string>>(o: T): T {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))) as T;
}

export function serviceIniView(ir: ServiceIR) {
  return {
    // In a `;` comment: one line, or the title could add settings.
    title: commentText(ir.title),
    mongodbUrl: `mongodb://127.0.0.1:27017/${ir.name}`,
    ticketSecret: ir.auth?.ticket?.secretSetting ?? null,
  };
}

export function configView(ir: ServiceIR) {
  return {
    extraKeys: literal(ir.auth?.ticket ? [ir.auth.ticket.secretSetting] : []),
    mongodbUrl: quote(`mongodb://127.0.0.1:27017/${ir.name}`),
  };
}

export function appView(ir: ServiceIR) {
  const groups = [...new Set(ir.routes.map((r) => groupOf(r)))];
  return {
    auth: ir.auth !== null,
    basePath: quote(ir.basePath),
    title: quote(ir.title),
    plugins: groups.map((g) => ({ name: routeGroupNames(g).plugin, file: routeGroupNames(g).file })),
  };
}

/** Every model with its names: for the model registry and the database's repositories. */
export function modelsView(ir: ServiceIR) {
  return { models: ir.models.map((m) => ({ name: m.name, ...modelNames(m) })) };
}

export function samplesView(ir: ServiceIR) {
  return {
    models: ir.models.map((m) => {
      const samples = modelSamples(m);
      return {
        name: m.name,
        sample: `(n: number): ${m.name}Create => ({ ${samples.properties} })`,
        change: samples.change ? `{ ${samples.change.field}: ${samples.change.value} }` : '{}',
      };
    }),
  };
}

// --- README ---------------------------------------------------------------------------------------

export function readmeView(ir: ServiceIR) {
  const operationIds = routeOperationIds(ir, new OperationIds());
  return {
    title: md(ir.title),
    basePath: ir.basePath || '/',
    healthPath: `${ir.basePath}/health`,
    documentation: ir.documentation.map((d) => ({ title: md(d.title), content: d.content.trim() })),
    routes: ir.routes.flatMap((route) =>
      route.operations
        .filter((o) => o.method !== 'HEAD')
        .map((o) => ({
          method: o.method,
          path: cell(`${ir.basePath}${route.ramlPath}`),
          action: o.action,
          operationId: operationIds.get(operationKey(o.method, route.path)) ?? '',
          description: cell(o.description ?? routeSummary(route.kind, route.model, o.action)),
        })),
    ),
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
    auth: readmeAuth(ir),
    custom: {
      handlers: ir.userCode.handlers.map((h) => ({
        name: h.name,
        uses: cell(h.usedBy.map((u) => `${u.event} of ${u.model}`).join(', ')),
      })),
      processors: ir.userCode.processors.map((p) => ({
        name: p.name,
        uses: cell(p.usedBy.map((u) => `${u.model}.${u.field}`).join(', ')),
      })),
      exampleRepository: modelNames(ir.models.find((m) => !m.internal) ?? { name: 'Item' }).property,
    },
  };
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
    ticket: auth.ticket !== null,
    cookieName: auth.ticket?.cookieName ?? '',
    apiKey: auth.apiKey !== null,
    usersPath: usersRoute ? usersRoute.ramlPath.split('/')[1] : 'users',
    principals: ir.userCode.principals.length > 0,
    placeholder: '{{name}}',
  };
}

/** The first top-level collection that takes POST, for the README's curl examples. */
function exampleCollection(ir: ServiceIR) {
  const route = ir.routes.find(
    (r) => r.kind === 'collection' && !r.parent && r.operations.some((o) => o.action === 'create'),
  );
  const model = route && ir.models.find((m) => m.name === route.model);
  return route && model ? { path: `${ir.basePath}${route.ramlPath}`, sortField: model.primaryKey } : null;
}

/** A one-line summary of what an action does on a route, for the README and the OpenAPI document. */
export function routeSummary(kind: string, model: string, action: string): string {
  const what: Record<string, string> = {
    index: kind === 'attribute' ? 'read the field' : `list ${model} objects`,
    create: kind === 'attribute' ? 'merge into the field' : `create ${withArticle(model)}`,
    update_many: `change the ${model} objects the filters select`,
    delete_many: `delete the ${model} objects the filters select`,
    show: `read ${withArticle(model)}`,
    update: `change fields of ${withArticle(model)}`,
    replace: `replace ${withArticle(model)}`,
    delete: `delete ${withArticle(model)}`,
    collection_options: 'list the allowed methods',
    item_options: 'list the allowed methods',
  };
  const text = what[action] ?? action;
  return text.charAt(0).toUpperCase() + text.slice(1);
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

function characters(count: number): string {
  return count === 1 ? '1 character' : `${count} characters`;
}

function rules(field: Field): string {
  const parts: string[] = [];
  if (field.primaryKey) parts.push('primary key');
  if (field.generated) parts.push('set by the service');
  if (field.requiredOnCreate) parts.push('required');
  if (field.unique) parts.push('unique');
  if (field.minLength !== null) parts.push(`at least ${characters(field.minLength)}`);
  if (field.maxLength !== null) parts.push(`at most ${characters(field.maxLength)}`);
  if (field.minValue !== null) parts.push(`≥ ${field.minValue}`);
  if (field.maxValue !== null) parts.push(`≤ ${field.maxValue}`);
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
