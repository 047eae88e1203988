/**
 * The plan→render boundary: each project template (`templates/project/<name>.hbs`) and the view it
 * is rendered with. A template sees only its view, so this map is everything a template can use.
 */
import type { aclTestView, authTestView, authView, principalStubView, principalTypesView } from './auth/views.js';
import type { ClientView } from './client/views.js';
import type { containerView } from './project/container.js';
import type { eventTypesView, handlerStubView, modelEventsView, processorStubView } from './events/views.js';
import type { committedView, CommittedModelView } from './outbox/views.js';
import type { MigrationView, migrationsIndexView } from './migrations/plan.js';
import type { ModelView } from './models/model-file.js';
import type { modelNames } from './shared/names.js';
import type { modelsView } from './models/views.js';
import type { readmeView } from './project/readme.js';
import type { appView, configView, serviceIniView } from './project/views.js';
import type { customSamplesView, sampleOverridesView, samplesView } from './tests/samples-view.js';
import type { RoutesView } from './routes/views.js';
import type { TestsView } from './tests/views.js';

export interface Views {
  'acl.test.ts': ReturnType<typeof aclTestView>;
  'api.test.ts': TestsView;
  'app.ts': ReturnType<typeof appView>;
  'auth.ts': ReturnType<typeof authView>;
  'auth.test.ts': ReturnType<typeof authTestView>;
  'client.ts': ClientView;
  'committed.ts': ReturnType<typeof committedView>;
  'committed-stub.ts': CommittedModelView;
  'subscribers.ts': ReturnType<typeof committedView>;
  'compose.yaml': ReturnType<typeof containerView>;
  'config.ts': ReturnType<typeof configView>;
  'db.ts': ReturnType<typeof modelsView>;
  'default-stub.ts': DefaultStubView;
  Dockerfile: ReturnType<typeof containerView>;
  'events.ts': ReturnType<typeof eventTypesView>;
  'model-events.ts': ReturnType<typeof modelEventsView>;
  'custom-samples-stub.ts': ReturnType<typeof customSamplesView>;
  'extend-stub.ts': Record<string, never>;
  'handler-stub.ts': ReturnType<typeof handlerStubView>;
  'migration.ts': MigrationView;
  'migrations.ts': ReturnType<typeof migrationsIndexView>;
  'model.ts': ModelView;
  'models-index.ts': ReturnType<typeof modelsView>;
  'principal-stub.ts': ReturnType<typeof principalStubView>;
  'principals.ts': ReturnType<typeof principalTypesView>;
  'processor-stub.ts': ReturnType<typeof processorStubView>;
  'README.md': ReturnType<typeof readmeView>;
  'repository.ts': RepositoryView;
  'routes.ts': RoutesView;
  'samples.ts': ReturnType<typeof samplesView>;
  'sample-overrides.ts': ReturnType<typeof sampleOverridesView>;
  'service.ini': ReturnType<typeof serviceIniView>;
}

export type TemplateName = keyof Views;

type TemplateSources = {
  [T in TemplateName]: { readonly kind: 'template'; readonly template: T; readonly view: Views[T] };
};

/** A template with its view; `TemplateSource<K>` for one template, the union of all by default. */
export type TemplateSource<K extends TemplateName = TemplateName> = TemplateSources[K];

/** A planned template file: the one place a template and its view are put together. */
export function templateSource<K extends TemplateName>(template: K, view: Views[K]): TemplateSource<K> {
  // TypeScript cannot see that an object of a generic K is a member of the mapped union.
  return { kind: 'template', template, view } as TemplateSource<K>;
}

/** `src/repositories/<model>.ts`: the repository type of one model. */
export type RepositoryView = ReturnType<typeof modelNames> & {
  readonly name: string;
  /** The relationships kept in other models' rows, as a union of quoted names; null when none. */
  readonly linked: string | null;
  readonly linkedText: string;
  readonly firstLinked: string;
  readonly one: boolean;
};

/** A user-owned stub for a `{{name}}` default value. */
export interface DefaultStubView {
  readonly placeholder: string;
  readonly functionName: string;
  /** `Model.field, …`: where the default is used. */
  readonly usedBy: string;
  /** The models whose field types it returns. */
  readonly imports: readonly { readonly name: string; readonly alias: string | null; readonly file: string }[];
  /** What it returns: the type of the fields it gives a value to, or null. */
  readonly returnType: string;
}
