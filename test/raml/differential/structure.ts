/** The shape of the document (RAML 0.8 §Root Section, §Resources, §Methods, §Responses, §Security): values of the wrong kind, missing values, repeats. */
import { group, type DifferentialCase } from './case.js';

const M = '/items:\n  get:\n';

const requiredValues = group('required-value', {
  'title-null': `title:\n${M}`,
  'title-missing': M,
  'title-list': `title: [a]\n${M}`,
  'title-number': `title: 12\n${M}`,
  'media-type-null': `title: T\nmediaType:\n${M}`,
  'media-type-invalid': `title: T\nmediaType: json\n${M}`,
  'version-null': `title: T\nversion:\n${M}`,
  'base-uri-null': `title: T\nbaseUri:\n${M}`,
  'base-uri-version-without-version': `title: T\nbaseUri: http://example.com/{version}\n${M}`,
  'base-uri-version-with-version': `title: T\nversion: v1\nbaseUri: http://example.com/{version}\n${M}`,
  'documentation-title-null': `title: T\ndocumentation:\n  - title:\n    content: x\n${M}`,
  'documentation-content-null': `title: T\ndocumentation:\n  - title: x\n    content:\n${M}`,
  'documentation-content-missing': `title: T\ndocumentation:\n  - title: x\n${M}`,
  'documentation-empty-list': `title: T\ndocumentation: []\n${M}`,
  'documentation-scalar': `title: T\ndocumentation: read me\n${M}`,
  'documentation-fine': `title: T\ndocumentation:\n  - title: Intro\n    content: Hello\n${M}`,
  'scheme-type-null': `title: T\nsecuritySchemes:\n  - s:\n      type:\n${M}`,
  'scheme-type-missing': `title: T\nsecuritySchemes:\n  - s:\n      description: x\n${M}`,
  'scheme-type-unknown': `title: T\nsecuritySchemes:\n  - s:\n      type: Token\n${M}`,
  'scheme-type-custom': `title: T\nsecuritySchemes:\n  - s:\n      type: x-token\n${M}`,
  'trait-parameter-null': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t: {p: }]\n',
  'trait-parameter-empty-text':
    'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t: {p: ""}]\n',
  'resource-type-parameter-null':
    'title: T\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: {c: {p: }}\n  get:\n',
  'trait-parameter-missing': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t]\n',
  'trait-parameter-unused': 'title: T\ntraits:\n  - t: {description: x}\n/items:\n  get:\n    is: [t: {p: 1}]\n',
  'trait-parameter-reserved':
    'title: T\ntraits:\n  - t: {description: <<methodName>>}\n/items:\n  get:\n    is: [t: {methodName: x}]\n',
});

const wrongKinds = group('wrong-kind', {
  'is-scalar': 'title: T\ntraits:\n  - t:\n/items:\n  get:\n    is: t\n',
  'is-mapping': 'title: T\ntraits:\n  - t:\n/items:\n  get:\n    is: {t: }\n',
  'is-null-item': 'title: T\ntraits:\n  - t:\n/items:\n  get:\n    is: [~]\n',
  'is-empty-list': `title: T\n/items:\n  get:\n    is: []\n`,
  'is-unknown-trait': `title: T\n/items:\n  get:\n    is: [nothing]\n`,
  'is-parameters-as-list': 'title: T\ntraits:\n  - t: {description: <<p>>}\n/items:\n  get:\n    is: [t: [p]]\n',
  'type-empty-mapping': 'title: T\nresourceTypes:\n  - c:\n/items:\n  type: {}\n  get:\n',
  'type-list': 'title: T\nresourceTypes:\n  - c:\n/items:\n  type: [c]\n  get:\n',
  'type-unknown': 'title: T\n/items:\n  type: nothing\n  get:\n',
  'type-parameters-as-list':
    'title: T\nresourceTypes:\n  - c: {description: <<p>>}\n/items:\n  type: {c: [p]}\n  get:\n',
  'security-schemes-scalar': `title: T\nsecuritySchemes: basic\n${M}`,
  'security-schemes-mapping': `title: T\nsecuritySchemes:\n  basic: {type: Basic Authentication}\n${M}`,
  'traits-scalar': `title: T\ntraits: paged\n${M}`,
  'traits-mapping': `title: T\ntraits:\n  paged: {description: x}\n${M}`,
  'resource-types-scalar': `title: T\nresourceTypes: collection\n${M}`,
  'schemas-mapping': `title: T\nschemas:\n  s: '{}'\n${M}`,
  'schemas-value-list': `title: T\nschemas:\n  - s: [a]\n${M}`,
  'responses-list': 'title: T\n/items:\n  get:\n    responses: [200]\n',
  'body-list': 'title: T\n/items:\n  post:\n    body: [application/json]\n',
  'headers-list': 'title: T\n/items:\n  get:\n    headers: [a]\n',
  'resource-scalar': 'title: T\n/items: all of them\n',
  'method-scalar': 'title: T\n/items:\n  get: list\n',
  'response-scalar': 'title: T\n/items:\n  get:\n    responses:\n      200: fine\n',
  'response-code-short': 'title: T\n/items:\n  get:\n    responses:\n      99:\n',
  'response-code-word': 'title: T\n/items:\n  get:\n    responses:\n      ok:\n',
  'response-code-four-digits': 'title: T\n/items:\n  get:\n    responses:\n      2000:\n',
  'media-type-key-invalid': 'title: T\n/items:\n  post:\n    body:\n      json:\n        example: x\n',
  'protocols-scalar': `title: T\nprotocols: HTTP\n${M}`,
  'protocols-empty': `title: T\nprotocols: []\n${M}`,
  'protocols-lower-case': `title: T\nprotocols: [http]\n${M}`,
  'protocols-unknown': `title: T\nprotocols: [FTP]\n${M}`,
  'secured-by-scalar': `title: T\nsecuritySchemes:\n  - s: {type: x-s}\nsecuredBy: s\n${M}`,
  'secured-by-unknown': `title: T\nsecuredBy: [nothing]\n${M}`,
  'secured-by-null-item': `title: T\nsecuredBy: [null]\n${M}`,
  'document-list': '- a\n- b\n',
  'base-uri-unbalanced': `title: T\nbaseUri: http://example.com/{a\n${M}`,
  'base-uri-ftp': `title: T\nbaseUri: ftp://example.com\n${M}`,
  'relative-uri-unbalanced': 'title: T\n/items/{id:\n  get:\n',
  'relative-uri-empty-parameter': 'title: T\n/items/{}:\n  get:\n',
});

const forms = group('forms', {
  'beside-schema':
    "title: T\n/items:\n  post:\n    body:\n      application/x-www-form-urlencoded:\n        schema: '{}'\n        formParameters:\n          a:\n",
  'beside-example':
    'title: T\n/items:\n  post:\n    body:\n      application/x-www-form-urlencoded:\n        formParameters:\n          a:\n        example: a=1\n',
  'in-response':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n          application/json:\n            formParameters:\n              a:\n',
  fine: 'title: T\n/items:\n  post:\n    body:\n      multipart/form-data:\n        formParameters:\n          a: {description: x}\n',
  'form-media-type-in-response':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n          application/x-www-form-urlencoded:\n',
  'beside-schema-in-trait':
    "title: T\ntraits:\n  - t:\n      body:\n        multipart/form-data:\n          schema: '{}'\n          formParameters: {a: }\n/items:\n  post:\n",
});

const repeats = group('repeats', {
  'two-schemes-one-name': `title: T\nsecuritySchemes:\n  - s: {type: x-a}\n  - s: {type: x-b}\n${M}`,
  'two-traits-one-name': `title: T\ntraits:\n  - t: {description: a}\n  - t: {description: b}\n${M}`,
  'two-resource-types-one-name': `title: T\nresourceTypes:\n  - c: {description: a}\n  - c: {description: b}\n${M}`,
  'two-schemas-one-name': `title: T\nschemas:\n  - s: '{}'\n  - s: '{}'\n${M}`,
  'same-resource-twice-nested': 'title: T\n/a:\n  /b:\n    get:\n/a/b:\n  get:\n',
  'repeated-method': 'title: T\n/items:\n  get:\n  get:\n',
  'repeated-method-with-value': 'title: T\n/items:\n  get:\n    description: a\n  get:\n    description: b\n',
  'repeated-parameter': 'title: T\n/items:\n  get:\n    queryParameters:\n      a:\n      a:\n',
  'repeated-root-key': 'title: T\ntitle: U\n/items:\n  get:\n',
  'repeated-response-code': 'title: T\n/items:\n  get:\n    responses:\n      200:\n      200:\n',
});

const misplaced = group('misplaced', {
  'usage-on-resource': 'title: T\n/items:\n  usage: x\n  get:\n',
  'usage-in-method': 'title: T\n/items:\n  get:\n    usage: x\n',
  'usage-in-resource-type-method': 'title: T\nresourceTypes:\n  - c:\n      get:\n        usage: x\n/items:\n  get:\n',
  'usage-in-resource-type': 'title: T\nresourceTypes:\n  - c:\n      usage: x\n/items:\n  type: c\n',
  'usage-in-trait': 'title: T\ntraits:\n  - t:\n      usage: x\n/items:\n  get:\n    is: [t]\n',
  'type-in-method': 'title: T\nresourceTypes:\n  - c:\n/items:\n  get:\n    type: c\n',
  'type-in-trait': 'title: T\nresourceTypes:\n  - c:\ntraits:\n  - t:\n      type: c\n/items:\n  get:\n',
  'is-in-trait': 'title: T\ntraits:\n  - t:\n      is: [u]\n  - u:\n/items:\n  get:\n',
  'optional-is-in-trait': 'title: T\ntraits:\n  - t:\n      is?: [u]\n  - u:\n/items:\n  get:\n',
  'is-in-trait-applied': 'title: T\ntraits:\n  - t:\n      is: [u]\n  - u:\n/items:\n  get:\n    is: [t]\n',
  'is-in-body': 'title: T\ntraits:\n  - t:\n/items:\n  post:\n    body:\n      application/json:\n        is: [t]\n',
  'title-on-resource': 'title: T\n/items:\n  title: x\n  get:\n',
  'title-in-method': 'title: T\n/items:\n  get:\n    title: x\n',
  'version-on-resource': 'title: T\n/items:\n  version: v1\n  get:\n',
  'base-uri-on-resource': 'title: T\n/items:\n  baseUri: http://x\n  get:\n',
  'media-type-on-resource': 'title: T\n/items:\n  mediaType: application/json\n  get:\n',
  'media-type-in-method': 'title: T\n/items:\n  get:\n    mediaType: application/json\n',
  'schemas-on-resource': "title: T\n/items:\n  schemas:\n    - s: '{}'\n  get:\n",
  'traits-on-resource': 'title: T\n/items:\n  traits:\n    - t:\n  get:\n',
  'resource-types-in-method': 'title: T\n/items:\n  get:\n    resourceTypes:\n      - c:\n',
  'security-schemes-on-resource': 'title: T\n/items:\n  securitySchemes:\n    - s: {type: x-s}\n  get:\n',
  'documentation-on-resource': 'title: T\n/items:\n  documentation:\n    - {title: a, content: b}\n  get:\n',
  'uri-parameters-in-method': 'title: T\n/items/{id}:\n  get:\n    uriParameters:\n      id:\n',
  'protocols-on-resource': 'title: T\n/items:\n  protocols: [HTTP]\n  get:\n',
  'responses-on-resource': 'title: T\n/items:\n  responses:\n    200:\n  get:\n',
  'body-on-resource': 'title: T\n/items:\n  body:\n    application/json:\n  get:\n',
  'query-parameters-on-resource': 'title: T\n/items:\n  queryParameters:\n    q:\n  get:\n',
  'headers-on-resource': 'title: T\n/items:\n  headers:\n    h:\n  get:\n',
  'display-name-in-method': 'title: T\n/items:\n  get:\n    displayName: List\n',
  'description-at-root': `title: T\ndescription: x\n${M}`,
  'query-parameters-in-response':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        queryParameters:\n          q:\n',
  'schema-in-response': "title: T\n/items:\n  get:\n    responses:\n      200:\n        schema: '{}'\n",
  'example-in-method': 'title: T\n/items:\n  get:\n    example: x\n',
  'headers-in-body': 'title: T\n/items:\n  post:\n    body:\n      application/json:\n        headers:\n          h:\n',
  'method-in-method': 'title: T\n/items:\n  get:\n    post:\n',
  'method-upper-case': 'title: T\n/items:\n  GET:\n',
  'unknown-method': 'title: T\n/items:\n  fetch:\n',
  'nested-resource-in-resource-type':
    'title: T\nresourceTypes:\n  - c:\n      /sub:\n        get:\n/items:\n  type: c\n',
  'nested-resource-in-trait': 'title: T\ntraits:\n  - t:\n      /sub:\n        get:\n/items:\n  get:\n',
  'method-in-trait': 'title: T\ntraits:\n  - t:\n      get:\n/items:\n  get:\n',
  'displayname-in-scheme': `title: T\nsecuritySchemes:\n  - s:\n      type: x-s\n      displayName: S\n${M}`,
  'method-in-described-by': `title: T\nsecuritySchemes:\n  - s:\n      type: x-s\n      describedBy:\n        get:\n${M}`,
  'settings-in-described-by': `title: T\nsecuritySchemes:\n  - s:\n      type: x-s\n      describedBy:\n        settings: {a: 1}\n${M}`,
});

export const structureCases: DifferentialCase[] = [
  ...requiredValues,
  ...wrongKinds,
  ...forms,
  ...repeats,
  ...misplaced,
];
