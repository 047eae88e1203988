/**
 * The client's answer types say which fields are always there: those every caller is shown (no
 * privacy list hides them from anyone) are required, the others optional; without auth every
 * caller is an admin, and every field is there. Links kept in the other model's rows stay optional. The end-to-end tests check the service keeps to it
 * (support/conformance.ts requires those fields in every answer read without `_fields`).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { raml, writeTree } from '../support/files.js';
import { generateApiProject } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

/** The members of `name`'s interface in the client, one per line (`email?: string;`). */
async function answerType(api: string, name: string): Promise<string[]> {
  const source = (await generateApiProject(api)).get('client/src/index.ts')!.content;
  const declaration = source.slice(source.indexOf(`export interface ${name} {`)).split('\n}\n')[0]!;
  return declaration
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => /^\w+\??:/.test(line));
}

describe('the answer types of the client', () => {
  it('make optional the fields a privacy list hides from some callers, and only those', async () => {
    // library's User: `_auth_fields` [username, books, notes], password hidden.
    expect(await answerType(fixtureRaml('library'), 'User')).toEqual([
      'username: string;',
      'email?: string;',
      'groups?: string[];',
      // Links kept in the other model's rows: an object embedded at the last level leaves them out.
      'books?: number[];',
      'notes?: number[];',
      "_type: 'User';",
      '_pk: string;',
      '_self: string;',
    ]);
  });

  it('require every field without auth (every caller is an admin)', async () => {
    const dir = writeTree({
      'api.raml': raml(
        'title: Shelter\n/pets:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include pet.json\n',
      ),
      'pet.json': JSON.stringify({
        type: 'object',
        _public_fields: ['name'],
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          name: { type: 'string', _db_settings: { type: 'string', required: true } },
          notes: { type: ['string', 'null'], _db_settings: { type: 'text' } },
        },
      }),
    });
    expect(await answerType(join(dir, 'api.raml'), 'Pet')).toEqual([
      'id: number;',
      'name: string;',
      'notes: string | null;',
      "_type: 'Pet';",
      '_pk: string;',
      '_self: string;',
    ]);
  });
});
