/**
 * A small API with auth, an x-ACL, a nested route and every kind of field a change can touch,
 * written into a temporary folder as api.raml + item.json; each test case edits a copy.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ApiSource {
  raml: string;
  item: { required: string[]; properties: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  /** Extra schema files (name → JSON), for cases that add a model. */
  extra: Record<string, unknown>;
}

export function baseApi(): ApiSource {
  return {
    raml: `#%RAML 0.8
---
title: Shop
version: v1
mediaType: application/json
securitySchemes:
  - token_auth:
      type: x-ApiKey
  - shop_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow everyone view
          allow authenticated create
        item: |
          allow g:admin all
          allow everyone view
          allow authenticated update
securedBy: [token_auth]
/items:
  securedBy: [shop_acl]
  get:
  post:
    body:
      application/json:
        schema: !include item.json
  /{id}:
    get:
    patch:
    delete:
    /parts:
      get:
`,
    item: {
      type: 'object',
      title: 'Item',
      $schema: 'http://json-schema.org/draft-04/schema',
      required: ['name'],
      properties: {
        id: { _db_settings: { type: 'id_field', primary_key: true } },
        name: { type: 'string', _db_settings: { type: 'string', required: true, max_length: 100 } },
        price: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
        kind: { type: 'string', _db_settings: { type: 'choice', choices: ['a', 'b', 'c'] } },
        note: { type: ['string', 'null'], _db_settings: { type: 'text' } },
        weight: { type: ['number', 'null'], _db_settings: { type: 'float' } },
        code: { type: 'string', _db_settings: { type: 'string', max_length: 20 } },
        created: { type: ['string', 'null'], _db_settings: { type: 'datetime' } },
        parts: { _db_settings: { type: 'list', item_type: 'string', default: [] } },
      },
    },
    extra: {},
  };
}

/** Writes the API into `dir` (a new temporary folder when not given); returns the folder. */
export function writeApi(api: ApiSource, dir = mkdtempSync(join(tmpdir(), 'svcgen-api-'))): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'api.raml'), api.raml);
  writeFileSync(join(dir, 'item.json'), JSON.stringify(api.item, null, 2));
  for (const [name, schema] of Object.entries(api.extra))
    writeFileSync(join(dir, name), JSON.stringify(schema, null, 2));
  return dir;
}

/** The RAML with `from` replaced by `to`; throws when `from` is not there (a case that changes nothing proves nothing). */
export function edited(raml: string, from: string, to: string): string {
  if (!raml.includes(from)) throw new Error(`the API has no ${JSON.stringify(from)}`);
  return raml.replace(from, to);
}
