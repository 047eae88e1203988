/**
 * The table of API changes: each a small edit of the base API (api-source.ts), or of its
 * OpenAPI document for what a RAML cannot say (a page size, an answer's required fields), with
 * the kinds of change the classifier must find and whether the whole is breaking.
 */
import type { ChangeKind } from '../../src/apidiff/change.js';
import { edited, type ApiSource } from './api-source.js';

// oxlint-disable-next-line typescript/no-explicit-any -- documents edited by path: a member that is not there fails the case where it is read
type Doc = Record<string, any>;

export interface ApiCase {
  readonly name: string;
  readonly breaking: boolean;
  /** Kinds the classifier must report (it may report more, as long as `breaking` holds). */
  readonly kinds: readonly ChangeKind[];
  /** Edits the RAML sources… */
  readonly api?: (api: ApiSource) => void;
  /** …or the generated OpenAPI document (cases a RAML cannot express: checked through `diff` only). */
  readonly doc?: (doc: Doc) => void;
  /** `doc` edits the earlier document rather than the later one. */
  readonly reverse?: boolean;
}

const field = (api: ApiSource, name: string) => api.item.properties[name]!;
const db = (api: ApiSource, name: string) => field(api, name)['_db_settings'] as Record<string, unknown>;
const NEW_MODEL = {
  type: 'object',
  title: 'Tag',
  $schema: 'http://json-schema.org/draft-04/schema',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    label: { type: 'string', _db_settings: { type: 'string' } },
  },
};

export const CASES: readonly ApiCase[] = [
  // --- breaking --------------------------------------------------------------------------------
  {
    name: 'every route moves to another base path',
    breaking: true,
    kinds: ['base-path-changed'],
    api: (a) => void (a.raml = edited(a.raml, 'version: v1\n', 'baseUri: http://{host}/api/{version}\nversion: v1\n')),
  },
  {
    name: 'a route is removed',
    breaking: true,
    kinds: ['route-removed'],
    api: (a) => void (a.raml = edited(a.raml, '    /parts:\n      get:\n', '')),
  },
  {
    name: 'a method is removed',
    breaking: true,
    kinds: ['method-removed'],
    api: (a) => void (a.raml = edited(a.raml, '    patch:\n    delete:\n', '    patch:\n')),
  },
  {
    name: 'a response field is removed',
    breaking: true,
    kinds: ['response-field-removed', 'request-field-removed', 'query-parameter-removed'],
    api: (a) => void delete a.item.properties['note'],
  },
  {
    name: 'a response field is made nullable',
    breaking: true,
    kinds: ['response-field-nullable'],
    api: (a) => {
      a.item.required = [];
      delete db(a, 'name')['required'];
    },
  },
  {
    name: 'a field type is changed',
    breaking: true,
    kinds: ['type-changed'],
    api: (a) => {
      field(a, 'price')['type'] = ['string', 'null'];
      db(a, 'price')['type'] = 'string';
    },
  },
  {
    name: 'a field type is narrowed (float to integer)',
    breaking: true,
    kinds: ['type-narrowed'],
    api: (a) => {
      field(a, 'weight')['type'] = ['integer', 'null'];
      db(a, 'weight')['type'] = 'integer';
    },
  },
  {
    name: 'a field type is widened in answers (integer to float)',
    breaking: true,
    kinds: ['type-changed', 'type-widened'],
    api: (a) => {
      field(a, 'price')['type'] = ['number', 'null'];
      db(a, 'price')['type'] = 'float';
    },
  },
  {
    name: 'a field format changes (datetime to date)',
    breaking: true,
    kinds: ['format-changed'],
    api: (a) => void (db(a, 'created')['type'] = 'date'),
  },
  {
    name: 'an enum value is removed',
    breaking: true,
    kinds: ['enum-value-removed'],
    api: (a) => void (db(a, 'kind')['choices'] = ['a', 'b']),
  },
  {
    name: 'a field is made required (with a default: it no longer takes null)',
    breaking: true,
    kinds: ['type-narrowed', 'response-narrowed'],
    api: (a) => {
      a.item.required.push('code');
      Object.assign(db(a, 'code'), { required: true, default: 'x' });
    },
  },
  {
    name: 'a request field is made required',
    breaking: true,
    kinds: ['request-field-required'],
    doc: (d) => void d['components'].schemas.ItemCreate.required.push('code'),
  },
  {
    name: 'a request field is made read-only',
    breaking: true,
    kinds: ['request-field-read-only'],
    api: (a) => void (field(a, 'note')['readOnly'] = true),
  },
  {
    name: 'a request field is made write-once',
    breaking: true,
    kinds: ['request-field-write-once'],
    api: (a) => void (field(a, 'note')['_write_once'] = true),
  },
  {
    name: 'a required request field is added',
    breaking: true,
    kinds: ['request-field-added-required'],
    doc: (d) => {
      d['components'].schemas.ItemCreate.properties.sku = { type: 'string' };
      d['components'].schemas.ItemCreate.required.push('sku');
    },
  },
  {
    name: 'a string limit is tightened',
    breaking: true,
    kinds: ['constraint-tightened'],
    api: (a) => void (db(a, 'name')['max_length'] = 50),
  },
  {
    name: 'query operators are removed (string to integer)',
    breaking: true,
    kinds: ['query-operator-removed', 'type-changed'],
    api: (a) => {
      field(a, 'code')['type'] = ['integer', 'null'];
      db(a, 'code')['type'] = 'integer';
      delete db(a, 'code')['max_length'];
    },
  },
  {
    name: 'a route is guarded more strictly by its ACL',
    breaking: true,
    kinds: ['access-narrowed'],
    api: (a) =>
      void (a.raml = edited(
        a.raml,
        '          allow everyone view\n          allow authenticated create',
        '          allow authenticated view\n          allow authenticated create',
      )),
  },
  {
    name: 'a route loses its x-ACL (admins only)',
    breaking: true,
    kinds: ['access-narrowed'],
    api: (a) => void (a.raml = edited(a.raml, '/items:\n  securedBy: [shop_acl]\n', '/items:\n')),
  },
  {
    name: 'a path parameter is renamed',
    breaking: true,
    kinds: ['path-parameter-renamed'],
    api: (a) => void (a.raml = edited(a.raml, '  /{id}:', '  /{item_id}:')),
  },
  {
    name: 'a field is renamed with renamed_from',
    breaking: true,
    kinds: ['response-field-renamed', 'request-field-renamed'],
    api: (a) => {
      a.item.properties['remark'] = { type: ['string', 'null'], _db_settings: { type: 'text', renamed_from: 'note' } };
      delete a.item.properties['note'];
    },
  },
  {
    // A new user's diff said the rename and not that clients must now send the field.
    name: 'a field is renamed with renamed_from and made required',
    breaking: true,
    kinds: ['response-field-renamed', 'request-field-renamed', 'request-field-required'],
    api: (a) => {
      a.item.properties['remark'] = {
        type: 'string',
        _db_settings: { type: 'text', renamed_from: 'note', required: true },
      };
      a.item.required.push('remark');
      delete a.item.properties['note'];
    },
  },
  {
    name: 'the whole collection is removed',
    breaking: true,
    kinds: ['route-removed'],
    api: (a) => void (a.raml = a.raml.slice(0, a.raml.indexOf('/items:'))),
  },
  {
    name: 'the default page size is lowered',
    breaking: true,
    kinds: ['page-size-lowered'],
    doc: (d) => void (d['components'].parameters._limit.schema.default = 10),
  },
  {
    name: 'the largest page size is lowered',
    breaking: true,
    kinds: ['page-size-lowered'],
    doc: (d) => void (d['components'].parameters._limit.schema.maximum = 50),
  },
  {
    name: 'a response field is made optional',
    breaking: true,
    kinds: ['response-field-optional'],
    doc: (d) => void (d['components'].schemas.Item.required = ['_type', '_pk']),
  },
  {
    name: 'a success status changes',
    breaking: true,
    kinds: ['response-changed'],
    doc: (d) => {
      const post = d['paths']['/items'].post;
      post.responses['200'] = post.responses['201'];
      delete post.responses['201'];
    },
  },
  {
    name: 'a response field is hidden from anonymous callers (_public_fields)',
    breaking: true,
    kinds: ['response-field-hidden'],
    api: (a) => void (a.item['_public_fields'] = ['id', 'name', 'price', 'kind', 'weight', 'code', 'created', 'parts']),
  },
  {
    name: 'a request body becomes required',
    breaking: true,
    kinds: ['request-body-required'],
    doc: (d) => void (d['paths']['/items/{id}'].patch.requestBody.required = false),
    reverse: true,
  },
  {
    name: 'a query parameter is made required',
    breaking: true,
    kinds: ['parameter-required'],
    doc: (d) =>
      void d['paths']['/items'].get.parameters.push({
        name: 'region',
        in: 'query',
        required: true,
        schema: { type: 'string' },
      }),
  },
  // --- compatible ------------------------------------------------------------------------------
  {
    name: 'a route is added',
    breaking: false,
    kinds: ['route-added'],
    api: (a) => {
      a.extra['tag.json'] = NEW_MODEL;
      a.raml += '/tags:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include tag.json\n';
    },
  },
  {
    name: 'a method is added',
    breaking: false,
    kinds: ['method-added'],
    api: (a) => void (a.raml = edited(a.raml, '    patch:\n    delete:\n', '    patch:\n    put:\n    delete:\n')),
  },
  {
    name: 'an optional field is added',
    breaking: false,
    kinds: ['response-field-added', 'request-field-added', 'query-parameter-added'],
    api: (a) => void (a.item.properties['color'] = { type: 'string', _db_settings: { type: 'string' } }),
  },
  {
    name: 'an enum value is added',
    breaking: false,
    kinds: ['enum-value-added'],
    api: (a) => void (db(a, 'kind')['choices'] = ['a', 'b', 'c', 'd']),
  },
  {
    name: 'a field that is required but has a default is added',
    breaking: false,
    kinds: ['response-field-added', 'request-field-added'],
    api: (a) => {
      a.item.required.push('sku');
      a.item.properties['sku'] = { type: 'string', _db_settings: { type: 'string', required: true, default: 'none' } };
    },
  },
  {
    name: 'a string limit is relaxed',
    breaking: false,
    kinds: ['constraint-relaxed'],
    api: (a) => void (db(a, 'name')['max_length'] = 200),
  },
  {
    name: 'a route is opened to more callers',
    breaking: false,
    kinds: ['access-widened'],
    api: (a) => void (a.raml = edited(a.raml, 'allow authenticated create', 'allow everyone create')),
  },
  {
    name: 'a required request field becomes optional (with a default)',
    breaking: false,
    kinds: ['request-field-optional'],
    doc: (d) => void (d['components'].schemas.ItemCreate.required = []),
  },
  {
    name: 'a response field is shown to more callers',
    breaking: false,
    kinds: ['response-field-shown'],
    doc: (d) => void (d['components'].schemas.Item.properties.note['x-svcgen-visible-to'] = ['member', 'admin']),
    reverse: true,
  },
  {
    name: 'a read-only request field becomes writable',
    breaking: false,
    kinds: ['request-field-writable'],
    doc: (d) => void (d['components'].schemas.ItemCreate.properties.note['x-svcgen-read-only'] = true),
    reverse: true,
  },
  {
    name: 'a query operator is added',
    breaking: false,
    kinds: ['query-operator-added'],
    doc: (d) =>
      void d['paths']['/items'].get.parameters.push({
        name: 'name__endswith',
        in: 'query',
        schema: { type: 'string' },
      }),
  },
  {
    name: 'the largest page size is raised',
    breaking: false,
    kinds: ['page-size-raised'],
    doc: (d) => void (d['components'].parameters._limit.schema.maximum = 50),
    reverse: true,
  },
  {
    name: 'an answer never holds null any more',
    breaking: false,
    kinds: ['response-narrowed'],
    doc: (d) => void (d['components'].schemas.Item.properties.note.type = 'string'),
  },
  {
    name: 'a request field accepts more types',
    breaking: false,
    kinds: ['type-widened'],
    doc: (d) => void (d['components'].schemas.ItemUpdate.properties.price.type = ['number', 'null']),
  },
];
