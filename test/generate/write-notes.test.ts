/**
 * A body's type says which of its fields only admins send over HTTP (a read-only field, the users'
 * `groups`), in the client and in the models: a new user's `register({ …, groups: ['staff'] })`
 * type-checked and was then a 403.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { raml, writeTree } from '../support/files.js';
import { generateApiProject } from '../support/generated.js';

const READ_ONLY = 'Read-only: over HTTP only admins send it (403 for anyone else); the service sets it otherwise.';

describe('the body types', () => {
  it('note the fields only admins send, in the create and update types alone', async () => {
    const dir = writeTree({
      'api.raml': raml(
        `title: Shelter\n/applications:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include application.json\n`,
      ),
      'application.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          motivation: { type: 'string', _db_settings: { type: 'string', required: true } },
          applicant: { type: 'string', readOnly: true, description: 'who applies', _db_settings: { type: 'string' } },
        },
      }),
    });
    const tree = await generateApiProject(join(dir, 'api.raml'));
    for (const file of ['client/src/index.ts', 'src/models/application.ts']) {
      const source = tree.get(file)!.content;
      const declaration = (name: string) =>
        source.slice(source.indexOf(`export interface ${name} {`)).split('\n}\n')[0]!;
      for (const body of ['ApplicationCreate', 'ApplicationUpdate']) {
        expect(declaration(body), `${file} ${body}`).toContain(`who applies. ${READ_ONLY}`);
        expect(declaration(body).match(/Read-only/g), `${file} ${body}`).toHaveLength(1);
      }
      expect(declaration('Application'), file).not.toContain('Read-only');
    }
  });
});
