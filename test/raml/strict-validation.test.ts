/**
 * RAML 0.8 validation as strict as the reference parsers (issue 19): each rule reports a located
 * diagnostic on the mistake, and stays quiet on the correct forms next to it. The invalid
 * fixtures (fixtures/invalid) pin the messages; test/raml/differential.test.ts checks that
 * raml-1-parser rejects them too.
 */
import { describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import { brief, readFiles } from '../support/front-end.js';

/** `CODE api.raml:line:column` of every diagnostic with one of `codes`. */
function found(text: string, codes: readonly string[]): string[] {
  const result = readFiles({ 'api.raml': raml(text) });
  return brief(
    result.diagnostics.filter((d) => codes.includes(d.code)),
    result.dir,
  );
}

describe('named parameter facets fit the type (SVC1119, SVC1120)', () => {
  it('reports string facets on numbers and number facets on strings, dates and booleans, at the facet', () => {
    const text = `
title: T
/items:
  get:
    queryParameters:
      page: {type: integer, pattern: x, minLength: 1}
      q: {minimum: 1}
      day: {type: date, enum: [a], maximum: 2}
      flag: {type: boolean, maxLength: 1}
      alt:
        - {type: number, pattern: x}
        - {type: string, pattern: x}
`;
    expect(found(text, ['SVC1119'])).toEqual([
      'SVC1119 api.raml:6:29',
      'SVC1119 api.raml:6:41',
      'SVC1119 api.raml:7:11',
      'SVC1119 api.raml:8:25',
      'SVC1119 api.raml:8:36',
      'SVC1119 api.raml:9:29',
      'SVC1119 api.raml:11:26',
    ]);
  });

  it('accepts every facet on the type it belongs to', () => {
    const text = `
title: T
/items:
  get:
    queryParameters:
      s: {type: string, enum: [a], pattern: a, minLength: 1, maxLength: 2}
      plain: {enum: [a], pattern: a}
      n: {type: number, minimum: 1, maximum: 2}
      i: {type: integer, minimum: 1, maximum: 2}
      d: {type: date, default: x}
`;
    expect(found(text, ['SVC1119', 'SVC1120'])).toEqual([]);
  });

  it('reports a facet in a trait where it is declared, even unapplied; a <<parameter>> type is not judged', () => {
    const text = `
title: T
traits:
  - paged:
      queryParameters:
        page: {type: integer, pattern: x}
        any: {type: <<kind>>, pattern: x}
/items:
  get:
`;
    expect(found(text, ['SVC1119'])).toEqual(['SVC1119 api.raml:6:31']);
  });

  it('allows type file only in form parameters', () => {
    const text = `
title: T
baseUri: http://example.com/{tenant}
baseUriParameters:
  tenant: {type: file}
/items:
  get:
    headers:
      h: {type: file}
    queryParameters:
      q: {type: file}
  post:
    body:
      multipart/form-data:
        formParameters:
          upload: {type: file}
          either: [{type: file}, {type: string}]
`;
    expect(found(text, ['SVC1120', 'SVC1119'])).toEqual([
      'SVC1120 api.raml:5:18',
      'SVC1120 api.raml:9:17',
      'SVC1120 api.raml:11:17',
    ]);
  });
});

describe('enum and multi-typed parameter lists are not empty, enum values not repeated (SVC1105, SVC1103)', () => {
  it('reports enum: [] and each repeated enum value, at the repeat', () => {
    const text = `
title: T
/items:
  get:
    queryParameters:
      a: {enum: []}
      b: {enum: [x, y, x, '1', 1]}
      c: {enum: [x, y]}
`;
    expect(found(text, ['SVC1105'])).toEqual([
      'SVC1105 api.raml:6:11',
      'SVC1105 api.raml:7:24',
      'SVC1105 api.raml:7:32',
    ]);
  });

  it('reports a parameter that is an empty list of types', () => {
    expect(
      found('title: T\n/items:\n  get:\n    queryParameters:\n      since: []\n      until:\n', ['SVC1103']),
    ).toEqual(['SVC1103 api.raml:6:7']);
  });
});

describe('a value where one is required (SVC1121)', () => {
  it('reports an empty title, mediaType, documentation title and content, and security scheme type', () => {
    const text = `
title:
mediaType:
documentation:
  - title:
    content: x
  - {title: y, content: }
securitySchemes:
  - token: {type: }
/items:
  get:
`;
    expect(found(text, ['SVC1121', 'SVC1104'])).toEqual([
      'SVC1121 api.raml:2:1',
      'SVC1121 api.raml:3:1',
      'SVC1121 api.raml:5:5',
      'SVC1121 api.raml:7:16',
      'SVC1121 api.raml:9:13',
    ]);
  });

  it('reports a trait or resource type parameter given no value, once, at its name', () => {
    const text = `
title: T
traits:
  - t: {description: <<p>>}
resourceTypes:
  - c: {description: <<q>>}
/items:
  type: {c: {q: }}
  get:
    is: [t: {p: }]
  post:
    is: [t: {p: ""}]
`;
    expect(found(text, ['SVC1121', 'SVC1204'])).toEqual(['SVC1121 api.raml:8:14', 'SVC1121 api.raml:10:14']);
  });
});

describe('one mistake, one diagnostic', () => {
  it('reports a title whose !include fails at the include, not also as a missing title', () => {
    const result = readFiles({ 'api.raml': raml('title: !include title.md\n/items:\n  get:\n') });
    expect(brief(result.diagnostics, result.dir)).toEqual(['SVC1010 api.raml:2:8']);
  });

  it('still reports an API without a title, at its first property', () => {
    const result = readFiles({ 'api.raml': raml('/items:\n  get:\n') });
    expect(brief(result.diagnostics, result.dir)).toEqual(['SVC1104 api.raml:2:1']);
  });
});

describe('structure (SVC1103, SVC1122, SVC1210)', () => {
  it('reports an empty item of "is", at the item', () => {
    const text = `
title: T
traits:
  - t: {description: x}
/items:
  is: [t, ~]
  get:
    is:
      - t
      -
`;
    expect(found(text, ['SVC1103'])).toEqual(['SVC1103 api.raml:6:11', 'SVC1103 api.raml:10:7']);
  });

  it('reports securitySchemes that are not a list, and an empty type mapping', () => {
    const text = `
title: T
securitySchemes: basic
resourceTypes:
  - c: {get: }
/items:
  type: {}
  get:
/others:
  type: c
`;
    expect(found(text, ['SVC1103'])).toEqual(['SVC1103 api.raml:3:1', 'SVC1103 api.raml:7:3']);
  });

  it('reports trait and resource type parameters given as a list, not also as missing values', () => {
    const text = `
title: T
traits:
  - t: {description: <<p>>}
resourceTypes:
  - c: {description: <<q>>}
/items:
  type: {c: [q]}
  get:
    is: [t: [p]]
`;
    expect(found(text, ['SVC1103', 'SVC1204'])).toEqual(['SVC1103 api.raml:8:13', 'SVC1103 api.raml:10:13']);
  });

  it('reports formParameters beside a schema or example, and in a response, at the body (its media type)', () => {
    const text = `
title: T
/items:
  post:
    body:
      application/x-www-form-urlencoded:
        formParameters: {a: }
        example: a=1
      multipart/form-data:
        formParameters: {a: }
    responses:
      200:
        body:
          application/json:
            formParameters: {a: }
`;
    expect(found(text, ['SVC1122'])).toEqual(['SVC1122 api.raml:6:7', 'SVC1122 api.raml:14:11']);
  });

  it('reports the second security scheme of one name, at its name', () => {
    const text = `
title: T
securitySchemes:
  - basic: {type: Basic Authentication}
  - digest: {type: Digest Authentication}
  - basic: {type: Digest Authentication}
/items:
  get:
`;
    expect(found(text, ['SVC1210'])).toEqual(['SVC1210 api.raml:6:5']);
  });
});

describe('repeats (SVC1005)', () => {
  it('reports a repeated key whose value is empty at the repeat, with its name', () => {
    const result = readFiles({
      'api.raml': raml('title: T\n/items:\n  get:\n  # a comment\n\n  get:\n  post: {queryParameters: {a: , a: }}\n'),
    });
    expect(brief(result.diagnostics, result.dir)).toEqual(['SVC1005 api.raml:7:3', 'SVC1005 api.raml:8:33']);
    expect(result.diagnostics.map((d) => d.message)).toEqual(['duplicate key "get"', 'duplicate key "a"']);
  });
});

describe('templates are checked where they are declared, applied or not', () => {
  it('reports x? beside x in one mapping of a trait or resource type, at the second (SVC1005)', () => {
    const text = `
title: T
traits:
  - t:
      headers: {a: }
      headers?: {b: }
resourceTypes:
  - c:
      get?:
      get:
        queryParameters: {q: , q?: }
/items:
  get:
`;
    expect(found(text, ['SVC1005'])).toEqual([
      'SVC1005 api.raml:6:7',
      'SVC1005 api.raml:10:7',
      'SVC1005 api.raml:11:32',
    ]);
  });

  it('reports optional scalar properties in traits, resource types and their descendants (SVC1112)', () => {
    const text = `
title: T
traits:
  - t:
      usage?: x
      description?:
      queryParameters:
        q: {required?: true, type?: string}
      body:
        application/json: {schema?: s, example?: e}
      responses:
        200: {description?: d}
resourceTypes:
  - c:
      displayName?: C
      type?: d
      get?:
        description?: x
  - d:
/items:
  get:
`;
    expect(found(text, ['SVC1112'])).toEqual([
      'SVC1112 api.raml:5:7',
      'SVC1112 api.raml:6:7',
      'SVC1112 api.raml:8:13',
      'SVC1112 api.raml:8:30',
      'SVC1112 api.raml:10:28',
      'SVC1112 api.raml:10:40',
      'SVC1112 api.raml:12:15',
      'SVC1112 api.raml:15:7',
      'SVC1112 api.raml:16:7',
      'SVC1112 api.raml:18:9',
    ]);
  });

  it('reports an optional scalar property whose value is a <<parameter>> (SVC1112)', () => {
    expect(
      found('title: T\ntraits:\n  - t:\n      queryParameters:\n        q: {type?: <<kind>>}\n/items:\n  get:\n', [
        'SVC1112',
      ]),
    ).toEqual(['SVC1112 api.raml:6:13']);
  });

  it('accepts optional non-scalar properties, and parameters named like scalar properties', () => {
    const text = `
title: T
traits:
  - t:
      headers?: {h: }
      queryParameters:
        type?: {type: string}
      responses: {200?: }
resourceTypes:
  - c:
      is?: [t]
      securedBy?: [null]
      uriParameters?: {id: }
/items:
  get:
`;
    expect(found(text, ['SVC1112', 'SVC1102', 'SVC1005'])).toEqual([]);
  });

  it('reports unknown functions and blank or malformed parameter names, once each, applied or not (SVC1207, SVC1209)', () => {
    const text = `
title: T
traits:
  - t:
      description: <<p | !upper>> and << >>
  - u:
      description: <<a | b c>> <<p | !pluralize>>
/items:
  get:
    is: [t: {p: x}]
`;
    expect(found(text, ['SVC1207', 'SVC1209'])).toEqual([
      'SVC1207 api.raml:5:20',
      'SVC1209 api.raml:5:39',
      'SVC1209 api.raml:7:20',
    ]);
  });

  it('reports a cycle of resource types at its first declaration, once, applied or not (SVC1203)', () => {
    const text = `
title: T
resourceTypes:
  - a: {type: b}
  - b: {type: {a: {}}}
  - self: {type: self}
  - fine: {type: a}
/items:
  type: fine
`;
    expect(found(text, ['SVC1203'])).toEqual(['SVC1203 api.raml:4:5', 'SVC1203 api.raml:6:5']);
  });

  it('reports "is" and "is?" inside a trait (SVC1102)', () => {
    const text = `
title: T
traits:
  - t: {is: [u]}
  - u: {is?: [t]}
/items:
  get:
`;
    expect(found(text, ['SVC1102'])).toEqual(['SVC1102 api.raml:4:9', 'SVC1102 api.raml:5:9']);
  });

  it('says where a misplaced property belongs (SVC1102)', () => {
    const result = readFiles({
      'api.raml': raml('title: T\n/items:\n  title: x\n  get:\n    usage: u\n    type: t\n'),
    });
    expect(result.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([
      'SVC1102 "title" cannot appear in resource /items: it is a property of the API root',
      'SVC1102 "usage" cannot appear in method get: only resource types and traits have a usage; "neither resources nor methods allow a property named usage" (RAML 0.8 §Usage)',
      'SVC1102 "type" cannot appear in method get: only resources and resource types have a type',
    ]);
  });

  it('reports optional properties outside resource types and traits instead of dropping them (SVC1102)', () => {
    const text = `
title: T
/items:
  description?: x
  get?:
  post:
    queryParameters: {q?: }
  type: {c: {}}
resourceTypes:
  - c: {get?: }
`;
    expect(found(text, ['SVC1102'])).toEqual(['SVC1102 api.raml:4:3', 'SVC1102 api.raml:5:3', 'SVC1102 api.raml:7:23']);
  });

  it('checks the traits of a resource without methods as if applied (SVC1204)', () => {
    const text = `
title: T
traits:
  - t: {description: <<p>> <<methodName>>}
resourceTypes:
  - c: {description: <<q>>}
/items:
  is: [t]
/others:
  type: c
/fine:
  is: [t: {p: x}]
`;
    expect(found(text, ['SVC1204'])).toEqual(['SVC1204 api.raml:8:8', 'SVC1204 api.raml:10:9']);
  });
});

describe('lax where the reference parsers and the spec are', () => {
  it('accepts enum with no value and a description in a body', () => {
    const text = `
title: T
/items:
  post:
    queryParameters: {q: {enum: }}
    body:
      application/json: {description: the new item}
`;
    expect(found(text, ['SVC1103', 'SVC1102', 'SVC1105'])).toEqual([]);
  });
});

describe('references of resource types, where declared (SVC1201, SVC1202)', () => {
  it('reports an unknown parent type and unknown traits of a type and its methods, applied or not', () => {
    const text = `
title: T
traits:
  - t:
resourceTypes:
  - c:
      type: nothing
      is: [t, missing]
      get:
        is: [{gone: {p: 1}}]
  - d:
      type: {c: {}}
      is: [{description: inline}]
/items:
  get:
`;
    expect(found(text, ['SVC1201', 'SVC1202'])).toEqual([
      'SVC1201 api.raml:7:13',
      'SVC1202 api.raml:8:15',
      'SVC1202 api.raml:10:15',
    ]);
  });
});

describe('missing parameter values inside optional properties', () => {
  it('needs a value for every parameter of an applied template, also one used only inside an optional property (RAML 0.8 §Parameters)', () => {
    const text = `
title: T
resourceTypes:
  - collection:
      get:
      post?:
        body:
          application/json:
            schema: <<schema>>
/items:
  type: collection
/others:
  type: collection
  post:
`;
    expect(found(text, ['SVC1204'])).toEqual(['SVC1204 api.raml:11:9', 'SVC1204 api.raml:13:9']);
  });
});
