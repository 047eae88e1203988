// Writes a synthetic API of N resources into a folder: each resource has a schema with most field
// types, a relationship to the previous model, an ACL, event handlers and processors. Used by the
// benchmarks to measure how svcgen scales.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function generateApi(dir, count) {
  mkdirSync(join(dir, 'schemas'), { recursive: true });
  const lines = [
    '#%RAML 0.8',
    `title: Synthetic API with ${count} resources`,
    'version: v1',
    'baseUri: http://{host}:{port}/{version}',
    'mediaType: application/json',
    'securitySchemes:',
    '  - ticket:',
    '      type: x-Ticket',
    '      settings: { secret: auth_tkt_secret, hashalg: sha512, cookie_name: sid }',
    '  - owner_acl:',
    '      type: x-ACL',
    '      settings:',
    '        collection: |',
    '          allow g:admin all',
    '          allow everyone view,options',
    '          allow authenticated create',
    '        item: |',
    '          allow g:admin all',
    '          allow {{item_owner}} view, update, delete',
    'securedBy: [ticket]',
    'traits:',
    '  - paged:',
    '      queryParameters: { _limit: { type: integer }, _page: { type: integer } }',
    'resourceTypes:',
    '  - collection:',
    '      get: { is: [paged] }',
    '      post:',
    '        body: { schema: <<resourcePathName | !singularize>> }',
    'schemas:',
  ];
  for (let i = 0; i < count; i++) lines.push(`  - thing${i}: !include schemas/thing${i}.json`);
  for (let i = 0; i < count; i++) {
    lines.push(
      `/thing${i}s:`,
      '  type: collection',
      '  securedBy: [owner_acl]',
      '  patch:',
      '  /{id}:',
      '    get:',
      '    patch:',
      '    put:',
      '    delete:',
    );
    const properties = {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      name: {
        type: 'string',
        minLength: 1,
        _db_settings: { type: 'string', required: true, max_length: 200 },
        _processors: ['trim'],
      },
      body: { _db_settings: { type: 'text' } },
      count: { _db_settings: { type: 'integer', default: 0, min_value: 0 } },
      price: { _db_settings: { type: 'decimal', scale: 2 } },
      state: { _db_settings: { type: 'choice', choices: ['draft', 'live'], default: 'draft' } },
      tags: { _db_settings: { type: 'list', item_type: 'string' } },
      meta: { _db_settings: { type: 'dict' } },
      created_at: { _db_settings: { type: 'datetime', default: '{{now}}' } },
      ...(i > 0
        ? {
            parent_id: {
              _db_settings: {
                type: 'foreign_key',
                ref_document: `Thing${i - 1}`,
                ref_column: `thing${i - 1}.id`,
                ref_column_type: 'id_field',
              },
            },
          }
        : {}),
      ...(i < count - 1
        ? { children: { _db_settings: { type: 'relationship', document: `Thing${i + 1}`, backref_name: 'parent' } } }
        : {}),
    };
    const schema = {
      type: 'object',
      title: `Thing ${i}`,
      _public_fields: ['id', 'name'],
      _event_handlers: { before_create: ['set_owner'], after_set: ['audit'] },
      properties,
    };
    writeFileSync(join(dir, 'schemas', `thing${i}.json`), `${JSON.stringify(schema, null, 2)}\n`);
  }
  writeFileSync(join(dir, 'api.raml'), `${lines.join('\n')}\n`);
  return join(dir, 'api.raml');
}
