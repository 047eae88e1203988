/**
 * A principal's object is typed in the generated `src/principals.ts` by the models whose x-ACLs
 * name it, and its stub takes that type. A model named as a type the language gives (`/records` is
 * `Record`, `/sets` is `Set`) is imported under another name, so that `Record<K, V>` and `Set`
 * keep their meaning.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { principalStubView, principalTypesView } from '../../src/plan/auth/views.js';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

const schema = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    owner: { _db_settings: { type: 'string' } },
  },
});

const resource = (name: string) =>
  `/${name}:\n  securedBy: [acl]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n  /{id}:\n    get:\n`;

describe("a principal's stub", () => {
  it('imports a model named as a built-in type under another name, and types its object by it', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - acl:
      type: x-ACL
      settings:
        collection: allow everyone view
        item: |
          allow {{owner}} all
          deny everyone all
securedBy: [ticket]
${resource('records')}${resource('notes')}`),
      'item.json': schema,
    });
    const ir = analyze(join(dir, 'api.raml'), { cwd: dir }).ir!;
    const types = principalTypesView(ir);
    expect(types.imports).toEqual([
      { name: 'Note', alias: null, file: 'note' },
      { name: 'Record', alias: 'RecordModel', file: 'record' },
    ]);
    expect(types.principals).toEqual([
      {
        placeholder: '{{owner}}',
        typeName: 'OwnerObject',
        objectType: 'Note | RecordModel',
        mapName: 'OwnerModels',
        models: [
          { name: 'Note', type: 'Note' },
          { name: 'Record', type: 'RecordModel' },
        ],
      },
    ]);
    // The stub takes the generated type: a model whose x-ACL comes to name the principal widens it.
    const view = principalStubView(
      ir,
      ir.userCode.principals.find((p) => p.name === 'owner')!,
    );
    expect(view.objectType).toBe('OwnerObject');
  });
});
