/**
 * One mistake, one diagnostic. An attacker probe's typos each brought a second, derived one: a
 * misspelt field in `_public_fields` was also "shown to anonymous callers and hidden from members",
 * a foreign key to a misspelt model was also "references Teams, not Team" at the relationship that
 * names it, and a resource written twice was also "declared twice", for it and for each resource
 * below it. The first says it all, with its "did you mean".
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

const id = { _db_settings: { type: 'id_field', primary_key: true } };

function codesOf(files: Record<string, string>): string[] {
  const dir = writeTree(files);
  return analyze(join(dir, 'api.raml'), { cwd: dir })
    .diagnostics.filter((d) => d.severity === 'error' || d.code !== 'SVC2095')
    .map((d) => `${d.code} ${d.message}`);
}

const API = raml(`title: League
/teams:
  get:
  post:
    body:
      application/json:
        schema: !include team.json
/matches:
  get:
  post:
    body:
      application/json:
        schema: !include match.json
`);

const team = (extra: object = {}) =>
  JSON.stringify({
    type: 'object',
    ...extra,
    properties: {
      id,
      name: { _db_settings: { type: 'string' } },
      home_matches: {
        _db_settings: {
          type: 'relationship',
          document: 'Match',
          backref_name: 'home_team',
          foreign_keys: 'Match.home_team_id',
        },
      },
    },
  });

const match = (refDocument: string) =>
  JSON.stringify({
    type: 'object',
    properties: {
      id,
      home_team_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: refDocument,
          ref_column: 'team.id',
          ref_column_type: 'id_field',
        },
      },
    },
  });

describe('one mistake, one diagnostic', () => {
  it('a field misspelt in _public_fields is not a field, and nothing more', () => {
    const codes = codesOf({
      'api.raml': API,
      'team.json': team({ _public_fields: ['id', 'nmae'], _auth_fields: ['id'] }),
      'match.json': match('Team'),
    });
    expect(codes).toEqual(['SVC2061 "nmae" in _public_fields is not a field of Team']);
  });

  it('a foreign key to a misspelt model is said at the key, not again at the relationship naming it', () => {
    const codes = codesOf({ 'api.raml': API, 'team.json': team(), 'match.json': match('Teams') });
    expect(codes).toEqual(['SVC2050 foreign key "home_team_id" references unknown model "Teams"']);
  });

  it('a resource written twice is a repeated key, not also a resource declared twice, nor its children', () => {
    const twice = `${API}/teams:\n  get:\n  /{id}:\n    get:\n/teams/{id}/more:\n  get:\n`;
    const codes = codesOf({ 'api.raml': twice, 'team.json': team(), 'match.json': match('Team') });
    expect(codes).toEqual(['SVC1005 duplicate key "/teams"']);
  });

  it('still says "declared twice" of two different keys that make one path', () => {
    const twice = API.replace('/matches:', '/teams/{id}:\n  get:\n/teams/{id}/x:\n  get:\n/matches:').replace(
      '/teams:\n  get:',
      '/teams:\n  get:\n  /{id}:\n    get:',
    );
    const codes = codesOf({ 'api.raml': twice, 'team.json': team(), 'match.json': match('Team') });
    expect(codes.filter((c) => c.startsWith('SVC1111'))).toEqual(['SVC1111 resource /teams/{id} is declared twice']);
  });
});
