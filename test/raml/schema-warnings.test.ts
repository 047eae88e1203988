/**
 * SVC1115 is the RAML stage's: `readRaml` checks every declared and body schema that looks like
 * JSON before anything is built, and hands the warnings on with their schemas. Only the IR knows
 * which schemas are models'; there a broken schema is an error (SVC2001), said once.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { brief, readFiles } from '../support/front-end.js';

const broken = '{\n  "type": "object"\n  "properties": {}\n}\n';
const api = (responseSchema: string, postSchema: string) =>
  `#%RAML 0.8\ntitle: T\n/items:\n  get:\n    responses:\n      200:\n        body:\n          application/json:\n            schema: !include ${responseSchema}\n  post:\n    body:\n      application/json:\n        schema: !include ${postSchema}\n`;
const item = JSON.stringify({
  type: 'object',
  properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
});

describe('body schemas that do not parse', () => {
  it('are warned about by the RAML stage, before the model is built', () => {
    const front = readFiles({ 'api.raml': api('list.json', 'item.json'), 'list.json': broken, 'item.json': item });
    expect(brief(front.diagnostics)).toEqual([]);
    expect(
      brief(
        front.schemaWarnings.map((w) => w.diagnostic),
        front.dir,
      ),
    ).toEqual(['SVC1115 list.json:3:3']);
    expect(front.schemaWarnings[0]!.diagnostic.message).toBe(
      'the schema is not valid JSON: expected "," or "}" after a property value',
    );
  });

  it('are reported once: a warning for documentation, an error for a model schema', () => {
    const documentation = readFiles({
      'api.raml': api('list.json', 'item.json'),
      'list.json': broken,
      'item.json': item,
    });
    const analysed = analyze(join(documentation.dir, 'api.raml'), { cwd: documentation.dir });
    expect(brief(analysed.diagnostics, documentation.dir)).toEqual(['SVC1115 list.json:3:3']);

    const model = readFiles({ 'api.raml': api('item.json', 'list.json'), 'list.json': broken, 'item.json': item });
    expect(
      brief(
        model.schemaWarnings.map((w) => w.diagnostic),
        model.dir,
      ),
    ).toEqual(['SVC1115 list.json:3:3']);
    const built = analyze(join(model.dir, 'api.raml'), { cwd: model.dir });
    expect(brief(built.diagnostics, model.dir)).toEqual(['SVC2001 list.json:3:3']);
  });
});
