/** Security schemes, securedBy, base URI parameters, URIs and schemas (RAML 0.8 §Security, §Base URI, §Template URIs, §Schemas). */
import { group, type DifferentialCase } from './case.js';

export const securityAndUriCases: DifferentialCase[] = group('security-and-uris', {
  'oauth2-no-settings': 'title: T\nsecuritySchemes:\n  - o: {type: OAuth 2.0}\n/items:\n  get:\n',
  'oauth2-settings-missing-token':
    'title: T\nsecuritySchemes:\n  - o:\n      type: OAuth 2.0\n      settings:\n        authorizationUri: http://a\n/items:\n  get:\n',
  'oauth1-full':
    'title: T\nsecuritySchemes:\n  - o:\n      type: OAuth 1.0\n      settings:\n        requestTokenUri: http://a\n        authorizationUri: http://b\n        tokenCredentialsUri: http://c\nsecuredBy: [o]\n/items:\n  get:\n',
  'secured-by-params':
    'title: T\nsecuritySchemes:\n  - o:\n      type: OAuth 2.0\n      settings: {authorizationUri: http://a, accessTokenUri: http://b, authorizationGrants: [code]}\n/items:\n  get:\n    securedBy: [o: {scopes: [read]}]\n',
  'described-by':
    'title: T\nsecuritySchemes:\n  - k:\n      type: x-key\n      describedBy:\n        headers:\n          X-Key: {required: true}\n        responses:\n          401: {description: no}\nsecuredBy: [k]\n/items:\n  get:\n',
  'described-by-bad-prop':
    'title: T\nsecuritySchemes:\n  - k:\n      type: x-key\n      describedBy:\n        foo: 1\n/items:\n  get:\n',
  'resource-baseuri-override':
    'title: T\nbaseUri: http://{host}.example.com\nbaseUriParameters:\n  host: {enum: [a, b]}\n/items:\n  baseUriParameters:\n    host: {enum: [c]}\n  get:\n    baseUriParameters:\n      host: {enum: [d]}\n',
  'baseuri-params-without-baseuri': 'title: T\n/items:\n  baseUriParameters:\n    host:\n  get:\n',
  'media-type-extension':
    'title: T\n/items{mediaTypeExtension}:\n  uriParameters:\n    mediaTypeExtension: {enum: [.json, .xml]}\n  get:\n',
  'json-schema-invalid':
    'title: T\n/items:\n  post:\n    body:\n      application/json:\n        schema: \'{"type": \'\n',
  'schema-name-unknown-word': 'title: T\n/items:\n  post:\n    body:\n      application/json:\n        schema: item\n',
  'example-integer-mismatch':
    'title: T\n/items:\n  get:\n    queryParameters:\n      q: {type: integer, example: abc}\n',
  'uri-param-not-in-uri': 'title: T\n/items/{id}:\n  uriParameters:\n    other:\n  get:\n',
  'secured-by-on-resource':
    'title: T\nsecuritySchemes:\n  - k: {type: x-key}\n/items:\n  securedBy: [k, null]\n  get:\n  /sub:\n    get:\n',
  'trait-secured-by-unknown': 'title: T\ntraits:\n  - t: {securedBy: [nothing]}\n/items:\n  get:\n',
  'rt-secured-by-unknown-unapplied': 'title: T\nresourceTypes:\n  - c: {securedBy: [nothing]}\n/items:\n  get:\n',
  'version-number': 'title: T\nversion: 1.0\nbaseUri: http://x/{version}\n/items:\n  get:\n',
  'response-code-string': "title: T\n/items:\n  get:\n    responses:\n      '200':\n",
  'body-star': "title: T\n/items:\n  post:\n    body:\n      '*/*':\n",
});
