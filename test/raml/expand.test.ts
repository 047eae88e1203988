/**
 * Resource types, traits and the default media type: what the
 * expanded resource says, as concrete values.
 */
import { describe, expect, it } from 'vitest';
import type { Method, NamedParameter, RamlApi, Resource } from '../../src/raml/model.js';
import { resourcePathName } from '../../src/raml/expand.js';
import { raml } from '../support/files.js';
import { codes, readFiles } from '../support/front-end.js';

function api(text: string, extra: Record<string, string> = {}): RamlApi {
  const result = readFiles({ 'api.raml': raml(text), ...extra });
  expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`)).toEqual([]);
  return result.api!;
}

function resource(a: RamlApi, path: string): Resource {
  const find = (list: readonly Resource[]): Resource | undefined => {
    for (const r of list) {
      if (r.path === path) return r;
      const nested = find(r.resources);
      if (nested) return nested;
    }
    return undefined;
  };
  const found = find(a.resources);
  if (!found) throw new Error(`no resource ${path}`);
  return found;
}

function method(a: RamlApi, path: string, name: string): Method {
  const found = resource(a, path).methods.find((m) => m.method === name);
  if (!found) throw new Error(`no ${name} on ${path}`);
  return found;
}

function param(params: ReadonlyMap<string, unknown> | undefined, name: string): NamedParameter {
  return params?.get(name) as NamedParameter;
}

describe('merging', () => {
  const a = api(`
title: T
traits:
  - first: { description: first, queryParameters: { q: { description: first, enum: [a, shared] } } }
  - second: { description: second, queryParameters: { q: { description: second, enum: [b, shared] }, r: {} } }
  - typeTrait: { description: type trait, headers: { H: { description: type trait } } }
resourceTypes:
  - base:
      is: [ typeTrait ]
      description: base of <<resourcePathName>>
      get:
        is: [ second ]
        description: from the type
        queryParameters: { q: { enum: [t] } }
/own:
  type: base
  description: my own description
  get:
    is: [ first ]
    queryParameters: { q: { enum: [own] } }
/bare:
  type: base
  get:
`);

  it('keeps the value the resource or method already has', () => {
    expect(resource(a, '/own').description).toBe('my own description');
    expect(method(a, '/own', 'get').description).toBe('from the type');
  });

  it('fills a null method (`get:`) from the type', () => {
    expect(method(a, '/bare', 'get').description).toBe('from the type');
    expect(resource(a, '/bare').description).toBe('base of bare');
  });

  it('unites sequences, own items first, without duplicates', () => {
    expect(param(method(a, '/own', 'get').queryParameters, 'q').enum).toEqual(['own', 't', 'a', 'shared', 'b']);
  });

  it('applies method traits before resource traits before the type’s traits', () => {
    expect(param(method(a, '/own', 'get').queryParameters, 'q').description).toBe('first');
    expect(param(method(a, '/bare', 'get').queryParameters, 'q').description).toBe('second');
    expect(param(method(a, '/own', 'get').headers, 'H').description).toBe('type trait');
  });

  it('records the traits that were applied, own first', () => {
    expect(method(a, '/own', 'get').is).toEqual(['first', 'second']);
    expect(resource(a, '/own').is).toEqual(['typeTrait']);
  });
});

describe('optional properties', () => {
  const a = api(`
title: T
traits:
  - t:
      headers?: { X-Opt: {} }
      responses:
        200?: { description: only if 200 exists }
        404?: { description: only if 404 exists }
resourceTypes:
  - base:
      get?: { description: base get }
      post?: { description: base post }
      delete: { description: always }
  - child:
      type: base
      get: { description: child makes get real }
      post?: { headers: { X-Child: {} } }
/withHeaders:
  get:
    is: [ t ]
    headers: { X-Own: {} }
    responses: { 200: }
/withoutHeaders:
  get:
    is: [ t ]
/child:
  type: child
/childWithPost:
  type: child
  post:
`);

  it('merges an optional key only where the target has it', () => {
    expect([...method(a, '/withHeaders', 'get').headers!.keys()]).toEqual(['X-Own', 'X-Opt']);
    expect(method(a, '/withoutHeaders', 'get').headers).toBeUndefined();
    expect(method(a, '/withHeaders', 'get').responses!.map((r) => [r.code, r.description])).toEqual([
      ['200', 'only if 200 exists'],
    ]);
    expect(method(a, '/withoutHeaders', 'get').responses).toEqual([]);
  });

  it('keeps a method optional through a type chain until someone makes it real', () => {
    expect(resource(a, '/child').methods.map((m) => m.method)).toEqual(['get', 'delete']);
    expect(resource(a, '/childWithPost').methods.map((m) => m.method)).toEqual(['post', 'get', 'delete']);
    expect(method(a, '/childWithPost', 'post').description).toBe('base post');
    expect([...method(a, '/childWithPost', 'post').headers!.keys()]).toEqual(['X-Child']);
    expect(method(a, '/child', 'get').description).toBe('child makes get real');
  });

  it('refuses an optional scalar property', () => {
    const result = readFiles({
      'api.raml': raml('title: T\ntraits:\n  - t: { description?: x }\n/a:\n  get:\n    is: [t]\n'),
    });
    expect(codes(result.diagnostics)).toEqual(['SVC1112']);
  });
});

describe('parameters', () => {
  const a = api(`
title: T
traits:
  - described:
      description: "<<methodName>> <<resourcePathName | !singularize>> / <<resourcePathName|!pluralize>> at <<resourcePath>>"
  - keyed:
      queryParameters:
        <<name>>:
          type: integer
          maximum: <<max>>
resourceTypes:
  - collection:
      description: <<resourcePathName>> (<<methodName>> stays as written in types)
      get:
        is: [ described, keyed: { name: limit, max: 50 } ]
/people:
  type: collection
  /{personId}:
    get:
      is: [ described ]
/categories/{id}/item{ext}:
  get:
    is: [ described ]
`);

  it('substitutes reserved parameters and inflects them', () => {
    expect(method(a, '/people', 'get').description).toBe('get person / people at /people');
    expect(method(a, '/people/{personId}', 'get').description).toBe('get person / people at /people/{personId}');
    expect(resource(a, '/people').description).toBe('people (<<methodName>> stays as written in types)');
  });

  it('substitutes in keys and re-types plain scalars', () => {
    expect(param(method(a, '/people', 'get').queryParameters, 'limit')).toMatchObject({ type: 'integer', maximum: 50 });
  });

  it.each([
    ['/users', 'users'],
    ['/users/{id}', 'users'],
    ['/users{mediaTypeExtension}', ''],
    ['/{tenant}', ''],
    ['/api/users{ext}/{id}', 'api'],
    ['/categories/{id}/item', 'item'],
  ])('resourcePathName of %s is "%s"', (path, name) => {
    expect(resourcePathName(path)).toBe(name);
  });

  it('reports a missing value where the type is applied', () => {
    const result = readFiles({
      'api.raml': raml('title: T\nresourceTypes:\n  - c: { description: <<thing>> }\n/a:\n  type: c\n'),
    });
    expect(result.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      'SVC1204 resource type "c" needs a value for parameter "thing"',
    ]);
  });

  // A porting probe's type file said <<resourcePathname>>, and each of its six uses was told.
  it('reports a misspelt built-in parameter once, in the template, with the name meant', () => {
    const result = readFiles({
      'api.raml': raml(
        'title: T\nresourceTypes:\n  - c: { description: List <<resourcePathname>> }\n/a:\n  type: c\n/b:\n  type: c\n',
      ),
    });
    expect(result.diagnostics.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        'SVC1204',
        'parameter "resourcePathname" has no value: it is no built-in parameter',
        'did you mean `<<resourcePathName>>`?',
      ],
    ]);
    const span = result.diagnostics[0]!.span!;
    expect(span.source.text.slice(span.start, span.end)).toContain('<<resourcePathname>>');
  });

  // A porting probe's undeclared schema, passed to a resource type, was reported in the type, once per use, naming none.
  it('reports what is wrong with a value passed to a template where the use wrote it', () => {
    const result = readFiles({
      'api.raml': raml(
        'title: T\nresourceTypes:\n  - c: { post: { body: { application/json: { schema: <<schema>> } } } }\n/rides:\n  type: { c: { schema: rids } }\n/bikes:\n  type: { c: { schema: bikes } }\n',
      ),
    });
    const unknown = result.diagnostics.filter((d) => d.code === 'SVC1118');
    expect(unknown.map((d) => d.span!.source.text.slice(d.span!.start, d.span!.end))).toEqual(['rids', 'bikes']);
    expect(unknown.map((d) => d.span!.source.path.endsWith('api.raml'))).toEqual([true, true]);
    expect(unknown[0]!.span!.start).toBeGreaterThan(result.diagnostics[0]!.span!.source.text.indexOf('/rides'));
  });

  // A porting probe's tab in an included type file brought six warnings that its parameters were unused.
  it('says nothing of the parameters of a template whose file could not be read', () => {
    const result = readFiles({
      'api.raml': raml('title: T\nresourceTypes:\n  - c: !include types/c.raml\n/a:\n  type: { c: { schema: x } }\n'),
      'types/c.raml': 'description: <<schema>>\nget:\n\tdescription: x\n',
    });
    const found = result.diagnostics.map((d) => d.code);
    expect(found).toContain('SVC1004');
    expect(found).not.toContain('SVC1205');
  });

  // Its hint read "did you mean `shema`?", the use's own misspelling.
  it('says of a parameter the use misspelt which name it gave, and the one meant', () => {
    const result = readFiles({
      'api.raml': raml(
        'title: T\nresourceTypes:\n  - c: { description: <<schema>> }\n/a:\n  type: { c: { shema: x } }\n',
      ),
    });
    expect(result.diagnostics.filter((d) => d.code === 'SVC1204').map((d) => [d.message, d.hint])).toEqual([
      ['resource type "c" needs a value for parameter "schema"', 'it is given "shema": did you mean "schema"?'],
    ]);
  });
});

describe('the default media type', () => {
  const a = api(`
title: T
mediaType: application/json
schemas:
  - item: '{"type": "object"}'
traits:
  - errors:
      responses:
        400:
          body:
            schema: '{"type": "object", "required": ["message"]}'
resourceTypes:
  - collection:
      post?:
        body:
          schema: item
/items:
  type: collection
  post:
    is: [ errors ]
    body:
      application/json:
        example: '{"id": 1}'
`);

  it('applies inside types and traits before merging', () => {
    const post = method(a, '/items', 'post');
    expect(post.body!.map((b) => [b.mediaType, b.schema?.written, b.example])).toEqual([
      ['application/json', 'item', '{"id": 1}'],
    ]);
    expect(post.responses![0]!.body![0]!.mediaType).toBe('application/json');
  });

  it('resolves a schema name to the declared schema, and keeps other text literal', () => {
    const post = method(a, '/items', 'post');
    expect(post.body![0]!.schema).toMatchObject({ written: 'item', content: '{"type": "object"}' });
    expect(post.body![0]!.schema!.declaration?.name).toBe('item');
    expect(post.responses![0]!.body![0]!.schema).toMatchObject({
      written: '{"type": "object", "required": ["message"]}',
    });
    expect(post.responses![0]!.body![0]!.schema!.declaration).toBeUndefined();
  });
});

describe('securedBy', () => {
  const a = api(`
title: T
securitySchemes:
  - ticket: { type: x-Ticket }
  - acl: { type: x-ACL }
  - basic: { type: Basic Authentication }
securedBy: [ ticket ]
traits:
  - adminOnly: { securedBy: [ basic ] }
/a:
  securedBy: [ acl ]
  get:
  post:
    securedBy: [ null, basic: { realm: x } ]
  put:
    is: [ adminOnly ]
`);

  it('keeps what each level says (inheritance is decided by the consumers)', () => {
    expect(a.securedBy).toEqual([expect.objectContaining({ name: 'ticket' })]);
    expect(resource(a, '/a').securedBy).toEqual([expect.objectContaining({ name: 'acl' })]);
    expect(method(a, '/a', 'get').securedBy).toBeUndefined();
    expect(method(a, '/a', 'post').securedBy).toEqual([
      null,
      expect.objectContaining({ name: 'basic', parameters: { realm: 'x' } }),
    ]);
    expect(method(a, '/a', 'put').securedBy).toEqual([expect.objectContaining({ name: 'basic' })]);
  });
});
