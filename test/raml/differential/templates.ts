/** Resource types and traits (RAML 0.8 §Resource Types and Traits), checked where declared, applied or not. */
import { group, type DifferentialCase } from './case.js';

const GET = '/items:\n  get:\n';

/** A trait `t` with `body` (indented as trait properties), applied to `get` when `applied`. */
function trait(body: string, applied = false): string {
  return `title: T\ntraits:\n  - t:\n${body}/items:\n  get:\n${applied ? '    is: [t]\n' : ''}`;
}

/** A resource type `c` with `body`, applied to /items when `applied`. */
function resourceType(body: string, applied = false): string {
  return `title: T\nresourceTypes:\n  - c:\n${body}/items:\n${applied ? '  type: c\n' : ''}  get:\n`;
}

function optionalScalars(): DifferentialCase[] {
  const out: DifferentialCase[] = [];
  for (const property of ['description', 'displayName', 'usage']) {
    out.push({ name: `optional-scalar/${property}-in-trait`, raml: trait(`      ${property}?: x\n`) });
    out.push({ name: `optional-scalar/${property}-in-resource-type`, raml: resourceType(`      ${property}?: x\n`) });
  }
  out.push({ name: 'optional-scalar/description-in-applied-trait', raml: trait('      description?: x\n', true) });
  out.push({ name: 'optional-scalar/description-null-in-trait', raml: trait('      description?:\n') });
  out.push({
    name: 'optional-scalar/type-in-resource-type',
    raml: 'title: T\nresourceTypes:\n  - c:\n      type?: d\n  - d:\n/items:\n  get:\n',
  });
  out.push({
    name: 'optional-scalar/description-in-resource-type-method',
    raml: resourceType('      get:\n        description?: x\n'),
  });
  out.push({
    name: 'optional-scalar/description-in-applied-resource-type-method',
    raml: resourceType('      get?:\n        description?: x\n', true),
  });
  const facets = [
    'description: x',
    'displayName: x',
    'type: string',
    'required: true',
    'repeat: true',
    'default: x',
    'example: x',
    'pattern: x',
    'minLength: 1',
    'maxLength: 2',
  ];
  for (const facet of facets) {
    const [key, value] = facet.split(': ');
    out.push({
      name: `optional-scalar/parameter-${key}-in-trait`,
      raml: trait(`      queryParameters:\n        q:\n          ${key}?: ${value}\n`),
    });
  }
  for (const key of ['minimum', 'maximum']) {
    out.push({
      name: `optional-scalar/parameter-${key}-in-resource-type`,
      raml: resourceType(
        `      get:\n        headers:\n          h:\n            type: number\n            ${key}?: 1\n`,
      ),
    });
  }
  out.push({
    name: 'optional-scalar/schema-in-trait-body',
    raml: trait("      body:\n        application/json:\n          schema?: '{}'\n"),
  });
  out.push({
    name: 'optional-scalar/example-in-trait-body',
    raml: trait('      body:\n        application/json:\n          example?: x\n'),
  });
  out.push({
    name: 'optional-scalar/response-description-in-trait',
    raml: trait('      responses:\n        200:\n          description?: ok\n'),
  });
  out.push({
    name: 'optional-scalar/response-description-in-resource-type',
    raml: resourceType('      get:\n        responses:\n          200:\n            description?: ok\n'),
  });
  return out;
}

function optionalNonScalars(): DifferentialCase[] {
  const out: DifferentialCase[] = [];
  const traitProperties: Record<string, string> = {
    headers: 'headers?:\n        h:\n',
    queryParameters: 'queryParameters?:\n        q:\n',
    body: 'body?:\n        application/json:\n',
    responses: 'responses?:\n        200:\n',
    'response-code': 'responses:\n        200?:\n          description: ok\n',
    protocols: 'protocols?: [HTTPS]\n',
    securedBy: 'securedBy?: [null]\n',
    baseUriParameters: 'baseUriParameters?:\n        b:\n',
    'header-name': 'headers:\n        h?:\n          description: x\n',
  };
  for (const [name, body] of Object.entries(traitProperties)) {
    out.push({ name: `optional/${name}-in-trait`, raml: trait(`      ${body}`) });
    out.push({ name: `optional/${name}-in-applied-trait`, raml: trait(`      ${body}`, true) });
  }
  const typeProperties: Record<string, string> = {
    get: 'get?:\n        description: x\n',
    post: 'post?:\n        description: x\n',
    is: 'is?: [t]\n',
    securedBy: 'securedBy?: [null]\n',
    uriParameters: 'uriParameters?:\n        id:\n',
    baseUriParameters: 'baseUriParameters?:\n        b:\n',
  };
  for (const [name, body] of Object.entries(typeProperties)) {
    const withTrait = (raml: string) =>
      raml.replace('resourceTypes:', 'traits:\n  - t: {description: from t}\nresourceTypes:');
    out.push({ name: `optional/${name}-in-resource-type`, raml: withTrait(resourceType(`      ${body}`)) });
    out.push({
      name: `optional/${name}-in-applied-resource-type`,
      raml: withTrait(resourceType(`      ${body}`, true)),
    });
  }
  out.push({
    name: 'optional/method-through-type-chain',
    raml: 'title: T\nresourceTypes:\n  - base:\n      get?:\n        description: base\n  - c:\n      type: base\n/items:\n  type: c\n  get:\n',
  });
  out.push({
    name: 'optional/method-made-real-by-child-type',
    raml: 'title: T\nresourceTypes:\n  - base:\n      get?:\n        description: base\n  - c:\n      type: base\n      get:\n/items:\n  type: c\n',
  });
  out.push({
    name: 'optional/body-where-method-has-one',
    raml: 'title: T\nmediaType: application/json\ntraits:\n  - t:\n      body?:\n        schema: s\n/items:\n  post:\n    is: [t]\n    body:\n      example: x\n',
  });
  return out;
}

function optionalRepeats(): DifferentialCase[] {
  const out: DifferentialCase[] = [];
  const traitKeys: Record<string, [string, string]> = {
    headers: ['headers:\n        a:\n', 'headers?:\n        b:\n'],
    queryParameters: ['queryParameters?:\n        a:\n', 'queryParameters:\n        b:\n'],
    body: ['body:\n        application/json:\n', 'body?:\n        text/plain:\n'],
    responses: ['responses:\n        200:\n', 'responses?:\n        404:\n'],
  };
  for (const [name, [a, b]] of Object.entries(traitKeys)) {
    out.push({ name: `optional-repeat/${name}-in-trait`, raml: trait(`      ${a}      ${b}`) });
  }
  out.push({ name: 'optional-repeat/get-in-resource-type', raml: resourceType('      get:\n      get?:\n') });
  out.push({
    name: 'optional-repeat/post-in-applied-resource-type',
    raml: resourceType('      post?:\n      post:\n', true),
  });
  out.push({ name: 'optional-repeat/parameter-name', raml: trait('      headers:\n        h:\n        h?:\n') });
  out.push({ name: 'optional-repeat/response-code', raml: trait('      responses:\n        200:\n        200?:\n') });
  out.push({
    name: 'optional-repeat/media-type',
    raml: trait('      body:\n        application/json?:\n        application/json:\n'),
  });
  out.push({
    name: 'optional-repeat/uri-parameters',
    raml: resourceType('      uriParameters:\n        a:\n      uriParameters?:\n        b:\n'),
  });
  return out;
}

const functions = group('functions', {
  'singularize-applied':
    'title: T\nresourceTypes:\n  - c:\n      description: one <<resourcePathName | !singularize>>\n/users:\n  type: c\n  get:\n',
  'pluralize-applied':
    'title: T\nresourceTypes:\n  - c:\n      description: all <<thing | !pluralize>>\n/users:\n  type: {c: {thing: person}}\n  get:\n',
  'no-spaces':
    'title: T\nresourceTypes:\n  - c:\n      description: <<resourcePathName|!singularize>>\n/users:\n  type: c\n  get:\n',
  'unknown-unapplied': trait('      description: <<p | !upper>>\n'),
  'unknown-applied': 'title: T\ntraits:\n  - t: {description: <<p | !upper>>}\n/items:\n  get:\n    is: [t: {p: x}]\n',
  'unknown-in-key': trait('      queryParameters:\n        <<p | !camel>>:\n'),
  'unknown-in-resource-type': resourceType('      get:\n        description: <<resourcePath | !reverse>>\n'),
  'raml-1-function': trait('      description: <<p | !uppercase>>\n'),
  'raml-1-function-lowercamelcase': resourceType('      description: <<resourcePathName | !lowercamelcase>>\n', true),
  'blank-name': trait('      description: << >>\n'),
  'empty-name': trait('      description: a <<>> b\n'),
  'blank-name-in-key': trait('      headers:\n        << >>:\n'),
  'blank-name-applied': trait('      description: a << >> b\n', true),
  'two-words': trait('      description: <<a b>>\n'),
  'function-without-name': trait('      description: <<p | >>\n'),
  'parameter-in-key-applied':
    'title: T\ntraits:\n  - t:\n      headers:\n        X-<<name>>:\n/items:\n  get:\n    is: [t: {name: Id}]\n',
});

const cycles = group('cycles', {
  self: 'title: T\nresourceTypes:\n  - a:\n      type: a\n' + GET,
  two: 'title: T\nresourceTypes:\n  - a:\n      type: b\n  - b:\n      type: a\n' + GET,
  three: 'title: T\nresourceTypes:\n  - a:\n      type: b\n  - b:\n      type: c\n  - c:\n      type: a\n' + GET,
  'through-parameters':
    'title: T\nresourceTypes:\n  - a:\n      type: {b: {p: x}}\n  - b:\n      type: a\n      description: <<p>>\n' +
    GET,
  applied: 'title: T\nresourceTypes:\n  - a:\n      type: b\n  - b:\n      type: a\n/items:\n  type: a\n  get:\n',
  'behind-a-chain':
    'title: T\nresourceTypes:\n  - top:\n      type: a\n  - a:\n      type: b\n  - b:\n      type: a\n' + GET,
  'chain-without-cycle':
    'title: T\nresourceTypes:\n  - a:\n      type: b\n      description: a\n  - b:\n      get:\n/items:\n  type: a\n',
  'unknown-parent': 'title: T\nresourceTypes:\n  - a:\n      type: nothing\n' + GET,
});

const withoutMethods = group('without-methods', {
  'trait-missing-parameter': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  is: [t]\n',
  'trait-parameter-given': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  is: [t: {p: x}]\n',
  'trait-unknown': 'title: T\n/items:\n  is: [nothing]\n',
  'trait-method-name': 'title: T\ntraits:\n  - t: {description: <<methodName>>}\n/items:\n  is: [t]\n',
  'type-missing-parameter': 'title: T\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: c\n',
  'type-parameter-given': 'title: T\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: {c: {p: x}}\n',
  'type-unknown': 'title: T\n/items:\n  type: nothing\n',
  'type-with-optional-method':
    'title: T\nresourceTypes:\n  - c:\n      get?:\n        description: <<q>>\n/items:\n  type: c\n',
  'type-with-trait-missing-parameter':
    'title: T\ntraits:\n  - t: {description: <<p>>}\nresourceTypes:\n  - c:\n      is: [t]\n/items:\n  type: c\n',
  'nested-resource-only':
    'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  is: [t: {p: x}]\n  /sub:\n    get:\n',
});

const expansion = group('expansion', {
  'resource-path-name-of-parameter':
    'title: T\nresourceTypes:\n  - c: {description: "<<resourcePathName>>"}\n/users/{id}:\n  type: c\n  get:\n',
  'resource-path':
    'title: T\nresourceTypes:\n  - c: {description: <<resourcePath>>}\n/users:\n  /{id}:\n    type: c\n    get:\n',
  'method-name':
    'title: T\ntraits:\n  - t: {description: <<methodName>> items}\n/items:\n  get:\n    is: [t]\n  post:\n    is: [t]\n',
  'resource-is-reaches-type-methods':
    'title: T\ntraits:\n  - t: {description: traced}\nresourceTypes:\n  - c:\n      get:\n/items:\n  type: c\n  is: [t]\n',
  'method-wins-over-trait':
    'title: T\ntraits:\n  - t: {description: from trait}\n/items:\n  get:\n    is: [t]\n    description: own\n',
  'left-trait-wins':
    'title: T\ntraits:\n  - a: {description: a}\n  - b: {description: b}\n/items:\n  get:\n    is: [a, b]\n',
  'enum-lists-merge':
    'title: T\ntraits:\n  - t:\n      queryParameters:\n        q: {enum: [a, b]}\n/items:\n  get:\n    is: [t]\n    queryParameters:\n      q: {enum: [c]}\n',
  'numeric-parameter':
    'title: T\ntraits:\n  - t:\n      queryParameters:\n        page: {type: integer, maximum: <<max>>}\n/items:\n  get:\n    is: [t: {max: 50}]\n',
  'inline-trait': 'title: T\n/items:\n  get:\n    is: [{description: inline}]\n',
  'inline-type': 'title: T\n/items:\n  type: {get: {description: inline}}\n',
  'trait-secured-by':
    'title: T\nsecuritySchemes:\n  - s: {type: x-s}\ntraits:\n  - t: {securedBy: [s]}\n/items:\n  get:\n    is: [t]\n',
  'type-description-and-display-name':
    'title: T\nresourceTypes:\n  - c: {description: of <<resourcePathName>>, displayName: Things, usage: for collections}\n/items:\n  type: c\n  get:\n',
  'trait-usage-not-inherited':
    'title: T\ntraits:\n  - t: {usage: for lists, displayName: Listable, description: x}\n/items:\n  get:\n    is: [t]\n',
  'nested-resources-do-not-inherit':
    'title: T\ntraits:\n  - t: {description: x}\n/items:\n  is: [t]\n  get:\n  /sub:\n    get:\n',
  'default-media-type-in-trait':
    'title: T\nmediaType: application/json\ntraits:\n  - t:\n      body:\n        example: "{}"\n/items:\n  post:\n    is: [t]\n    body:\n      application/json:\n        schema: "{}"\n',
  'type-chain-child-wins':
    'title: T\nresourceTypes:\n  - base: {description: base, get: {description: base get}}\n  - c: {type: base, description: child}\n/items:\n  type: c\n',
  'traits-of-type-method':
    'title: T\ntraits:\n  - t: {description: from t}\nresourceTypes:\n  - c:\n      get:\n        is: [t]\n/items:\n  type: c\n',
  'parameter-given-number':
    'title: T\ntraits:\n  - t: {description: page <<n>>}\n/items:\n  get:\n    is: [t: {n: 2}]\n',
});

export const templateCases: DifferentialCase[] = [
  ...optionalScalars(),
  ...optionalNonScalars(),
  ...optionalRepeats(),
  ...functions,
  ...cycles,
  ...withoutMethods,
  ...expansion,
];
