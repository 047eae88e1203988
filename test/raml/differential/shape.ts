/** The printed (TCK) shape where the TCK corpus is silent, and the places where svcgen is as lax as the reference parsers. */
import { group, type DifferentialCase } from './case.js';

const emptyCollections = group('shape/empty', {
  headers: 'title: T\n/items:\n  get:\n    headers:\n',
  'query-parameters': 'title: T\n/items:\n  get:\n    queryParameters:\n',
  body: 'title: T\n/items:\n  post:\n    body:\n',
  'body-empty-mapping': 'title: T\n/items:\n  post:\n    body: {}\n',
  responses: 'title: T\n/items:\n  get:\n    responses:\n',
  'response-headers': 'title: T\n/items:\n  get:\n    responses:\n      200:\n        headers:\n',
  'response-body': 'title: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n',
  'form-parameters': 'title: T\n/items:\n  post:\n    body:\n      multipart/form-data:\n        formParameters:\n',
  'resource-base-uri-parameters': 'title: T\nbaseUri: http://example.com/{a}\n/items:\n  baseUriParameters:\n  get:\n',
  'method-base-uri-parameters': 'title: T\nbaseUri: http://example.com/{a}\n/items:\n  get:\n    baseUriParameters:\n',
  'uri-parameters': 'title: T\n/items:\n  uriParameters:\n  get:\n',
  'root-base-uri-parameters': 'title: T\nbaseUri: http://example.com\nbaseUriParameters:\n/items:\n  get:\n',
  'headers-only-optional-from-trait':
    'title: T\ntraits:\n  - t:\n      headers:\n        h?:\n/items:\n  get:\n    is: [t]\n',
  'in-trait-declaration':
    'title: T\ntraits:\n  - t:\n      headers:\n      queryParameters:\n      responses:\n/items:\n  get:\n',
  'in-resource-type-declaration':
    'title: T\nresourceTypes:\n  - c:\n      uriParameters:\n      get:\n        body:\n/items:\n  type: c\n',
  'response-null': 'title: T\n/items:\n  get:\n    responses:\n      200:\n',
  'method-null': 'title: T\n/items:\n  get:\n',
});

const examples = group('shape/example', {
  'body-null': 'title: T\n/items:\n  post:\n    body:\n      application/json:\n        example:\n',
  'parameter-null': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        example:\n',
  'response-body-null':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n          application/json:\n            example:\n',
  'body-number': 'title: T\n/items:\n  post:\n    body:\n      application/json:\n        example: 15\n',
  'body-text': 'title: T\n/items:\n  post:\n    body:\n      text/plain:\n        example: hello\n',
});

const bareNames = group('shape/bare-name', {
  'trait-empty-parameters': 'title: T\ntraits:\n  - t: {description: x}\n/items:\n  get:\n    is: [t: {}]\n',
  'trait-null-parameters': 'title: T\ntraits:\n  - t: {description: x}\n/items:\n  get:\n    is: [t: ]\n',
  'trait-with-parameters': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t: {p: x}]\n',
  'resource-trait-empty-parameters': 'title: T\ntraits:\n  - t: {description: x}\n/items:\n  is: [t: {}]\n  get:\n',
  'type-empty-parameters': 'title: T\nresourceTypes:\n  - c: {get: }\n/items:\n  type: {c: {}}\n',
  'type-null-parameters': 'title: T\nresourceTypes:\n  - c: {get: }\n/items:\n  type: {c: }\n',
  'type-with-parameters':
    'title: T\nresourceTypes:\n  - c: {description: <<p>>, get: }\n/items:\n  type: {c: {p: x}}\n',
  'type-parent-empty-parameters':
    'title: T\nresourceTypes:\n  - base: {get: }\n  - c: {type: {base: {}}}\n/items:\n  type: c\n',
  'empty-is': 'title: T\n/items:\n  get:\n    is: []\n',
});

const defaultMediaType = group('shape/default-media-type', {
  'null-request-body': 'title: T\nmediaType: application/json\n/items:\n  post:\n    body:\n',
  'null-response-body':
    'title: T\nmediaType: application/json\n/items:\n  get:\n    responses:\n      200:\n        body:\n',
  'empty-mapping-body': 'title: T\nmediaType: application/json\n/items:\n  post:\n    body: {}\n',
  'null-body-from-trait':
    'title: T\nmediaType: application/json\ntraits:\n  - t:\n      body:\n/items:\n  post:\n    is: [t]\n',
  'pivoted-schema': "title: T\nmediaType: application/json\n/items:\n  post:\n    body:\n      schema: '{}'\n",
  'explicit-media-type-kept': 'title: T\nmediaType: application/json\n/items:\n  post:\n    body:\n      text/xml:\n',
  'media-type-without-body': 'title: T\nmediaType: application/json\n/items:\n  get:\n',
});

const protocols = group('shape/protocols', {
  'no-base-uri': 'title: T\n/items:\n  get:\n',
  'http-base-uri': 'title: T\nbaseUri: http://example.com\n/items:\n  get:\n',
  'https-base-uri': 'title: T\nbaseUri: https://example.com\n/items:\n  get:\n',
  'base-uri-without-scheme': 'title: T\nbaseUri: example.com/api\n/items:\n  get:\n',
  'base-uri-parameter-host': 'title: T\nbaseUri: "{host}/api"\n/items:\n  get:\n',
  'root-protocols-given': 'title: T\nbaseUri: http://example.com\nprotocols: [HTTPS]\n/items:\n  get:\n',
  'method-protocols-given': 'title: T\nbaseUri: http://example.com\n/items:\n  get:\n    protocols: [HTTP, HTTPS]\n',
  'nested-resource-method': 'title: T\nbaseUri: https://example.com\n/items:\n  /{id}:\n    get:\n',
  'upper-case-scheme': 'title: T\nbaseUri: HTTPS://example.com\n/items:\n  get:\n',
});

const emptySubstitution = group('shape/empty-substitution', {
  'trait-description': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t: {p: ""}]\n',
  'type-description': 'title: T\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: {c: {p: ""}}\n  get:\n',
  'type-method-description':
    'title: T\nresourceTypes:\n  - c:\n      get:\n        description: <<p>>\n/items:\n  type: {c: {p: ""}}\n',
  'part-of-description': 'title: T\ntraits:\n  - t: {description: "a <<p>>b"}\n/items:\n  get:\n    is: [t: {p: ""}]\n',
  'root-version-null': 'title: T\nversion:\n/items:\n  get:\n',
  'root-base-uri-null': 'title: T\nbaseUri:\n/items:\n  get:\n',
});

const lax = group('lax', {
  'enum-without-value': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        enum:\n',
  'description-in-body':
    'title: T\n/items:\n  post:\n    body:\n      application/json:\n        description: the new item\n',
  'description-in-response-body':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n          application/json:\n            description: the item\n',
  'required-quoted-true': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        required: "true"\n',
  'max-length-quoted-number': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        maxLength: "5"\n',
  'parameter-name-with-space': 'title: T\ntraits:\n  - t: {description: <<a b>>}\n/items:\n  get:\n',
  'schema-with-form-media-type':
    "title: T\n/items:\n  post:\n    body:\n      application/x-www-form-urlencoded:\n        schema: '{}'\n",
  'root-uri-parameters':
    'title: T\nbaseUri: http://example.com/{a}\nuriParameters:\n  a: {description: tenant}\n/items:\n  get:\n',
  'yaml-true-capitalised': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        required: True\n',
  'yaml-true-upper-case': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        required: TRUE\n',
  'yaml-false-upper-case': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        repeat: FALSE\n',
  'multi-key-traits-item':
    'title: T\ntraits:\n  - a: {description: x}\n    b: {description: y}\n/items:\n  get:\n    is: [a, b]\n',
  'multi-key-resource-types-item': 'title: T\nresourceTypes:\n  - a: {get: }\n    b: {post: }\n/items:\n  type: b\n',
});

export const shapeCases: DifferentialCase[] = [
  ...emptyCollections,
  ...examples,
  ...bareNames,
  ...defaultMediaType,
  ...protocols,
  ...emptySubstitution,
  ...lax,
];
