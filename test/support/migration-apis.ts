/**
 * Small APIs for migration tests, given as resource → schema properties (`_renamed_from` and
 * `_unique_together` at the root of a schema), read by the front end as `svcgen generate` reads
 * them, and their storage models: what a migration is planned between (plan/migrations/storage/).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/pipeline.js';
import { renamesOf } from '../../src/plan/migrations/plan.js';
import { diffStorage } from '../../src/plan/migrations/storage/diff.js';
import { storageModel } from '../../src/plan/migrations/storage/model.js';
import { FieldTypes } from '../../src/plan/shared/field-types.js';

export type Schema = Record<string, unknown>;
export type Api = Record<string, Schema>;

export const pk = { type: 'integer', _db_settings: { type: 'id_field', primary_key: true } };
export const text = (settings: Schema = {}) => ({
  type: ['string', 'null'],
  _db_settings: { type: 'string', ...settings },
});

/** The storage model of an API given as resource → schema properties. */
export function storageOf(api: Api) {
  const dir = mkdtempSync(join(tmpdir(), 'svcgen-migration-api-'));
  mkdirSync(join(dir, 'schemas'));
  const raml = [
    '#%RAML 0.8',
    '---',
    'title: Cases',
    'baseUri: http://{host}/{version}',
    'version: v1',
    'mediaType: application/json',
    '',
  ];
  for (const [resource, properties] of Object.entries(api)) {
    const title = resource.replace(/s$/, '').replace(/^./, (c) => c.toUpperCase());
    const roots = ['_renamed_from', '_unique_together'];
    const extra = Object.fromEntries(Object.entries(properties).filter(([k]) => roots.includes(k)));
    const props = Object.fromEntries(Object.entries(properties).filter(([k]) => !roots.includes(k)));
    writeFileSync(
      join(dir, 'schemas', `${resource}.json`),
      JSON.stringify({ type: 'object', title, ...extra, properties: props }),
    );
    raml.push(
      `/${resource}:`,
      '    get:',
      '    post:',
      '        body:',
      '            application/json:',
      `                schema: !include schemas/${resource}.json`,
    );
  }
  writeFileSync(join(dir, 'api.raml'), raml.join('\n'));
  const analysis = analyze(join(dir, 'api.raml'));
  const errors = analysis.diagnostics.filter((d) => d.severity === 'error');
  if (!analysis.ir || errors.length) throw new Error(errors.map((d) => d.message).join('\n'));
  return { storage: storageModel(analysis.ir, new FieldTypes(analysis.ir)), ir: analysis.ir };
}

/** The changes of storage from `first` to `second`, with the renames `second` declares. */
export function storageChanges(first: Api, second: Api) {
  const a = storageOf(first);
  const b = storageOf(second);
  return { before: a.storage, after: b.storage, diff: diffStorage(a.storage, b.storage, renamesOf(b.ir)) };
}
