/**
 * The OpenAPI 3.1 document of a generated service (src/plan/openapi/): valid against the OpenAPI
 * meta-schema and JSON Schema 2020-12, listing exactly the IR's routes and methods, with the
 * filters the runtime accepts per field type, the security the ACL matrix implies, and shipped in
 * the project as openapi.json, which the service reads at start-up. Served at {base}/openapi.json: test/e2e/blog-http.
 */
import { eventTypes } from '../../src/plan/shared/event-types.js';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { aclMatrix } from '../../src/acl/matrix.js';
import { changesUnseen } from '../../src/acl/unseen-writes.js';
import type { ServiceIR } from '../../src/ir/types.js';
import { analyze } from '../../src/pipeline.js';
import { openApiDocument, openApiJson } from '../../src/plan/openapi/document.js';
import { openApiPath } from '../../src/plan/openapi/paths.js';
import { runCli } from '../support/cli.js';
import { raml, securedRaml, writeTree } from '../support/files.js';
import { generateFixture, SNAPSHOT_FIXTURES } from '../support/generated.js';
import { repoRoot } from '../support/paths.js';

// oxlint-disable-next-line typescript/no-explicit-any -- OpenAPI documents walked by path: a member that is not there fails the test where it is read
type Json = Record<string, any>;

const FIXTURES = [...SNAPSHOT_FIXTURES, 'filters', 'embedding'];

function irOf(fixture: string): ServiceIR {
  const analysis = analyze(join(repoRoot, 'fixtures', fixture, 'api.raml'), { cwd: repoRoot });
  if (!analysis.ir) throw new Error(`${fixture} has errors`);
  return analysis.ir;
}

function documentOf(fixture: string): Json {
  return openApiDocument(irOf(fixture));
}

/** `GET /stories/{id}`, for every operation of the document. */
function operationsOf(document: Json): string[] {
  return Object.entries(document['paths'] as Json).flatMap(([path, item]) =>
    Object.keys(item as Json)
      .filter((key) => key !== 'parameters')
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function operation(document: Json, method: string, path: string): Json {
  const found = document['paths'][path]?.[method.toLowerCase()];
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
}

/** Every schema in the document: the component schemas and each `schema` of a parameter, body or answer. */
function schemasOf(document: Json): [string, unknown][] {
  const found: [string, unknown][] = Object.entries(document['components']['schemas'] as Json).map(([name, s]) => [
    `#/components/schemas/${name}`,
    s,
  ]);
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}/${i}`));
    else if (value && typeof value === 'object') {
      for (const [key, v] of Object.entries(value)) {
        if (key === 'schema') found.push([`${at}/schema`, v]);
        else walk(v, `${at}/${key}`);
      }
    }
  };
  walk(document['paths'], '#/paths');
  walk(document['components']['parameters'], '#/components/parameters');
  walk(document['components']['responses'], '#/components/responses');
  return found;
}

describe.each(FIXTURES)('the OpenAPI document of %s', (fixture) => {
  it('is valid OpenAPI 3.1 and every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(documentOf(fixture));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(() => validator.resolveRefs()).not.toThrow();
  });

  it('holds valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1) wherever it has a schema', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schemas = schemasOf(documentOf(fixture));
    expect(schemas.length).toBeGreaterThan(10);
    for (const [at, schema] of schemas) expect(ajv.validateSchema(schema as object) ? null : ajv.errors, at).toBeNull();
  });

  it('lists exactly the routes and methods of the IR (HEAD with GET), and the service’s own', () => {
    const ir = irOf(fixture);
    const fromIr = ir.routes.flatMap((r) =>
      r.operations.filter((o) => o.method !== 'HEAD').map((o) => `${o.method} ${openApiPath(r.path)}`),
    );
    const own = ['GET /health', 'GET /openapi.json'];
    const auth = ir.auth
      ? [
          'POST /auth/register',
          ...(ir.auth.ticket ? ['POST /auth/login', 'GET /auth/logout', 'POST /auth/logout'] : []),
          ...(ir.auth.apiKey ? ['POST /auth/token', 'POST /auth/reset_token'] : []),
        ]
      : [];
    // The outbox's change feed and operators' routes (lib/http/outbox.ts), when a route changes objects.
    const events = eventTypes(ir).size
      ? [
          'GET /_events',
          'GET /_webhooks',
          'GET /_webhooks/{name}/deliveries',
          'POST /_webhooks/{name}/deliveries/{seq}/retry',
          'POST /_webhooks/{name}/retry-dead',
        ]
      : [];
    const listed = operationsOf(documentOf(fixture));
    // `/users/self` is added when the API's own user route does not answer it.
    const extra = listed.filter((o) => o === 'GET /users/self');
    expect(listed.sort()).toEqual([...fromIr, ...own, ...auth, ...events, ...extra].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('is shipped in the project as openapi.json, which the service reads at start-up', async () => {
    const tree = await generateFixture(fixture);
    expect(tree.get('openapi.json')!.content).toBe(openApiJson(documentOf(fixture)));
    // No second copy as a module: the app's openApi plugin reads the file (lib/http/openapi.ts),
    // and serves it without its authentication when auth = false.
    expect(tree.has('src/openapi.ts')).toBe(false);
    expect(tree.get('src/app.ts')!.content).toContain(
      'await api.register(openApi, { file: OPENAPI_FILE, auth: config.auth, docs: config.docs });',
    );
  });

  it('says the same bytes every time, on the command line too', async () => {
    const file = join(repoRoot, 'fixtures', fixture, 'api.raml');
    const [a, b] = [
      await runCli(['inspect', file, '--openapi'], repoRoot),
      await runCli(['inspect', file, '--openapi'], repoRoot),
    ];
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toBe(openApiJson(documentOf(fixture)));
  });
});

describe('filters (fixtures/filters): the operators lib/http/query.ts accepts on each type', () => {
  const document = documentOf('filters');
  const parameters = document['components']['parameters'] as Json;
  const operatorsOf = (model: string, field: string) =>
    Object.keys(parameters)
      .filter((name) => name === `${model}.${field}` || name.startsWith(`${model}.${field}__`))
      .map((name) => name.slice(`${model}.${field}`.length).replace(/^__/, '') || '=')
      .sort();
  const ALL = ['=', 'gt', 'gte', 'in', 'isnull', 'lt', 'lte', 'ne'];

  it('text fields take every operator, contains and startswith included', () => {
    expect(operatorsOf('Item', 'code')).toEqual([...ALL, 'contains', 'startswith'].sort());
    expect(operatorsOf('Item', 'note')).toEqual([...ALL, 'contains', 'startswith'].sort());
  });

  it('numbers, booleans, dates, times and to-one links take comparisons, not the text operators', () => {
    for (const field of [
      'count',
      'big',
      'ratio',
      'price',
      'active',
      'seen_at',
      'day',
      'clock',
      'wait',
      'owner',
      'owner_id',
    ]) {
      expect(operatorsOf('Item', field), field).toEqual(ALL);
    }
  });

  it('list fields and to-many relationships take only =, __in, __ne and __isnull', () => {
    for (const [model, field] of [
      ['Item', 'tags'],
      ['Item', 'nums'],
      ['Item', 'labels'],
      ['Owner', 'items'],
    ]) {
      expect(operatorsOf(model!, field!), field).toEqual(['=', 'in', 'isnull', 'ne']);
    }
  });

  it('dict fields take only __isnull', () => {
    expect(operatorsOf('Item', 'meta')).toEqual(['isnull']);
  });

  it('types each value by the field: comma lists as form arrays, keys of related objects, booleans for __isnull', () => {
    expect(parameters['Item.count__in']).toMatchObject({
      in: 'query',
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'integer' } },
    });
    expect(parameters['Item.count__gt'].schema).toMatchObject({ type: 'integer' });
    expect(parameters['Item.seen_at__lt'].schema).toEqual({ type: 'string', format: 'date-time' });
    expect(parameters['Item.nums'].schema).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(parameters['Item.owner__gte'].schema).toMatchObject({ type: 'integer' });
    expect(parameters['Item.code__contains'].schema).toEqual({ type: 'string' });
    expect(parameters['Item.meta__isnull'].schema).toEqual({ type: 'boolean' });
  });

  it('collection reads take paging and filters; bulk changes the filters only; item reads _fields and the preconditions', () => {
    const refs = (op: Json) =>
      (op['parameters'] as Json[]).map((p) => String(p['$ref']).replace('#/components/parameters/', ''));
    const read = refs(operation(document, 'GET', '/items'));
    expect(read.slice(0, 7)).toEqual(['_limit', '_page', '_start', '_after', '_sort', '_fields', '_count']);
    expect(read).toContain('Item.code__startswith');
    expect(refs(operation(document, 'GET', '/owners/{id}/items'))).toEqual(read);
    const bulk = refs(operation(document, 'PATCH', '/items'));
    // …and If-Match, where only `*` holds (a collection has no ETag).
    expect(bulk).toEqual([...read.slice(7), 'If-Match']);
    // If-Match and If-None-Match: 412 or 304 (RFC 9110 13.2.2).
    expect(refs(operation(document, 'GET', '/items/{id}'))).toEqual(['_fields', 'If-Match', 'If-None-Match']);
    expect(operation(document, 'GET', '/items')['responses']['200'].content['application/json'].schema).toEqual({
      anyOf: [{ $ref: '#/components/schemas/ItemCollection' }, { $ref: '#/components/schemas/Count' }],
    });
  });
});

describe('security (fixtures/ramses-example: an x-Ticket cookie, x-ACLs with {{dynamic}} principals)', () => {
  const ir = irOf('ramses-example');
  const document = documentOf('ramses-example');
  const OPTIONAL = [{}, { x_ticket_auth: [] }];
  const REQUIRED = [{ x_ticket_auth: [] }];

  it('names the ticket cookie as a scheme', () => {
    expect(document['components']['securitySchemes']).toEqual({
      x_ticket_auth: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'ramses_auth_tkt' }),
    });
  });

  it('makes auth optional exactly where the ACL matrix lets anonymous callers in', () => {
    const rows = aclMatrix(ir);
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      const op = operation(document, row.operation.method, openApiPath(row.route.path));
      expect(op['security'], `${row.operation.method} ${row.route.path}`).toEqual(
        row.outcomes.anonymous === 'allow' ? OPTIONAL : REQUIRED,
      );
      expect(Object.keys(op['responses'])).toEqual(expect.arrayContaining(['401', '403']));
    }
    expect(operation(document, 'GET', '/stories')['security']).toEqual(OPTIONAL);
    expect(operation(document, 'POST', '/stories')['security']).toEqual(REQUIRED);
    expect(operation(document, 'PATCH', '/stories/{id}')['security']).toEqual(REQUIRED);
    expect(operation(document, 'GET', '/users/{username}/settings')['security']).toEqual(REQUIRED);
  });

  it('documents the ticket routes, not the token ones; the password is written, never shown nor filtered', () => {
    expect(operation(document, 'POST', '/auth/login')['requestBody'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Login',
    });
    expect(operation(document, 'POST', '/auth/logout')['security']).toEqual(OPTIONAL);
    expect(document['paths']['/auth/token']).toBeUndefined();
    const schemas = document['components']['schemas'];
    expect(Object.keys(schemas['User'].properties)).not.toContain('password');
    expect(Object.keys(schemas['UserCreate'].properties)).toContain('password');
    expect(Object.keys(document['components']['parameters']).filter((p) => p.startsWith('User.password'))).toEqual([]);
  });

  it('an API token (fixtures/blog) is an Authorization header, with its routes', () => {
    const blog = documentOf('blog');
    expect(blog['components']['securitySchemes']).toEqual({
      token_auth: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'Authorization' }),
    });
    expect(operation(blog, 'POST', '/auth/token')['responses']['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Token',
    });
    expect(blog['paths']['/auth/login']).toBeUndefined();
  });

  it('an API without auth (fixtures/ramses-starter) has no schemes, no security and no 401/403', () => {
    const starter = documentOf('ramses-starter');
    expect(starter['components']['securitySchemes']).toBeUndefined();
    expect(Object.keys(starter['paths']).some((p) => p.startsWith('/auth'))).toBe(false);
    const operations = operationsOf(starter);
    // Its 5 routes, /health, /openapi.json, and the outbox's 5.
    expect(operations.length).toBe(12);
    for (const [method, path] of operations.map((o) => o.split(' '))) {
      const op = operation(starter, method!, path!);
      expect(op['security']).toBeUndefined();
      expect(Object.keys(op['responses'])).not.toContain('401');
      expect(Object.keys(op['responses'])).not.toContain('403');
    }
  });

  it('without auth, a 403 where the service or a handler may still refuse: a body with a read-only field, an action with handlers', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T
/items:
  get:
  post:
    body:
      application/json:
        schema: !include item.json
  /{id}:
    get:
    patch:
    delete:
/notes:
  post:
    body:
      application/json:
        schema: !include note.json
  /{id}:
    delete:
`),
      'item.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          code: { type: 'string', readOnly: true, _db_settings: { type: 'string' } },
        },
      }),
      'note.json': JSON.stringify({
        type: 'object',
        _event_handlers: { before_delete: ['keep_pinned'] },
        properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
      }),
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    const document: Json = openApiDocument(analysis.ir!);
    const refuses = (method: string, path: string) =>
      Object.keys(operation(document, method, path)['responses']).includes('403');
    expect([refuses('POST', '/items'), refuses('PATCH', '/items/{id}'), refuses('GET', '/items/{id}')]).toEqual([
      true,
      true,
      false,
    ]);
    expect([refuses('DELETE', '/items/{id}'), refuses('DELETE', '/notes/{id}'), refuses('POST', '/notes')]).toEqual([
      false,
      true,
      false,
    ]);
    expect(document['components']['responses']['Forbidden']).toBeDefined();
    expect(document['components']['responses']['Unauthorized']).toBeUndefined();
  });

  it('names GET /users/self apart where the users’ own route is keyed by a number, whose parameter `self` is not', () => {
    const documentWithUsers = (key: Record<string, unknown>, keyName: string) => {
      const dir = writeTree({
        'api.raml': securedRaml(
          'T',
          { users_acl: { collection: 'allow g:admin all', item: 'allow g:admin all' } },
          `/users:\n  securedBy: [users_acl]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include user.json\n  /{${keyName}}:\n    get:\n`,
        ),
        'user.json': JSON.stringify({
          type: 'object',
          _auth_model: true,
          properties: {
            username: { _db_settings: { type: 'string', required: true, unique: true } },
            ...key,
            email: { _db_settings: { type: 'string', required: true, unique: true } },
            password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
          },
        }),
      });
      return openApiDocument(analyze(join(dir, 'api.raml'), { cwd: dir }).ir!);
    };
    const byNumber = documentWithUsers({ id: { _db_settings: { type: 'id_field', primary_key: true } } }, 'id');
    expect(operation(byNumber, 'GET', '/users/{id}')['parameters']).toBeDefined();
    expect(operation(byNumber, 'GET', '/users/self')['operationId']).toBe('getSelf');
    // Keyed by its username, the item route's own parameter takes `self`: no second path for it.
    const byName = documentWithUsers(
      { username: { _db_settings: { type: 'string', primary_key: true, required: true } } },
      'username',
    );
    expect(operationsOf(byName)).toContain('GET /users/{username}');
    expect(operationsOf(byName)).not.toContain('GET /users/self');
  });
});

describe('bodies, answers and parameters', () => {
  it('POST and PUT take <Model>Create with the fields required on create; PATCH <Model>Update', () => {
    const ir = irOf('ramses-starter');
    const document = documentOf('ramses-starter');
    const item = ir.models.find((m) => m.name === 'Item')!;
    const create = document['components']['schemas']['ItemCreate'];
    expect(create.required ?? []).toEqual(
      item.fields.filter((f) => f.requiredOnCreate && !f.generated).map((f) => f.name),
    );
    expect(create.additionalProperties).toBe(false);
    const body = (method: string, path: string) =>
      operation(document, method, path)['requestBody'].content['application/json'].schema;
    expect(body('POST', '/items')).toEqual({ $ref: '#/components/schemas/ItemCreate' });
    expect(body('PATCH', '/items/{id}')).toEqual({ $ref: '#/components/schemas/ItemUpdate' });
    expect(operation(document, 'DELETE', '/items/{id}')['responses']['200'].content['application/json'].schema).toEqual(
      { $ref: '#/components/schemas/Status' },
    );
    expect(document['servers']).toEqual([{ url: '/v1', description: expect.stringContaining('needs the full URL') }]);
    expect(document['openapi']).toBe('3.1.0');
  });

  it("states each field's literal default in <Model>Create, what a create stores when it is left out; not in Update", () => {
    const document = documentOf('ramses-example');
    const schemas = document['components']['schemas'];
    const story = irOf('ramses-example').models.find((m) => m.name === 'Story')!;
    const defaults = story.fields.filter((f) => f.default?.kind === 'literal' && f.default.value !== null);
    expect(defaults.length).toBeGreaterThan(0);
    for (const field of defaults) {
      expect(schemas['StoryCreate'].properties[field.name].default).toEqual(
        field.default?.kind === 'literal' ? field.default.value : undefined,
      );
      expect(schemas['StoryUpdate'].properties[field.name]).not.toHaveProperty('default');
    }
  });

  it('PUT takes <Model>Replace where it need not give what a create must: required write-once fields, the password', () => {
    const dir = writeTree({
      'api.raml': raml(
        `title: Shelter\n/shelters:\n  post:\n    body:\n      application/json:\n        schema: !include shelter.json\n  /{id}:\n    put:\n    /applications:\n      put:\n` +
          `/applications:\n  post:\n    body:\n      application/json:\n        schema: !include application.json\n  /{id}:\n    put:\n    patch:\n`,
      ),
      'shelter.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          name: { _db_settings: { type: 'string', required: true } },
          applications: { _db_settings: { type: 'relationship', document: 'Application', backref_name: 'shelter' } },
        },
      }),
      'application.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          motivation: { _db_settings: { type: 'string', required: true } },
          pet: { _write_once: true, _db_settings: { type: 'string', required: true } },
          kind: { _write_once: true, _db_settings: { type: 'string', default: 'adoption' } },
          shelter_id: {
            _write_once: true,
            _db_settings: {
              type: 'foreign_key',
              ref_document: 'Shelter',
              ref_column: 'shelter.id',
              ref_column_type: 'id_field',
              required: true,
            },
          },
        },
      }),
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    expect(analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const document: Json = openApiDocument(analysis.ir!);
    const schemas = document['components']['schemas'];
    const body = (method: string, path: string) =>
      operation(document, method, path)['requestBody'].content['application/json'].schema;
    // A create must give them all; the literal default is what it stores.
    expect(schemas.ApplicationCreate.required).toEqual(['motivation', 'pet', 'shelter']);
    expect(schemas.ApplicationCreate.properties.kind.default).toBe('adoption');
    // A replacement keeps the write-once fields it leaves out: not required, no default it would store.
    expect(body('PUT', '/applications/{id}')).toEqual({ $ref: '#/components/schemas/ApplicationReplace' });
    expect(schemas.ApplicationReplace.required).toEqual(['motivation']);
    expect(schemas.ApplicationReplace.properties.kind).not.toHaveProperty('default');
    expect(schemas.ApplicationReplace.description).toContain('except pet, kind and shelter, which stay as they are');
    expect(body('POST', '/applications')).toEqual({ $ref: '#/components/schemas/ApplicationCreate' });
    expect(body('PATCH', '/applications/{id}')).toEqual({ $ref: '#/components/schemas/ApplicationUpdate' });
    // A model whose PUT is its create's has no Replace.
    expect(body('PUT', '/shelters/{id}')).toEqual({ $ref: '#/components/schemas/ShelterCreate' });
    expect(schemas).not.toHaveProperty('ShelterReplace');
  });

  it('names each schema once where a model is named like another one’s page (Item and ItemCollection)', () => {
    const model = (name: string) =>
      `/${name}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${name}.json\n  /{id}:\n    get:\n`;
    const schema = JSON.stringify({
      type: 'object',
      properties: {
        id: { _db_settings: { type: 'id_field', primary_key: true } },
        name: { _db_settings: { type: 'string' } },
      },
    });
    const dir = writeTree({
      'api.raml': raml(`title: Shop\n${model('item-collections')}${model('items')}`),
      'items.json': schema,
      'item-collections.json': schema.replace('"name"', '"label"'),
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    const document: Json = openApiDocument(analysis.ir!);
    const page = (path: string) =>
      operation(document, 'GET', path)['responses']['200'].content['application/json'].schema.anyOf[0].$ref;
    const schemas = document['components']['schemas'];
    const named = (ref: string) => schemas[ref.replace('#/components/schemas/', '')];
    // Each page lists its own model's objects; the model keeps its own name.
    expect(named(page('/items')).properties.data.items).toEqual({ $ref: '#/components/schemas/Item' });
    expect(named(page('/item-collections')).properties.data.items).toEqual({
      $ref: '#/components/schemas/ItemCollection',
    });
    expect(page('/items')).not.toBe('#/components/schemas/ItemCollection');
    expect(schemas.ItemCollection.properties).toHaveProperty('label');
  });

  it('every object carries _type, _pk and _self; a page has the envelope; errors have the one body', () => {
    const schemas = documentOf('blog')['components']['schemas'];
    expect(schemas['Post'].required).toEqual(['_type', '_pk', '_self']);
    expect(schemas['Post'].properties['_type']).toEqual({ const: 'Post' });
    expect(schemas['PostCollection'].required).toEqual(['total', 'count', 'start', 'took', 'fields', 'data']);
    expect(schemas['Error'].required).toEqual([
      'status_code',
      'title',
      'explanation',
      'message',
      'timestamp',
      'request_url',
    ]);
    expect(schemas['Status'].properties['count']).toMatchObject({ type: 'integer' });
  });

  it("describes an event's object as the answer without _self, which no event has", () => {
    const schemas = documentOf('blog')['components']['schemas'];
    const data = schemas['PostEvent'].properties['data'].properties;
    expect(data['object'].$ref).toBe('#/components/schemas/PostEventObject');
    expect(schemas['PostEventObject'].required).toEqual(['_type', '_pk']);
    expect(schemas['PostEventObject'].properties).not.toHaveProperty('_self');
    expect(Object.keys(schemas['PostEventObject'].properties)).toEqual(
      Object.keys(schemas['Post'].properties).filter((name) => name !== '_self'),
    );
  });

  it('types each path parameter by the key of the model it names (fixtures/blog)', () => {
    const document = documentOf('blog');
    const parameters = document['paths']['/posts/{slug}/comments/{id}'].parameters as Json[];
    expect(parameters.map((p) => [p['name'], p['in'], p['required'], p['schema'].type])).toEqual([
      ['slug', 'path', true, 'string'],
      ['id', 'path', true, 'integer'],
    ]);
  });

  it('OPTIONS only where the RAML lists it (fixtures/events)', () => {
    const document = documentOf('events');
    expect(document['paths']['/tasks'].options).toBeDefined();
    expect(document['paths']['/projects'].options).toBeUndefined();
    expect(operation(document, 'OPTIONS', '/tasks')['responses']['200'].headers.Allow).toBeDefined();
  });
});

describe('{base}/openapi.json is the service’s own', () => {
  it('a RAML resource there is an error (SVC2073), like /health', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: { id: { type: 'id_field', _db_settings: { type: 'id_field', primary_key: true } } },
    });
    const dir = writeTree({
      'api.raml': raml(
        `title: T\n/openapi.json:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include doc.json\n`,
      ),
      'doc.json': schema,
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    const reserved = analysis.diagnostics.filter((d) => d.code === 'SVC2073');
    expect(reserved.map((d) => d.message)).toEqual([
      '/openapi.json is taken: the service answers /openapi.json itself (its OpenAPI document)',
    ]);
  });

  it('so are /_events and /_webhooks, its change feed and webhook deliveries (the service did not start)', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: { id: { type: 'id_field', _db_settings: { type: 'id_field', primary_key: true } } },
    });
    const taken = (path: string) => {
      const resource = `${path}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include doc.json\n`;
      const dir = writeTree({ 'api.raml': raml(`title: T\n${resource}`), 'doc.json': schema });
      return analyze(join(dir, 'api.raml'), { cwd: dir })
        .diagnostics.filter((d) => d.code === 'SVC2073')
        .map((d) => d.message);
    };
    expect(taken('/_events')).toEqual(['/_events is taken: the service answers /_events itself (its change feed)']);
    expect(taken('/_webhooks')).toEqual([
      '/_webhooks is taken: the service answers /_webhooks itself (its webhook deliveries, for admins)',
    ]);
  });

  it('with authentication, /auth is the service’s too (its login routes); without, it is the API’s', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: { id: { type: 'id_field', _db_settings: { type: 'id_field', primary_key: true } } },
    });
    const auth = 'securitySchemes:\n  - token:\n      type: x-ApiKey\nsecuredBy: [token]\n';
    const resource = `/auth:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include doc.json\n`;
    const reservedIn = (head: string) => {
      const dir = writeTree({ 'api.raml': raml(`title: T\n${head}${resource}`), 'doc.json': schema });
      return analyze(join(dir, 'api.raml'), { cwd: dir })
        .diagnostics.filter((d) => d.code === 'SVC2073')
        .map((d) => d.message);
    };
    expect(reservedIn(auth)).toEqual([
      '/auth is taken: the service answers /auth itself (its login, logout, registration and token routes)',
    ]);
    expect(reservedIn('')).toEqual([]);
  });
});

describe('changes answered with a status body to a caller who may make them but not read the object', () => {
  const schemaOf = (document: Json, method: string, path: string, status: string) =>
    operation(document, method, path)['responses'][status].content['application/json'].schema;

  it("documents the object or a status body where an x-ACL lets some caller update without viewing (fixtures/library's banned owners)", () => {
    const library = documentOf('library');
    const either = { anyOf: [{ $ref: '#/components/schemas/Book' }, { $ref: '#/components/schemas/Status' }] };
    expect(schemaOf(library, 'PATCH', '/books/{id}', '200')).toEqual(either);
    expect(schemaOf(library, 'PUT', '/books/{id}', '200')).toEqual(either);
    // A creator sees what they made; notes' rules give view with update to whomever they give update.
    expect(schemaOf(library, 'POST', '/books', '201')).toEqual({ $ref: '#/components/schemas/Book' });
    expect(schemaOf(library, 'PATCH', '/notes/{id}', '200')).toEqual({ $ref: '#/components/schemas/Note' });
  });

  it('says where a line allows update without view, or denies view without update, unless everyone may view', () => {
    const unseenIn = (fixture: string) => {
      const ir = irOf(fixture);
      return ir.routes.filter((route) => changesUnseen(ir, route)).map((route) => `${route.kind} ${route.path}`);
    };
    // `deny g:banned view` before `allow {{owner}} view, update, delete`.
    expect(unseenIn('library')).toEqual(['item /books/:id']);
    // `allow {{user_self}} update` comes after `allow everyone view,options`.
    expect(unseenIn('ramses-example')).toEqual([]);
    expect(unseenIn('blog')).toEqual([]);
  });

  it('looks no further than a line that decides view and update for everyone (`deny everyone all`)', () => {
    const unseen = (item: string) => {
      const dir = writeTree({
        'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view, create
          allow g:teacher update
        item: |
${item}
securedBy: [ticket]
/submissions:
  securedBy: [acl]
  get:
  post:
    body:
      application/json:
        schema: !include s.json
  /{id}:
    get:
    patch:
`),
        's.json': JSON.stringify({
          type: 'object',
          properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
        }),
      });
      const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
      const ir = analysis.ir!;
      return ir.routes.filter((route) => changesUnseen(ir, route)).map((route) => route.path);
    };
    // The collection's `allow g:teacher update` is reached only when the item rules leave callers to it.
    expect(
      unseen('          allow g:admin all\n          allow {{owner}} view, update\n          deny everyone all'),
    ).toEqual([]);
    expect(unseen('          allow g:admin all\n          allow {{owner}} view, update')).toEqual(['/submissions/:id']);
  });
});

describe("a list field's choices", () => {
  it('hold in the bodies when the schema gives its own items (`"items": {"type": "string"}`)', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: {
        id: { _db_settings: { type: 'id_field', primary_key: true } },
        tags: {
          type: ['array', 'null'],
          items: { type: 'string', minLength: 1 },
          _db_settings: { type: 'list', item_type: 'string', choices: ['red', 'green'] },
        },
      },
    });
    const dir = writeTree({
      'api.raml': raml(
        `title: T\n/stories:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include story.json\n`,
      ),
      'story.json': schema,
    });
    const analysis = analyze(join(dir, 'api.raml'), { cwd: dir });
    const document: Json = openApiDocument(analysis.ir!);
    expect(document['components']['schemas']['StoryCreate']['properties']['tags']['items']).toEqual({
      type: 'string',
      minLength: 1,
      enum: ['red', 'green'],
    });
  });
});

describe('a decimal field', () => {
  it('gets the bound its digits set only where min_value and max_value do not already say more', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: {
        id: { _db_settings: { type: 'id_field', primary_key: true } },
        quantity: { _db_settings: { type: 'decimal', scale: 3, min_value: 0 } },
        price: { _db_settings: { type: 'decimal', scale: 2, precision: 6 } },
      },
    });
    const dir = writeTree({
      'api.raml': raml(
        `title: T\n/items:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n`,
      ),
      'item.json': schema,
    });
    const document: Json = openApiDocument(analyze(join(dir, 'api.raml'), { cwd: dir }).ir!);
    const properties = document['components']['schemas']['ItemCreate']['properties'];
    // min_value 0 says more than -1e35: only the upper bound of 38 digits is added.
    expect(properties['quantity']).toMatchObject({ minimum: 0, exclusiveMaximum: 1e35 - 0.0005 });
    expect(properties['quantity']).not.toHaveProperty('exclusiveMinimum');
    expect(properties['price']).toMatchObject({ exclusiveMinimum: -9999.995, exclusiveMaximum: 9999.995 });
  });
});
