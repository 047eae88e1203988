/**
 * A schema passed to a resource type as a parameter (`type: { collection: { schema: !include
 * item.json } }`) is the included file, as one written on the resource is: what is said of it points
 * into that file, and two resources' schemas passed through one template are two schemas. A probe's
 * five resources got four warnings that one schema defined two models (SVC2110), every error of
 * their schemas pointed at the template's `schema: <<schema>>`, and a missing file added a warning
 * that the schema was declared nowhere.
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

const API = raml(`title: Claims
resourceTypes:
  - collection:
      get:
      post:
        body:
          application/json:
            schema: <<schema>>
/adjusters:
  type: { collection: { schema: !include schemas/adjuster.json } }
/claims:
  type: { collection: { schema: !include schemas/claim.json } }
`);

const schema = (properties: object) =>
  JSON.stringify({
    type: 'object',
    properties: { id: { _db_settings: { type: 'id_field', primary_key: true } }, ...properties },
  });

function diagnosticsOf(files: Record<string, string>) {
  const dir = writeTree(files);
  return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => ({
    code: d.code,
    file: d.span ? basename(d.span.source.path) : undefined,
  }));
}

describe('a schema passed to a resource type', () => {
  it('is two models of two files, without a warning', () => {
    const files = {
      'api.raml': API,
      'schemas/adjuster.json': schema({ name: { _db_settings: { type: 'string' } } }),
      'schemas/claim.json': schema({ amount: { _db_settings: { type: 'float' } } }),
    };
    expect(diagnosticsOf(files)).toEqual([]);
  });

  it('is where its problems are said', () => {
    const files = {
      'api.raml': API,
      'schemas/adjuster.json': schema({ name: { _db_settings: { type: 'money' } } }),
      'schemas/claim.json': schema({ adjuster: { _db_settings: { type: 'relationship', document: 'Adjusterr' } } }),
    };
    expect(diagnosticsOf(files)).toEqual([
      { code: 'SVC2005', file: 'adjuster.json' },
      { code: 'SVC2050', file: 'claim.json' },
    ]);
  });

  it('that is missing, is said missing once', () => {
    const files = { 'api.raml': API, 'schemas/adjuster.json': schema({}) };
    expect(diagnosticsOf(files)).toEqual([{ code: 'SVC1010', file: 'api.raml' }]);
  });
});
