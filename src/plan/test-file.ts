/**
 * The view of the generated project's `test/api.test.ts`: for every route the RAML lists, tests
 * that drive it through Fastify's `inject` on an in-memory SQLite database: each listed method
 * answers with its status and body, unlisted methods get 405, unknown keys 404.
 */
import type { Model, Operation, Route, ServiceIR } from '../ir/types.js';
import { quote } from './literal.js';
import { withArticle } from './names.js';

export interface TestsView {
  /** Some model has a secret field (the user's password), so expectations leave it out. */
  readonly usesShown: boolean;
  readonly suites: readonly { readonly title: string; readonly tests: readonly { readonly title: string; readonly body: string }[] }[];
}

export function testsView(ir: ServiceIR): TestsView {
  const models = new Map(ir.models.map((m) => [m.name, m]));
  const suites = ir.routes.map((route) => ({
      title: quote(`${[...new Set(route.operations.map((o) => o.method))].sort().join(', ')} ${route.ramlPath}`),
      tests: testsOf(route, models).map((t) => ({ title: quote(t.title), body: t.body.join('\n') })),
  }));
  return { usesShown: suites.some((s) => s.tests.some((t) => t.body.includes('shown('))), suites };
}

interface Test {
  readonly title: string;
  readonly body: readonly string[];
}

function testsOf(route: Route, models: ReadonlyMap<string, Model>): Test[] {
  const model = models.get(route.model)!;
  const has = (action: Operation['action']) => route.operations.some((o) => o.action === action);
  const tests: Test[] = [];
  const builder = new RouteTests(route, model, models);
  for (const op of route.operations) {
    const test = builder.test(op);
    if (test && !tests.some((t) => t.title === test.title)) tests.push(test);
  }
  if (route.kind === 'item' && has('show')) tests.push(builder.missingItem());
  const refused = (['PUT', 'PATCH', 'DELETE', 'POST'] as const).find((m) => !route.operations.some((o) => o.method === m));
  if (refused) tests.push(builder.methodNotAllowed(refused));
  return tests;
}

/** Code for the tests of one route. Lines are joined by the template; prettier lays them out. */
export class RouteTests {
  constructor(
    readonly route: Route,
    readonly model: Model,
    readonly models: ReadonlyMap<string, Model>,
  ) {}

  get name(): string {
    return this.model.name;
  }

  /** Seeds the parent (nested routes) and the item (item routes); names the URL. */
  setup(item: boolean): { lines: string[]; url: string } {
    const lines: string[] = [];
    const parent = this.route.parent;
    let url = this.route.path;
    if (parent) {
      lines.push(`const parent = await service.seed(${quote(parent.model)});`);
      url = url.replace(`:${parent.param}`, `\${service.key(${quote(parent.model)}, parent)}`);
    }
    if (item && this.route.kind === 'item') {
      lines.push(`const item = await service.seed(${quote(this.name)}${this.link()});`);
      url = url.replace(`:${this.route.itemParam}`, `\${service.key(${quote(this.name)}, item)}`);
    }
    if (item && this.route.kind === 'singular') lines.push(`await service.seed(${quote(this.name)}${this.link()});`);
    return { lines, url: url.replace(/[`\\]/g, (c) => `\\${c}`) };
  }

  /** Secret fields (the user's password) are written but never shown: expectations leave them out. */
  shown(variable: string): string {
    return this.secrets().length ? `shown(${quote(this.name)}, ${variable})` : variable;
  }

  secretsNotShown(body: string): string[] {
    return this.secrets().map((f) => `expect(${body}).not.toHaveProperty(${quote(f)});`);
  }

  secrets(): string[] {
    return this.model.isAuthModel ? this.model.fields.filter((f) => f.name === 'password').map((f) => f.name) : [];
  }

  /** Nested routes: the field of the route's objects that points at the parent. */
  inverse(): string | null {
    const parent = this.route.parent;
    if (!parent || this.route.kind === 'attribute') return null;
    return this.models.get(parent.model)!.relationships.find((r) => r.name === parent.field)?.inverse ?? null;
  }

  link(): string {
    const inverse = this.inverse();
    return inverse ? `, { ${inverse}: service.key(${quote(this.route.parent!.model)}, parent) }` : '';
  }

  test(op: Operation): Test | undefined {
    if (this.route.kind === 'attribute') return op.action === 'index' ? this.attributeRead() : op.action === 'create' ? this.attributeMerge() : undefined;
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

  index(): Test {
    const { lines, url } = this.setup(false);
    const inverse = this.inverse();
    return {
      title: `GET lists ${this.name} objects a page at a time`,
      body: [
        ...lines,
        `await service.seed(${quote(this.name)}${this.link()});`,
        `await service.seed(${quote(this.name)}${this.link()});`,
        ...(inverse ? [`await service.seed(${quote(this.name)}); // not the parent's: not listed`] : []),
        `const response = await service.request('GET', \`${url}?_limit=1\`);`,
        'expect(response.statusCode).toBe(200);',
        'const body = response.json();',
        'expect(body).toMatchObject({ total: 2, count: 1, start: 0 });',
        `expect(body.data[0]).toMatchObject({ _type: ${quote(this.name)} });`,
      ],
    };
  }

  create(): Test {
    const { lines, url } = this.setup(false);
    const inverse = this.inverse();
    return {
      title: `POST creates ${withArticle(this.name)}: 201 with Location`,
      body: [
        ...lines,
        `const data = samples.${this.name}(1);`,
        `const response = await service.request('POST', \`${url}\`, data);`,
        'expect(response.statusCode).toBe(201);',
        'const body = response.json();',
        `expect(body).toMatchObject({ ...${this.shown('data')}, _type: ${quote(this.name)} });`,
        ...this.secretsNotShown('body'),
        ...(inverse ? [`expect(body.${inverse}).toBe(service.key(${quote(this.route.parent!.model)}, parent));`] : []),
        "expect(response.headers['location']).toBe(body._self);",
        "expect((await service.request('GET', body._self)).statusCode).toBe(200);",
      ],
    };
  }

  show(): Test {
    const { lines, url } = this.setup(true);
    return {
      title: `GET reads ${withArticle(this.name)}`,
      body: [
        ...lines,
        `const response = await service.request('GET', \`${url}\`);`,
        'expect(response.statusCode).toBe(200);',
        `expect(response.json()).toMatchObject({ _type: ${quote(this.name)} });`,
        ...(this.route.kind === 'item' ? [`expect(response.json()._pk).toBe(String(service.key(${quote(this.name)}, item)));`] : []),
      ],
    };
  }

  update(method: 'PATCH' | 'PUT'): Test {
    const { lines, url } = this.setup(true);
    const key = this.model.fields.find((f) => f.name === this.model.primaryKey)!;
    const keepKey = !key.generated && this.route.kind === 'item' ? `, ${key.name}: service.key(${quote(this.name)}, item)` : '';
    const data = method === 'PUT' ? `{ ...samples.${this.name}(2)${keepKey} }` : `changes.${this.name}`;
    return {
      title: method === 'PUT' ? `PUT replaces ${withArticle(this.name)}` : `PATCH changes ${withArticle(this.name)}`,
      body: [
        ...lines,
        `const data = ${data};`,
        `const response = await service.request('${method}', \`${url}\`, data);`,
        'expect(response.statusCode).toBe(200);',
        `expect(response.json()).toMatchObject(${this.shown('data')});`,
        ...this.secretsNotShown('response.json()'),
        ...(this.route.kind === 'item' ? ["expect(response.headers['location']).toBe(response.json()._self);"] : []),
      ],
    };
  }

  delete(): Test {
    const { lines, url } = this.setup(true);
    return {
      title: `DELETE removes ${withArticle(this.name)}`,
      body: [
        ...lines,
        `const response = await service.request('DELETE', \`${url}\`);`,
        'expect(response.statusCode).toBe(200);',
        "expect(response.json()).toMatchObject({ status_code: 200, message: 'Deleted' });",
        `expect((await service.request('GET', \`${url}\`)).statusCode).toBe(404);`,
      ],
    };
  }

  updateMany(method: string): Test {
    const { lines, url } = this.setup(false);
    return {
      title: `${method} changes the ${this.name} objects the filters select, in one go`,
      body: [
        ...lines,
        `const chosen = await service.seed(${quote(this.name)}${this.link()});`,
        `await service.seed(${quote(this.name)}${this.link()});`,
        `const response = await service.request('${method}', \`${url}?${this.model.primaryKey}=\${service.key(${quote(this.name)}, chosen)}\`, changes.${this.name});`,
        'expect(response.statusCode).toBe(200);',
        `expect(response.json()).toMatchObject({ count: 1, message: 'Updated 1 ${this.name}(s) objects' });`,
      ],
    };
  }

  deleteMany(): Test {
    const { lines, url } = this.setup(false);
    return {
      title: `DELETE removes the ${this.name} objects the filters select`,
      body: [
        ...lines,
        `const chosen = await service.seed(${quote(this.name)}${this.link()});`,
        `await service.seed(${quote(this.name)}${this.link()});`,
        `const response = await service.request('DELETE', \`${url}?${this.model.primaryKey}=\${service.key(${quote(this.name)}, chosen)}\`);`,
        'expect(response.statusCode).toBe(200);',
        `expect(response.json()).toMatchObject({ count: 1, message: 'Deleted 1 ${this.name}(s) objects' });`,
        `expect((await service.request('GET', \`${url}\`)).json().total).toBe(1);`,
      ],
    };
  }

  options(): Test {
    const { lines, url } = this.setup(false);
    return {
      title: 'OPTIONS names the allowed methods',
      body: [...lines, `const response = await service.request('OPTIONS', \`${url}\`);`, 'expect(response.statusCode).toBe(200);', `expect(response.headers['allow']).toBe(${quote(this.allowed())});`],
    };
  }

  missingItem(): Test {
    const key = this.model.fields.find((f) => f.name === this.model.primaryKey)!;
    const missing = key.type === 'id_field' || key.type.endsWith('integer') ? '999999999' : 'no-such-key';
    const { lines, url } = this.setup(false);
    return {
      title: `GET of an unknown ${this.name} is a 404`,
      body: [
        ...lines,
        `const response = await service.request('GET', \`${url.replace(`:${this.route.itemParam}`, missing)}\`);`,
        'expect(response.statusCode).toBe(404);',
        'expect(response.json()).toMatchObject({ status_code: 404 });',
      ],
    };
  }

  methodNotAllowed(method: string): Test {
    const { lines, url } = this.setup(this.route.kind === 'item');
    return {
      title: `${method} is not allowed: 405 with Allow`,
      body: [
        ...lines,
        `const response = await service.request('${method}', \`${url}\`${method === 'GET' || method === 'DELETE' ? '' : ', {}'});`,
        'expect(response.statusCode).toBe(405);',
        `expect(response.headers['allow']).toBe(${quote(this.allowed())});`,
      ],
    };
  }

  attributeRead(): Test {
    const { lines, url } = this.setup(false);
    return {
      title: `GET reads the ${this.route.attribute} of ${withArticle(this.name)}`,
      body: [...lines, `const response = await service.request('GET', \`${url}\`);`, 'expect(response.statusCode).toBe(200);', `expect(response.json()).toEqual(parent.${this.route.attribute} ?? ${this.isList() ? '[]' : '{}'});`],
    };
  }

  attributeMerge(): Test {
    const { lines, url } = this.setup(false);
    const list = this.isList();
    return {
      title: `POST ${list ? 'adds to' : 'merges into'} the ${this.route.attribute} of ${withArticle(this.name)}`,
      body: [
        ...lines,
        `const response = await service.request('POST', \`${url}\`, { ${list ? `[${this.listItem()}]: true` : "added: 'value'"} });`,
        'expect(response.statusCode).toBe(201);',
        list ? `expect(response.json()).toContain(${this.listItem()});` : "expect(response.json()).toMatchObject({ added: 'value' });",
        `expect((await service.request('GET', \`${url}\`)).json()).toEqual(response.json());`,
      ],
    };
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
