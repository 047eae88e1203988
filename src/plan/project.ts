/**
 * The whole output tree as a value: every file of the
 * generated project with its owner, its purpose (for the header) and how to produce it. Nothing
 * here touches the disk; `render` turns the plan into contents.
 */
import type { Owner } from '../output.js';
import { staticTemplates } from './static-files.js';
import { templateSource as template, type DefaultStubView, type TemplateSource } from './views.js';
import { containerView } from './container-files.js';
import type { ServiceIR } from '../ir/types.js';
import {
  appView,
  configView,
  modelsView,
  packageJson,
  readmeView,
  serviceIniView,
  samplesView,
} from './project-views.js';
import { FieldTypes } from './field-types.js';
import { modelView } from './model-file.js';
import {
  camel,
  defaultModule,
  handlerModule,
  modelNames,
  principalModule,
  processorModule,
  routeGroupNames,
} from './names.js';
import { eventsView, handlerStubView, processorStubView } from './events-file.js';
import { routeGroups, routesView } from './route-file.js';
import { testsView } from './test-file.js';
import { aclTestView, authView, principalStubView } from './auth-file.js';
import { openApiDocument, openApiJson, openApiModule } from './openapi/document.js';
import {
  migrationsIndexView,
  NO_HISTORY,
  planMigrations,
  STORAGE_FILE,
  storageJson,
  type MigrationHistory,
  type MigrationPlan,
} from './migrations.js';

export type FileSource =
  | TemplateSource
  | { readonly kind: 'static'; readonly content: string }
  | { readonly kind: 'text'; readonly content: string }
  /** A file kept as it is on disk, header and all (a migration written by an earlier run). */
  | { readonly kind: 'verbatim'; readonly content: string };

export interface PlannedFile {
  readonly path: string;
  readonly owner: Owner;
  /** Said in the file's header. */
  readonly purpose: string;
  readonly source: FileSource;
}

export interface ProjectPlan {
  readonly files: readonly PlannedFile[];
  /** The schema's evolution: the new migration, if any, and what it does to stored data. */
  readonly migrations: MigrationPlan;
}

export interface PlanOptions {
  /** What the out-dir holds of the schema's history. */
  readonly history?: MigrationHistory;
  readonly allowDataLoss?: boolean;
}

export async function planProject(ir: ServiceIR, options: PlanOptions = {}): Promise<ProjectPlan> {
  const types = new FieldTypes(ir);
  const files: PlannedFile[] = [];
  const add = (path: string, purpose: string, source: FileSource, owner: Owner = 'generated') =>
    files.push({ path, owner, purpose, source });

  add('package.json', '', { kind: 'text', content: packageJson(ir) });
  add(
    'service.ini',
    'Settings of the service; every key can be overridden by an SVC_<KEY> environment variable.',
    template('service.ini', serviceIniView(ir)),
    'user',
  );
  add('README.md', 'How to run the service, and its HTTP API.', template('README.md', readmeView(ir)));
  add(
    'Dockerfile',
    'The service in a container: build, then run as an unprivileged user.',
    template('Dockerfile', containerView(ir)),
  );
  add(
    'compose.yaml',
    'The service and a PostgreSQL server (MongoDB commented out) for docker compose.',
    template('compose.yaml', containerView(ir)),
  );
  add(
    'src/app.ts',
    'The service as a Fastify instance: every route plugin below the base path.',
    template('app.ts', appView(ir)),
  );
  const openapi = openApiDocument(ir);
  add('openapi.json', '', { kind: 'text', content: openApiJson(openapi) });
  add('src/openapi.ts', 'The OpenAPI document (openapi.json), served at {base}/openapi.json.', {
    kind: 'text',
    content: openApiModule(openapi),
  });
  add(
    'src/events.ts',
    'The event handlers and field processors of every model, and the types they are checked against.',
    template('events.ts', eventsView(ir)),
  );
  add('src/custom/extend.ts', 'Your own plugins and routes.', template('extend-stub.ts', {}), 'user');
  add('src/config.ts', 'Reads service.ini and the SVC_* environment variables.', template('config.ts', configView(ir)));
  add(
    'src/db/index.ts',
    'Opens the database named in service.ini, migrates it, and gives the repositories of every model.',
    template('db.ts', modelsView(ir)),
  );
  const migrations = planMigrations(ir, types, options.history ?? NO_HISTORY, {
    allowDataLoss: options.allowDataLoss ?? false,
  });
  add(STORAGE_FILE, '', { kind: 'text', content: storageJson(migrations.storage) });
  add(
    'src/db/migrations.ts',
    'Every migration of the schema, in the order they are applied.',
    template('migrations.ts', migrationsIndexView(migrations.names)),
  );
  for (const existing of options.history?.migrations ?? [])
    add(existing.path, '', { kind: 'verbatim', content: existing.content }, 'migration');
  if (migrations.added) {
    const purpose =
      'A migration of the schema: svcgen wrote it once and never changes or deletes it. Databases that ran it check its checksum at every start, so do not edit it once it has run anywhere.';
    add(migrations.added.path, purpose, template('migration.ts', migrations.added.view), 'migration');
  }
  add('src/models/index.ts', 'Every model of the service.', template('models-index.ts', modelsView(ir)));
  for (const model of ir.models) {
    const names = modelNames(model);
    add(
      `src/models/${names.file}.ts`,
      `The ${model.name} model: its types, fields and request bodies.`,
      template('model.ts', await modelView(ir, model, types)),
    );
    add(
      `src/repositories/${names.file}.ts`,
      `The type of the ${model.name} repository.`,
      template('repository.ts', { name: model.name, ...names }),
    );
  }
  for (const [group, routes] of routeGroups(ir)) {
    add(
      `src/routes/${routeGroupNames(group).file}.ts`,
      `The routes below /${group}.`,
      template('routes.ts', routesView(ir, group, routes, types)),
    );
  }
  if (ir.auth) {
    add(
      'src/auth.ts',
      'The authentication schemes, the user model and the x-ACLs of the API.',
      template('auth.ts', authView(ir, ir.auth)),
    );
    add(
      'test/acl.test.ts',
      'Checks every route against the ACL matrix (svcgen inspect --acl), for anonymous callers, members, owners and admins.',
      template('acl.test.ts', aclTestView(ir)),
    );
  }
  for (const principal of ir.userCode.principals) {
    add(
      `src/${principalModule(principal.name)}.ts`,
      `The {{${principal.name}}} ACL principal.`,
      template('principal-stub.ts', principalStubView(ir, principal)),
      'user',
    );
  }
  for (const handler of ir.userCode.handlers) {
    add(
      `src/${handlerModule(handler.name)}.ts`,
      `The ${handler.name} event handler.`,
      template('handler-stub.ts', handlerStubView(handler)),
      'user',
    );
  }
  for (const processor of ir.userCode.processors) {
    add(
      `src/${processorModule(processor.name)}.ts`,
      `The ${processor.name} field processor.`,
      template('processor-stub.ts', processorStubView(processor)),
      'user',
    );
  }
  for (const callable of ir.userCode.callables) {
    add(
      `src/${defaultModule(callable.name)}.ts`,
      `The {{${callable.name}}} default value.`,
      template('default-stub.ts', defaultStubView(callable.name, callable.usedBy)),
      'user',
    );
  }
  add(
    'test/api.test.ts',
    'Tests of every route the RAML lists, on an in-memory SQLite database.',
    template('api.test.ts', testsView(ir)),
  );
  add('test/samples.ts', 'Valid data for each model, for the tests.', template('samples.ts', samplesView(ir)));
  for (const file of staticTemplates()) {
    if (!ir.auth && AUTH_ONLY.some((prefix) => file.path.startsWith(prefix))) continue;
    add(file.path, staticPurpose(file.path), { kind: 'static', content: file.content });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, migrations };
}

/** Runtime and test files that only APIs with authentication get (they need argon2 and @fastify/cookie). */
const AUTH_ONLY = ['src/lib/auth/', 'test/acl-helpers.ts'];

function defaultStubView(
  name: string,
  usedBy: readonly { readonly model: string; readonly field?: string }[],
): DefaultStubView {
  return {
    placeholder: `{{${name}}}`,
    functionName: camel(name),
    usedBy: usedBy.map((u) => `${u.model}.${u.field ?? '?'}`).join(', '),
  };
}

function staticPurpose(path: string): string {
  if (path.startsWith('src/lib/')) return 'Part of the service runtime, the same in every generated service.';
  if (path.startsWith('test/')) return 'Test helpers.';
  return '';
}
