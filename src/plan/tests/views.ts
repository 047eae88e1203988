/**
 * The view of the generated project's `test/api.test.ts`: for every route the RAML lists, tests
 * that drive it through Fastify's `inject` on an in-memory SQLite database: each listed method
 * answers with its status and body, unlisted methods get 405, unknown keys 404.
 */
import { changesUnseen } from '../../acl/unseen-writes.js';
import { parentsOf } from '../../ir/parents.js';
import { fixedRule, type FixedRule } from '../../ir/write-rules.js';
import type { Model, Operation, Relationship, Route, RouteParent, ServiceIR } from '../../ir/types.js';
import { dictEntry, unsampledRequired } from '../shared/samples.js';
import { linkToParent } from '../shared/parent-link.js';
import { literal, quote } from '../shared/literal.js';
import { withArticle } from '../shared/names.js';
import { clientAccessors, type AccessStep } from '../client/accessors.js';

export interface TestsView {
  /** Some model has a secret field (the user's password), so expectations leave it out. */
  readonly usesShown: boolean;
  readonly suites: readonly { readonly title: string; readonly tests: readonly TestView[] }[];
}

/**
 * One test of `test/api.test.ts`: `kind` names the partial of api.test.ts.hbs that writes its
 * body; values are source text (quoted where they are strings in the test).
 */
export type TestView = {
  readonly title: string;
  readonly seed: SeedView;
  readonly url: string;
  /** The route's accessor on the client: `api.posts.comments(service.key('Post', parent))`. */
  readonly api: string;
  /** The seeded item's key (item routes; else empty), the first argument of the accessor's item methods. */
  readonly itemKey: string;
  readonly model: string;
  readonly name: string;
  readonly link: string;
} & (
  | { readonly kind: 'index'; readonly seedNonChild: boolean }
  | {
      readonly kind: 'create';
      readonly shown: string;
      readonly secrets: readonly string[];
      /** The required links its sample lacks, as object members to append (`, event: Number(…)`), or ''. */
      readonly links: string;
      /**
       * The link to the parent; `embedded`: the answer shows the parent as an object
       * (`_nested_relationships`), not its key; `many`: the link is a list (the parent is one of many).
       */
      readonly parentLink: {
        readonly field: string;
        readonly parent: string;
        readonly embedded: boolean;
        readonly many: boolean;
      } | null;
    }
  | { readonly kind: 'show'; readonly checksKey: boolean }
  | {
      readonly kind: 'update';
      readonly method: 'PATCH' | 'PUT';
      readonly replace: boolean;
      /** A replacement keeps the item's key (a key field the client writes): the field, and `String`/`Number` to type it. */
      readonly keepKey: { readonly field: string; readonly cast: string } | null;
      /** As a create's. */
      readonly links: string;
      /** The write-once fields a replacement leaves out, which keeps them (sent changed, they are a 403). */
      readonly keptOnce: readonly string[];
      readonly shown: string;
      readonly secrets: readonly string[];
      readonly checksLocation: boolean;
      /** Its answer may be a status body (to a caller who may change it but not read it: `changesUnseen`). */
      readonly orStatus: boolean;
    }
  | { readonly kind: 'delete' }
  | {
      readonly kind: 'updateMany';
      readonly method: string;
      /** The client's `updateMany` sends this method (PATCH where the route has it); the other goes through its transport. */
      readonly viaAccessor: boolean;
      readonly primaryKey: string;
      readonly keyCast: string;
    }
  | { readonly kind: 'deleteMany'; readonly primaryKey: string; readonly keyCast: string }
  | { readonly kind: 'options'; readonly allowed: string }
  | { readonly kind: 'missingItem'; readonly missingKey: string }
  | {
      readonly kind: 'methodNotAllowed';
      readonly method: string;
      readonly sendsBody: boolean;
      readonly allowed: string;
    }
  | { readonly kind: 'attributeRead'; readonly attribute: string; readonly empty: string }
  | {
      readonly kind: 'attributeMerge';
      readonly listItem: string | null;
      readonly dictEntry: { readonly key: string; readonly value: string } | null;
      /** Code of the sample's value of the dict, merged where no entry is sure (`dictEntry` null). */
      readonly dictSample: string;
      /** `read-only` or `write-once`: with auth off (the tests' service) no request merges into it, a 403. */
      readonly fixed: FixedRule | null;
    }
);

/**
 * What a test seeds before its request: the parents of a nested route (outermost first, each linked
 * to the one above it), the item of an item route, the object of a singular one.
 */
export interface SeedView {
  readonly parents: readonly ParentSeed[];
  readonly item: boolean;
  readonly singular: boolean;
}

/**
 * One parent a test seeds: the variable it is kept in (`parent`, `grandparent`), its model, quoted,
 * and its link to the one above.
 */
interface ParentSeed {
  readonly variable: string;
  readonly model: string;
  readonly link: string;
}

type TestOf<K extends TestView['kind']> = Omit<
  Extract<TestView, { kind: K }>,
  'seed' | 'url' | 'api' | 'itemKey' | 'model' | 'name' | 'link'
>;

export function testsView(ir: ServiceIR): TestsView {
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const { access } = clientAccessors(ir);
  const suites = ir.routes.map((route) => ({
    title: quote(`${[...new Set(route.operations.map((o) => o.method))].sort().join(', ')} ${route.ramlPath}`),
    tests: testsOf(route, models, access.get(route) ?? [], changesUnseen(ir, route)).map((t) => ({
      ...t,
      title: quote(t.title),
    })),
  }));
  const usesShown = suites.some((s) => s.tests.some((t) => 'shown' in t && t.shown.startsWith('shown(')));
  return { usesShown, suites };
}

function testsOf(
  route: Route,
  models: ReadonlyMap<string, Model>,
  access: readonly AccessStep[],
  unseen: boolean,
): TestView[] {
  const model = models.get(route.model)!;
  const has = (action: Operation['action']) => route.operations.some((o) => o.action === action);
  const tests: TestView[] = [];
  const builder = new RouteTests(route, model, models, access, unseen);
  for (const op of route.operations) {
    const test = builder.test(op);
    if (test && !tests.some((t) => t.title === test.title)) tests.push(test);
  }
  if (route.kind === 'item' && has('show')) tests.push(builder.missingItem());
  const refused = (['PUT', 'PATCH', 'DELETE', 'POST'] as const).find(
    (m) => !route.operations.some((o) => o.method === m),
  );
  if (refused) tests.push(builder.methodNotAllowed(refused));
  return tests;
}

/** The tests of one route, as views for api.test.ts.hbs; prettier lays the code out. */
export class RouteTests {
  constructor(
    readonly route: Route,
    readonly model: Model,
    readonly models: ReadonlyMap<string, Model>,
    /** How the client reaches the route (client/accessors.ts). */
    readonly access: readonly AccessStep[] = [],
    /** Its changes may be answered with a status body (src/acl/unseen-writes.ts). */
    readonly changesUnseen = false,
  ) {}

  get name(): string {
    return this.model.name;
  }

  /** What to seed for a test (the item only when `item`), and the request's URL as the body of a template literal. */
  seeding(item: boolean): { seed: SeedView; url: string } {
    let url = this.route.path;
    for (const parent of this.parents())
      url = url.replace(`:${parent.param}`, `\${service.key(${quote(parent.model)}, ${parent.variable})}`);
    if (item && this.route.kind === 'item')
      url = url.replace(`:${this.route.itemParam}`, `\${service.key(${quote(this.name)}, item)}`);
    const seed = {
      parents: this.parents().map(({ variable, model, link }) => ({ variable, model: quote(model), link })),
      item: item && this.route.kind === 'item',
      singular: item && this.route.kind === 'singular',
    };
    return { seed, url: url.replace(/[`\\]/g, (c) => `\\${c}`) };
  }

  /**
   * The parents the URL names, outermost first: the variable each is seeded into (the nearest is
   * `parent`), and `link`, the code that links it to the one above it (`, { project: … }`).
   */
  parents(): (RouteParent & { variable: string; link: string })[] {
    const parents = parentsOf(this.route);
    const variable = (i: number) => parentVariable(parents.length - i);
    return parents.map((parent, i) => {
      const above = parents[i - 1];
      const inverse = above && linkToParent(above, this.models);
      const link = inverse ? `, { ${inverse}: service.key(${quote(above.model)}, ${variable(i - 1)}) }` : '';
      return { ...parent, variable: variable(i), link };
    });
  }

  /** A test of this route: the parts every test has, and those of its kind. */
  view<K extends TestView['kind']>(item: boolean, test: TestOf<K>): TestView {
    const itemKey = this.route.kind === 'item' ? `service.key(${quote(this.name)}, item)` : '';
    // TypeScript cannot see that the common parts and one kind's parts make that kind's view.
    return {
      ...this.seeding(item),
      api: this.accessor(),
      itemKey,
      model: quote(this.name),
      name: this.name,
      link: this.link(),
      ...test,
    } as TestView;
  }

  /** The route's accessor on the client, with the seeded parents' keys where the path names them. */
  accessor(): string {
    const parents = this.parents();
    const key = (param: string) => {
      const parent = parents.find((p) => p.param === param);
      return parent ? `service.key(${quote(parent.model)}, ${parent.variable})` : quote(`:${param}`);
    };
    return ['api', ...this.access.map((s) => (s.param === null ? s.name : `${s.name}(${key(s.param)})`))].join('.');
  }

  /** Secret fields (the user's password) are written but never shown: expectations leave them out. */
  /** `variable` as the service answers it: without secrets, with the links it embeds as objects (runtime/test/helpers.ts). */
  shown(variable: string): string {
    const changed = this.secrets().length > 0 || this.model.nestedRelationships.length > 0;
    return changed ? `shown(${quote(this.name)}, ${variable})` : variable;
  }

  secrets(): string[] {
    return this.model.isAuthModel ? this.model.fields.filter((f) => f.name === 'password').map((f) => f.name) : [];
  }

  /** Nested routes: the field of the route's objects that points at the parent. */
  inverse(): string | null {
    const parent = this.route.parent;
    return parent && this.route.kind !== 'attribute' ? linkToParent(parent, this.models) : null;
  }

  link(): string {
    const inverse = this.inverse();
    return inverse ? `, { ${inverse}: service.key(${quote(this.route.parent!.model)}, parent) }` : '';
  }

  test(op: Operation): TestView | undefined {
    if (this.route.kind === 'attribute')
      return op.action === 'index' ? this.attributeRead() : op.action === 'create' ? this.attributeMerge() : undefined;
    switch (op.action) {
      case 'index':
        return this.index();
      case 'create':
        return this.create();
      case 'show':
        return this.show();
      case 'update':
        return this.update('PATCH');
      case 'replace':
        return this.update('PUT');
      case 'delete':
        return this.delete();
      case 'update_many':
        return this.updateMany(op.method);
      case 'delete_many':
        return this.deleteMany();
      case 'collection_options':
      case 'item_options':
        return this.options();
    }
  }

  index(): TestView {
    return this.view<'index'>(false, {
      kind: 'index',
      title: `GET lists ${this.name} objects a page at a time`,
      seedNonChild: this.inverse() !== null,
    });
  }

  create(): TestView {
    const inverse = this.inverse();
    return this.view<'create'>(false, {
      kind: 'create',
      title: `POST creates ${withArticle(this.name)}: 201 with Location`,
      links: this.requiredLinks(),
      shown: this.shown('data'),
      secrets: this.secrets().map(quote),
      parentLink: inverse
        ? {
            field: inverse,
            parent: quote(this.route.parent!.model),
            embedded: this.embeds(inverse),
            many: this.model.relationships.find((r) => r.name === inverse)?.cardinality === 'many',
          }
        : null,
    });
  }

  /** Whether answers show the object `relationship` links to, not its key (`_nested_relationships`). */
  embeds(relationship: string): boolean {
    return this.model.nestingDepth > 0 && this.model.nestedRelationships.includes(relationship);
  }

  show(): TestView {
    return this.view<'show'>(true, {
      kind: 'show',
      title: `GET reads ${withArticle(this.name)}`,
      checksKey: this.route.kind === 'item',
    });
  }

  update(method: 'PATCH' | 'PUT'): TestView {
    const key = this.model.fields.find((f) => f.name === this.model.primaryKey)!;
    const keptOnce = method === 'PUT' ? this.writeOnce() : [];
    return this.view<'update'>(true, {
      kind: 'update',
      title: method === 'PUT' ? `PUT replaces ${withArticle(this.name)}` : `PATCH changes ${withArticle(this.name)}`,
      method,
      replace: method === 'PUT',
      keepKey: !key.generated && this.route.kind === 'item' ? { field: key.name, cast: this.keyCast() } : null,
      links: method === 'PUT' ? this.requiredLinks(keptOnce) : '',
      keptOnce,
      shown: this.shown('data'),
      secrets: this.secrets().map(quote),
      checksLocation: this.route.kind === 'item',
      orStatus: this.changesUnseen,
    });
  }

  delete(): TestView {
    return this.view<'delete'>(true, { kind: 'delete', title: `DELETE removes ${withArticle(this.name)}` });
  }

  updateMany(method: string): TestView {
    return this.view<'updateMany'>(false, {
      kind: 'updateMany',
      title: `${method} changes the ${this.name} objects the filters select, in one go`,
      method,
      viaAccessor: method === 'PATCH' || !this.route.operations.some((o) => o.method === 'PATCH'),
      primaryKey: this.model.primaryKey,
      keyCast: this.keyCast(),
    });
  }

  deleteMany(): TestView {
    return this.view<'deleteMany'>(false, {
      kind: 'deleteMany',
      title: `DELETE removes the ${this.name} objects the filters select`,
      primaryKey: this.model.primaryKey,
      keyCast: this.keyCast(),
    });
  }

  /** The write-once fields a body names (not their foreign keys, nor the link a nested URL sets). */
  writeOnce(): string[] {
    const inverse = this.inverse();
    return this.model.fields
      .filter((f) => f.writeOnce && f.type !== 'foreign_key' && f.name !== inverse)
      .map((f) => f.name);
  }

  /** `Number` or `String`: a key as the client's types have it (`service.key` gives either). */
  keyCast(): string {
    return keyCastOf(this.model);
  }

  /**
   * The links a create must give and the samples lack (test/samples.ts cannot name objects that
   * exist), but the one to the parent the URL names: each to an object seeded for it, as object
   * members to append to the sample's data (`, event: Number(service.key('Event', …))`).
   */
  requiredLinks(leftOut: readonly string[] = []): string {
    const inverse = this.inverse();
    return unsampledRequired(this.model)
      .filter((name) => name !== inverse && !leftOut.includes(name))
      .map((name) => this.model.relationships.find((r) => r.name === name))
      .filter((r): r is Relationship => r !== undefined)
      .map((r) => {
        const target = quote(r.target);
        const key = `${keyCastOf(this.models.get(r.target)!)}(service.key(${target}, await service.seed(${target})))`;
        return `, ${r.name}: ${r.cardinality === 'many' ? `[${key}]` : key}`;
      })
      .join('');
  }

  options(): TestView {
    // OPTIONS of an item that does not exist is a 404, as a GET: ask about one that does.
    return this.view<'options'>(this.route.kind === 'item', {
      kind: 'options',
      title: 'OPTIONS names the allowed methods',
      allowed: quote(this.allowed()),
    });
  }

  missingItem(): TestView {
    const key = this.model.fields.find((f) => f.name === this.model.primaryKey)!;
    const missing = key.type === 'id_field' || key.type.endsWith('integer') ? '999999999' : 'no-such-key';
    return this.view<'missingItem'>(false, {
      kind: 'missingItem',
      title: `GET of an unknown ${this.name} is a 404`,
      missingKey: missing === '999999999' ? missing : quote(missing),
    });
  }

  methodNotAllowed(method: string): TestView {
    return this.view<'methodNotAllowed'>(this.route.kind === 'item', {
      kind: 'methodNotAllowed',
      title: `${method} is not allowed: 405 with Allow`,
      method,
      sendsBody: method !== 'GET' && method !== 'DELETE',
      allowed: quote(this.allowed()),
    });
  }

  attributeRead(): TestView {
    return this.view<'attributeRead'>(false, {
      kind: 'attributeRead',
      title: `GET reads the ${this.route.attribute} of ${withArticle(this.name)}`,
      attribute: this.route.attribute!,
      empty: this.isList() ? '[]' : '{}',
    });
  }

  attributeMerge(): TestView {
    const list = this.isList();
    const field = this.model.fields.find((f) => f.name === this.route.attribute);
    const fixed = field ? fixedRule(field) : null;
    return this.view<'attributeMerge'>(false, {
      kind: 'attributeMerge',
      title: fixed
        ? `POST to the ${this.route.attribute} of ${withArticle(this.name)} is refused: ${fixed}`
        : `POST ${list ? 'adds to' : 'merges into'} the ${this.route.attribute} of ${withArticle(this.name)}`,
      fixed,
      listItem: list ? this.listItem() : null,
      dictEntry: list ? null : this.dictEntry(),
      dictSample: `samples.${this.name}(1).${this.route.attribute}`,
    });
  }

  /**
   * What a merge into a dict adds, as code: a key its shape declares, with a value of it. Null
   * where no entry is sure to meet the shape (a `pattern` of its keys): the test merges the
   * sample's own value (test/custom-samples.ts may give one) instead of one the service refuses.
   */
  dictEntry(): { key: string; value: string } | null {
    const field = this.model.fields.find((f) => f.name === this.route.attribute)!;
    const entry = dictEntry(field);
    if (entry === undefined) return null;
    return { key: /^[A-Za-z_$][\w$]*$/.test(entry.key) ? entry.key : quote(entry.key), value: literal(entry.value) };
  }

  isList(): boolean {
    return this.model.fields.find((f) => f.name === this.route.attribute)?.type === 'list';
  }

  listItem(): string {
    const field = this.model.fields.find((f) => f.name === this.route.attribute)!;
    const choice = field.choices?.find((c) => typeof c === 'string' || typeof c === 'number');
    return choice !== undefined ? quote(String(choice)) : quote('added');
  }

  allowed(): string {
    const methods = new Set(this.route.operations.map((o) => o.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort().join(', ');
  }
}

/** The variable of the parent `levelsUp` above a route's objects: `parent`, `grandparent`, then `ancestor3`… */
function parentVariable(levelsUp: number): string {
  return levelsUp === 1 ? 'parent' : levelsUp === 2 ? 'grandparent' : `ancestor${levelsUp}`;
}

/** `Number` or `String`: a key of `model` as the client's types have it (`service.key` gives either). */
function keyCastOf(model: Model): string {
  const key = model.fields.find((f) => f.name === model.primaryKey)!;
  return key.type === 'id_field' || key.type.endsWith('integer') ? 'Number' : 'String';
}
