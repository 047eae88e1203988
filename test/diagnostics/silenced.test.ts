/**
 * A warning its author has judged is silenced by `# svcgen: ignore <CODE>` on its line: a YAML
 * comment, or one at the end of an x-ACL rule (the rules' own `#` comments). Two new users found
 * SVC2086 printed on every generate and `--check` for a principal that does grant without an
 * object, with no way to say so. Errors are never silenced.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

const OBJECT = JSON.stringify({
  type: 'object',
  properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
});

/** The codes `analyze` reports for the API, its x-ACL's collection rules given, and the objects route's key line. */
function codes(collectionRules: string, routeLine = '/objects:'): string[] {
  const dir = writeTree({
    'api.raml': raml(`title: Museum
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - objects_acl:
      type: x-ACL
      settings:
        collection: |
${collectionRules
  .split('\n')
  .map((line) => `          ${line}`)
  .join('\n')}
        item: |
          allow g:admin all
          allow {{on_display}} view
          deny everyone all
securedBy: [ticket]
${routeLine}
  securedBy: [objects_acl]
  get:
  post:
    body:
      application/json:
        schema: !include object.json
  /{id}:
    get:
/notes:  # svcgen: ignore SVC2070
  get:
  post:
    body:
      application/json:
        schema: !include note.json
`),
    'object.json': OBJECT,
    'note.json': OBJECT,
  });
  return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => d.code);
}

describe('# svcgen: ignore', () => {
  it('silences the warning it names on its line, in an x-ACL rule or as a YAML comment', () => {
    const rule = 'allow {{on_display}} view';
    // /notes has no x-ACL (SVC2070), silenced on its line in every case.
    expect(codes(`allow g:admin all\n${rule}`)).toEqual(['SVC2086']);
    expect(codes(`allow g:admin all\n${rule}  # svcgen: ignore SVC2086`)).toEqual([]);
    expect(codes(`allow g:admin all\n${rule}  # grants when given no object; svcgen: ignore SVC2070, SVC2086`)).toEqual(
      [],
    );
    // Another code on the line silences nothing of this one.
    expect(codes(`allow g:admin all\n${rule}  # svcgen: ignore SVC2093`)).toEqual(['SVC2086']);
  });

  it('never silences an error', () => {
    expect(codes('allow g:admin all\nalow everyone view  # svcgen: ignore SVC2030')).toContain('SVC2030');
  });
});
