/**
 * Views of the project-level files: package.json, service.ini, README, app, config, database,
 * migrations, the model registry and the test samples. Each is plain data for its template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Field, Model, ServiceIR } from '../ir/types.js';
import { QUERY_OPERATORS } from '../../runtime/src/lib/query-operators.js';
import { RUNTIME_ROOT } from '../util/svcgen-files.js';
import { commentText, literal, quote } from './literal.js';
import { modelNames, routeGroupNames, groupOf, withArticle } from './names.js';
import { modelSamples } from './samples.js';
import { searchFields } from './search.js';

/** runtime/package.json: what the runtime needs, the versions every generated project depends on. */
interface RuntimePackage {
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly svcgen: {
    /** Only APIs with authentication depend on these (scripts/runtime-deps.mjs installs them for every project). */
    readonly authOnly: readonly string[];
    readonly allowScripts: Readonly<Record<string, boolean>>;
  };
}

let runtimePackage: RuntimePackage | undefined;

function runtimeManifest(): RuntimePackage {
  runtimePackage ??= JSON.parse(readFileSync(join(RUNTIME_ROOT, 'package.json'), 'utf8')) as RuntimePackage;
  return runtimePackage;
}

export function packageJson(ir: ServiceIR): string {
  const runtime = runtimeManifest();
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
    dependencies: Object.fromEntries(
      Object.entries(runtime.dependencies).filter(([name]) => ir.auth || !runtime.svcgen.authOnly.includes(name)),
    ),
    devDependencies: runtime.devDependencies,
    // npm 11 asks before running install scripts; better-sqlite3 needs its build.
    allowScripts: runtime.svcgen.allowScripts,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
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

/** What the values of each kind of operator look like in the README's table. */
const SAMPLE_VALUES = { one: 'value', list: 'a,b', text: 'text', boolean: 'true' } as const;
const TAKES = {
  one: ' (one value)',
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
  return {
    operators: queryOperatorRows(),
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
