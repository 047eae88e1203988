/**
 * A body's type says which of its fields only admins send over HTTP (a read-only field, the users'
 * `groups`) or change (a write-once field), in the client and in the models: a new user's `register({ …, groups: ['staff'] })`
 * type-checked and was then a 403.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { raml, writeTree } from '../support/files.js';
import { generateApiProject } from '../support/generated.js';

const READ_ONLY = 'Read-only: over HTTP only admins send it (403 for anyone else); the service sets it otherwise.';
const WRITE_ONCE =
  'Write-once: sent when the object is created; over HTTP only admins change it afterwards (403 for anyone else).';

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
          pet: {
            type: 'string',
            _write_once: true,
            description: 'the pet asked for',
            _db_settings: { type: 'string' },
          },
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
        expect(declaration(body), `${file} ${body}`).toContain(`the pet asked for. ${WRITE_ONCE}`);
      }
      expect(declaration('Application'), file).not.toMatch(/Read-only|Write-once/);
    }
    // The OpenAPI document says it in the body (a POST's, a PUT's), with the mark svcgen diff reads; the README's table too.
    const schemas = JSON.parse(tree.get('openapi.json')!.content).components.schemas;
    expect(schemas.ApplicationCreate.properties.pet).toMatchObject({
      'x-svcgen-write-once': true,
      description: expect.stringContaining('Write-once: set when the object is created'),
    });
    expect(tree.get('README.md')!.content).toContain(
      'write-once: set when created, then changed by the service (or an admin)',
    );
  });
});
