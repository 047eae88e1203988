/**
 * What the OpenAPI document tells the tools users point at it (issue 32): operationIds a client
 * author would write, `example`s valid against their own schemas, free-form objects that say so,
 * the ETag and If-Match of items, the limits the service applies, list parameters' form; with
 * auth off (lib/http/openapi.ts) only what the service still serves, and nothing unused.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { Json } from '../support/openapi-tools.js';
import { API_FIXTURES, servedDocuments } from '../support/openapi-tools.js';
import { generateApiProject, generateFixture } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

// oxlint-disable-next-line typescript/no-explicit-any -- documents walked by path: a member that is not there fails the test where it is read
type Doc = Record<string, any>;

const documents = servedDocuments() as Map<string, Doc>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'];

function operations(document: Doc): [string, string, Doc][] {
  return Object.entries(document['paths'] as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]): [string, string, Doc] => [method.toUpperCase(), path, op as Doc]),
  );
}

function resolve(document: Doc, value: Doc): Doc {
  const ref = value['$ref'];
  if (typeof ref !== 'string') return value;
  const [, , kind, name] = ref.split('/');
  return document['components'][kind!][name!];
}

/** A validator of values against the document's schemas, `$ref`s included. */
function validatorOf(document: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document, 'openapi');
  return (schema: Doc, value: unknown): unknown => {
    const validate = ajv.compile(anchored(schema));
    return validate(value) ? null : validate.errors;
  };
}

/** `#/components/schemas/X` → `openapi#/components/schemas/X`, so that ajv finds it in the document. */
function anchored(schema: Doc): Doc {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')) as Doc;
}

describe.each(API_FIXTURES)('the OpenAPI document of %s', (fixture) => {
  const document = documents.get(fixture)!;

  it('has operationIds that are unique, and words a client author would write', () => {
    const ids = operations(document).map(([, , op]) => op['operationId'] as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids)
      expect(id).toMatch(
        /^(list|create|get|update|replace|delete|options|register|login|logout|reset|retry|receive)[A-Z]?[A-Za-z]*$/,
      );
  });

  it('has an example for every path parameter and every create and update body, valid against its schema', () => {
    const check = validatorOf(document);
    let examples = 0;
    for (const [method, path, op] of operations(document)) {
      for (const parameter of (document['paths'][path].parameters ?? []) as Doc[]) {
        expect(parameter['example'], `${path} ${parameter['name']}`).toBeDefined();
        expect(check(parameter['schema'], parameter['example']), `${path} ${parameter['name']}`).toBeNull();
        examples++;
      }
      const media = op['requestBody']?.content['application/json'];
      const ref = String(media?.schema['$ref'] ?? '');
      if (!/(Create|Update|Login)$/.test(ref)) continue;
      expect(media.example, `${method} ${path}`).toBeDefined();
      expect(check(media.schema, media.example), `${method} ${path}`).toBeNull();
      examples++;
    }
    expect(examples).toBeGreaterThan(3);
  });

  it('says additionalProperties of every object schema: closed, or a free-form record', () => {
    const open: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}/${i}`));
      else if (value && typeof value === 'object') {
        const schema = value as Doc;
        const types = [schema['type']].flat();
        if (types.includes('object') && !('additionalProperties' in schema)) open.push(at);
        for (const [key, v] of Object.entries(schema)) walk(v, `${at}/${key}`);
      }
    };
    walk(document['paths'], '#/paths');
    walk(document['components'], '#/components');
    expect(open).toEqual([]);
  });

  it('declares ETag on every answer holding an item, and If-Match and 412 on its changes and deletes', () => {
    let items = 0;
    for (const [method, path, op] of operations(document)) {
      const success = (op['responses']['200'] ?? op['responses']['201']) as Doc | undefined;
      const schema = success?.content?.['application/json']?.schema as Doc | undefined;
      // An object of a model (it has `_type`), answered by a route of the API (the auth routes' user has no ETag).
      const item = schema?.['$ref'] && resolve(document, schema).properties?._type;
      if (item && !path.startsWith('/auth') && path !== '/users/self') {
        expect(success!['headers']?.ETag, `${method} ${path}`).toEqual({ $ref: '#/components/headers/ETag' });
        items++;
      }
      const conditional = (op['parameters'] ?? []).some((p: Doc) => p['$ref'] === '#/components/parameters/If-Match');
      expect(conditional, `${method} ${path}`).toBe('412' in op['responses']);
    }
    expect(items).toBeGreaterThan(1);
    const ifMatch = document['components']['parameters']['If-Match'];
    if (ifMatch) expect(ifMatch).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
  });

  it('documents every list-valued query parameter as comma-separated (the runtime takes it repeated too)', () => {
    const lists = Object.values(document['components']['parameters'] as Doc).filter(
      (p: Doc) => p['in'] === 'query' && p['schema'].type === 'array',
    );
    expect(lists.map((p: Doc) => p['name'])).toEqual(expect.arrayContaining(['_sort', '_fields']));
    for (const p of lists) expect([p['name'], p['style'], p['explode']]).toEqual([p['name'], 'form', false]);
  });
});

describe('operationIds', () => {
  const ids = (fixture: string) =>
    Object.fromEntries(operations(documents.get(fixture)!).map(([m, p, op]) => [`${m} ${p}`, op['operationId']]));

  it('name the action and the model (fixtures/ramses-example)', () => {
    expect(ids('ramses-example')).toMatchObject({
      'GET /stories': 'listStories',
      'POST /stories': 'createStory',
      'GET /stories/{id}': 'getStory',
      'PATCH /stories/{id}': 'updateStory',
      'PUT /stories/{id}': 'replaceStory',
      'DELETE /stories/{id}': 'deleteStory',
      'PATCH /stories': 'updateStories',
      'DELETE /stories': 'deleteStories',
      'GET /users/{username}/settings': 'getUserSettings',
      'POST /users/{username}/settings': 'updateUserSettings',
      'GET /users/{username}/profile': 'getUserProfile',
      'POST /auth/login': 'login',
      'POST /auth/logout': 'logout',
      'GET /auth/logout': 'logoutGet',
      'POST /auth/register': 'register',
      'GET /health': 'getHealth',
    });
  });

  it('name the parents of nested routes; a second method of one action gets the method (fixtures/library, embedding, blog)', () => {
    expect(ids('library')).toMatchObject({
      'GET /authors/{id}/books': 'listAuthorBooks',
      'POST /authors/{id}/books': 'createAuthorBook',
    });
    expect(ids('embedding')).toMatchObject({
      'GET /teams/{id}/members': 'listTeamMembers',
      'GET /users/self': 'getSelf',
    });
    expect(ids('blog')).toMatchObject({
      'GET /posts/{slug}/comments/{id}': 'getPostComment',
      'PATCH /authors': 'updateAuthors',
      'PUT /authors': 'updateAuthorsPut',
      'POST /auth/token': 'createApiToken',
    });
  });

  it('name every parent and type every key of a nested path, also where a parent`s item has no methods', async () => {
    // fixtures/workshop without the methods of /projects/{id}/tasks/{tid}: its checklist is still a project's task's.
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-openapi-'));
    cpSync(join(fixtureRaml('workshop'), '..'), dir, { recursive: true });
    const raml = join(dir, 'api.raml');
    const item = '            /{tid}:\n                options:\n                get:\n                patch:\n';
    const text = readFileSync(raml, 'utf8');
    expect(text).toContain(item);
    writeFileSync(raml, text.replace(item, '            /{tid}:\n'));
    const document = JSON.parse((await generateApiProject(raml)).get('openapi.json')!.content) as Doc;
    const checklist = document['paths']['/projects/{id}/tasks/{tid}/checklist'] as Doc;
    expect(checklist['get']['operationId']).toBe('getProjectTaskChecklist');
    const id = (checklist['parameters'] ?? checklist['get']['parameters']).find((p: Doc) => p['name'] === 'id');
    expect([id['schema']['type'], id['description']]).toEqual(['integer', 'The id of the Project.']);
  });

  it('appear in the README’s route table, the service’s own routes too', async () => {
    const readme = (await generateFixture('ramses-example')).get('README.md')!.content;
    expect(readme).toMatch(/\| PATCH +\| `\/v1\/stories\/\{id\}` +\| update +\| `updateStory` +\|/);
    // …and those the service adds, as the document has them.
    for (const [method, path, id] of [
      ['POST', '/v1/auth/register', 'register'] as const,
      ['GET', '/v1/auth/logout', 'logoutGet'],
      ['GET', '/v1/_events', 'getEvents'],
      ['GET', '/v1/health', 'getHealth'],
    ])
      expect(readme).toMatch(
        new RegExp(`\\| ${method} +\\| \`${path.replace(/[/]/g, '\\/')}\` +\\| +\\| \`${id}\` +\\|`),
      );
    expect(readme).toContain('## Using the OpenAPI document');
  });
});

describe('limits the service applies', () => {
  const schemas = (fixture: string) => documents.get(fixture)!['components']['schemas'] as Doc;

  it('a password of at most 256 characters (1024 bytes of UTF-8 always hold them), on registration and login', () => {
    const example = schemas('ramses-example');
    expect(example['UserCreate'].properties.password).toMatchObject({ type: 'string', minLength: 3, maxLength: 256 });
    expect(example['Login'].properties.password).toMatchObject({ maxLength: 256 });
    expect(schemas('blog')['UserCreate'].properties.password.description).toBe(
      'stored as an argon2id hash, never returned. At most 1024 bytes in UTF-8: 256 characters always fit.',
    );
  });

  it('decimals any number in their range, said to be rounded to their scale (no multipleOf, which refuses 19.99)', () => {
    const blog = schemas('blog');
    const rounded = 'Stored rounded to 2 digits after the point (half away from zero).';
    for (const body of ['PostCreate', 'PostUpdate']) {
      const rating = blog[body].properties.rating as Json;
      expect(rating['multipleOf']).toBeUndefined();
      expect(rating['description']).toContain(rounded);
      const valid = new Ajv2020({ strict: false }).compile(rating);
      expect([0.07, 19.99, 4.35, 1.005, 3].map((n) => valid(n))).toEqual([true, true, true, true, true]);
    }
    expect(blog['Post'].properties.rating.description ?? '').not.toContain(rounded);
  });

  it('no username “self”, whatever its case', () => {
    const username = schemas('ramses-example')['UserCreate'].properties.username as Json;
    const ajv = new Ajv2020({ strict: false });
    const valid = ajv.compile(username);
    expect(['self', 'Self', ' SELF '].map((name) => valid(name))).toEqual([false, false, false]);
    expect(['selfie', 'myself', 'alice'].map((name) => valid(name))).toEqual([true, true, true]);
  });
});

describe('with auth off (lib/http/openapi.ts’s withoutAuth)', () => {
  it('no operation takes credentials, and nothing only the auth routes used is left', () => {
    const served = documents.get('ramses-example.no-auth')!;
    expect(served['security']).toEqual([]);
    expect(served['components']['securitySchemes']).toBeUndefined();
    expect(served['components']['schemas']['Login']).toBeUndefined();
    for (const [, , op] of operations(served)) expect(op['security']).toBeUndefined();
    expect(Object.keys(served['paths']).filter((p) => p.startsWith('/auth'))).toEqual([]);
  });
});
