/**
 * A principal's stub imports the types of the models whose x-ACLs name it. A model named as a type
 * the language gives (`/records` is `Record`, `/sets` is `Set`) is imported under another name,
 * so that the user's module keeps `Record<K, V>` and `Set`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { principalStubView } from '../../src/plan/auth/views.js';
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
    const view = principalStubView(
      ir,
      ir.userCode.principals.find((p) => p.name === 'owner')!,
    );
    expect(view.imports).toEqual(
      expect.arrayContaining([
        { name: 'Record', alias: 'RecordModel', file: 'record' },
        { name: 'Note', alias: null, file: 'note' },
      ]),
    );
    expect(view.objectType).toBe('Note | RecordModel');
  });
});
