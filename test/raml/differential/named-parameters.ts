/** Named parameters (RAML 0.8 §Named Parameters): facets per type, file parameters, enum, values, multiple types. */
import { group, type DifferentialCase } from './case.js';

const TYPES = ['(none)', 'string', 'number', 'integer', 'date', 'boolean'] as const;
const FACETS: Readonly<Record<string, string>> = {
  enum: 'enum: [a, b]',
  pattern: 'pattern: ^a+$',
  minLength: 'minLength: 1',
  maxLength: 'maxLength: 5',
  minimum: 'minimum: 1',
  maximum: 'maximum: 9',
};

function queryParameter(definition: string): string {
  return `title: T\n/items:\n  get:\n    queryParameters:\n      q: {${definition}}\n`;
}

/** Every facet on every type, as a query parameter: allowed only on the types it belongs to. */
function facetsByType(): DifferentialCase[] {
  const out: DifferentialCase[] = [];
  for (const type of TYPES) {
    for (const [facet, text] of Object.entries(FACETS)) {
      const typed = type === '(none)' ? text : `type: ${type}, ${text}`;
      out.push({ name: `facets/${facet}-on-${type}`, raml: queryParameter(typed) });
    }
  }
  return out;
}

/** Facets on a form parameter of type file, and facets in a trait nobody applies. */
function facetsElsewhere(): DifferentialCase[] {
  const out: DifferentialCase[] = [];
  for (const [facet, text] of Object.entries(FACETS)) {
    out.push({
      name: `facets/${facet}-on-file`,
      raml: `title: T\n/items:\n  post:\n    body:\n      multipart/form-data:\n        formParameters:\n          f: {type: file, ${text}}\n`,
    });
  }
  for (const [type, facet] of [
    ['integer', 'pattern'],
    ['boolean', 'enum'],
    ['date', 'minimum'],
    ['string', 'maximum'],
    ['number', 'maxLength'],
    ['string', 'pattern'],
  ] as const) {
    out.push({
      name: `facets/${facet}-on-${type}-in-unapplied-trait`,
      raml: `title: T\ntraits:\n  - t:\n      queryParameters:\n        q: {type: ${type}, ${FACETS[facet]}}\n/items:\n  get:\n`,
    });
    out.push({
      name: `facets/${facet}-on-${type}-in-unapplied-resource-type`,
      raml: `title: T\nresourceTypes:\n  - c:\n      get:\n        headers:\n          h: {type: ${type}, ${FACETS[facet]}}\n/items:\n  get:\n`,
    });
  }
  return out;
}

const fileParameters = group('file', {
  'in-query': 'title: T\n/items:\n  get:\n    queryParameters:\n      f: {type: file}\n',
  'in-headers': 'title: T\n/items:\n  get:\n    headers:\n      f: {type: file}\n',
  'in-uri-parameters': 'title: T\n/items/{id}:\n  uriParameters:\n    id: {type: file}\n  get:\n',
  'in-base-uri-parameters':
    'title: T\nbaseUri: http://example.com/{tenant}\nbaseUriParameters:\n  tenant: {type: file}\n/items:\n  get:\n',
  'in-response-headers':
    'title: T\n/items:\n  get:\n    responses:\n      200:\n        headers:\n          f: {type: file}\n',
  'in-multipart-form':
    'title: T\n/items:\n  post:\n    body:\n      multipart/form-data:\n        formParameters:\n          f: {type: file, required: true}\n',
  'in-urlencoded-form':
    'title: T\n/items:\n  post:\n    body:\n      application/x-www-form-urlencoded:\n        formParameters:\n          f: {type: file}\n',
  'one-of-several-types-in-form':
    'title: T\n/items:\n  post:\n    body:\n      multipart/form-data:\n        formParameters:\n          f: [{type: file}, {type: string}]\n',
  'one-of-several-types-in-query':
    'title: T\n/items:\n  get:\n    queryParameters:\n      f: [{type: string}, {type: file}]\n',
  'in-unapplied-trait-query':
    'title: T\ntraits:\n  - t:\n      queryParameters:\n        f: {type: file}\n/items:\n  get:\n',
  'in-trait-form':
    'title: T\ntraits:\n  - t:\n      body:\n        multipart/form-data:\n          formParameters:\n            f: {type: file}\n/items:\n  post:\n    is: [t]\n',
});

const enums = group('enum', {
  'empty-list': queryParameter('enum: []'),
  'repeated-value': queryParameter('enum: [a, b, a]'),
  'repeated-number-and-text': "title: T\n/items:\n  get:\n    queryParameters:\n      q: {enum: [1, '1']}\n",
  'distinct-values': queryParameter('enum: [a, b, c]'),
  numbers: queryParameter('enum: [1, 2, 3]'),
  'no-value': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n        enum:\n',
  scalar: queryParameter('enum: a'),
  mapping: queryParameter('enum: {a: 1}'),
  'in-unapplied-trait-repeated':
    'title: T\ntraits:\n  - t:\n      queryParameters:\n        q: {enum: [x, x]}\n/items:\n  get:\n',
  'in-unapplied-trait-empty': 'title: T\ntraits:\n  - t:\n      headers:\n        h: {enum: []}\n/items:\n  get:\n',
  'repeated-in-form':
    'title: T\n/items:\n  post:\n    body:\n      application/x-www-form-urlencoded:\n        formParameters:\n          a: {enum: [x, y, y]}\n',
});

const values = group('values', {
  'required-yes': queryParameter('required: yes'),
  'required-true': queryParameter('required: true'),
  'required-false': queryParameter('required: false'),
  'required-one': queryParameter('required: 1'),
  'required-quoted-true': queryParameter('required: "true"'),
  'repeat-no': queryParameter('repeat: no'),
  'repeat-true': queryParameter('repeat: true'),
  'min-length-text': queryParameter('minLength: one'),
  'max-length-quoted': queryParameter('maxLength: "5"'),
  'minimum-text': queryParameter('type: number, minimum: low'),
  'maximum-float': queryParameter('type: number, maximum: 9.5'),
  'unknown-type': queryParameter('type: text'),
  'capitalised-type': queryParameter('type: String'),
  'integer-default-text': queryParameter('type: integer, default: many'),
  'integer-default-number': queryParameter('type: integer, default: 3'),
  'number-default-text': queryParameter('type: number, default: x'),
  'boolean-default-text': queryParameter('type: boolean, default: maybe'),
  'boolean-default-true': queryParameter('type: boolean, default: true'),
  'string-default-number': queryParameter('default: 3'),
  'string-example-number': queryParameter('example: 3'),
  'display-name-and-description': queryParameter('displayName: Query, description: what to look for'),
  'unknown-attribute': queryParameter('format: int32'),
  'pattern-invalid-regexp': queryParameter('pattern: "[a-"'),
  'empty-definition': 'title: T\n/items:\n  get:\n    queryParameters:\n      q:\n',
  'scalar-definition': 'title: T\n/items:\n  get:\n    queryParameters:\n      q: text\n',
  'list-of-scalars-definition': 'title: T\n/items:\n  get:\n    queryParameters:\n      q: [a]\n',
  'parameters-as-list': 'title: T\n/items:\n  get:\n    queryParameters:\n      - q\n',
  'parameters-as-scalar': 'title: T\n/items:\n  get:\n    queryParameters: q\n',
  'header-wildcard': 'title: T\n/items:\n  get:\n    headers:\n      X-Meta-{*}:\n        description: any metadata\n',
});

const multipleTypes = group('multiple-types', {
  'empty-list': 'title: T\n/items:\n  get:\n    queryParameters:\n      since: []\n',
  'two-types': 'title: T\n/items:\n  get:\n    queryParameters:\n      since: [{type: date}, {type: integer}]\n',
  'scalar-item': 'title: T\n/items:\n  get:\n    queryParameters:\n      since: [{type: date}, integer]\n',
  'facet-on-wrong-type':
    'title: T\n/items:\n  get:\n    queryParameters:\n      since: [{type: date, pattern: x}, {type: string, pattern: x}]\n',
  'empty-list-in-unapplied-trait':
    'title: T\ntraits:\n  - t:\n      queryParameters:\n        since: []\n/items:\n  get:\n',
});

export const namedParameterCases: DifferentialCase[] = [
  ...facetsByType(),
  ...facetsElsewhere(),
  ...fileParameters,
  ...enums,
  ...values,
  ...multipleTypes,
];
