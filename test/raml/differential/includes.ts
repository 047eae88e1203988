/** Templates and values from included files (RAML 0.8 §Includes): checked where they are written, in the file they are written in. */
import type { DifferentialCase } from './case.js';

export const includeCases: DifferentialCase[] = [
  { name: 'includes/title-missing-file', raml: 'title: !include missing.md\n/items:\n  get:\n' },
  {
    name: 'includes/title-from-file',
    raml: 'title: !include title.md\n/items:\n  get:\n',
    files: { 'title.md': 'Included title' },
  },
  {
    name: 'includes/traits-list',
    raml: 'title: T\ntraits: !include traits.raml\n/items:\n  get:\n    is: [paged]\n',
    files: { 'traits.raml': '- paged:\n    queryParameters:\n      page: {type: integer}\n' },
  },
  {
    name: 'includes/trait-body',
    raml: 'title: T\ntraits:\n  - paged: !include paged.raml\n/items:\n  get:\n    is: [paged]\n',
    files: { 'paged.raml': 'queryParameters:\n  page: {type: integer, minimum: 1}\n' },
  },
  {
    name: 'includes/optional-scalar-in-included-trait',
    raml: 'title: T\ntraits:\n  - paged: !include paged.raml\n/items:\n  get:\n',
    files: { 'paged.raml': 'description?: paged\n' },
  },
  {
    name: 'includes/unknown-function-in-included-type',
    raml: 'title: T\nresourceTypes:\n  - c: !include c.raml\n/items:\n  get:\n',
    files: { 'c.raml': 'description: <<resourcePathName | !upper>>\n' },
  },
  {
    name: 'includes/resource-type-applied',
    raml: 'title: T\nresourceTypes:\n  - collection: !include collection.raml\n/users:\n  type: collection\n',
    files: { 'collection.raml': 'get:\n  description: all <<resourcePathName>>\npost?:\n  description: one\n' },
  },
  {
    name: 'includes/facet-in-included-parameters',
    raml: 'title: T\n/items:\n  get:\n    queryParameters: !include query.raml\n',
    files: { 'query.raml': 'page: {type: integer, pattern: x}\n' },
  },
  {
    name: 'includes/schema-from-file',
    raml: 'title: T\nschemas:\n  - item: !include item.json\n/items:\n  post:\n    body:\n      application/json:\n        schema: item\n',
    files: { 'item.json': '{"type": "object"}' },
  },
  {
    name: 'includes/documentation-content',
    raml: 'title: T\ndocumentation:\n  - title: Intro\n    content: !include intro.md\n/items:\n  get:\n',
    files: { 'intro.md': '# Hello' },
  },
];
