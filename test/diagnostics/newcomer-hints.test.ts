/**
 * The hints a new user's first mistakes get (a probe wrote an API from the README alone): each
 * says what to write instead, not only what is wrong.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

const ITEM = JSON.stringify({
  type: 'object',
  properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
});

function said(api: string, files: Record<string, string> = {}): [string, string, string | undefined][] {
  const dir = writeTree({ 'api.raml': raml(api), 'item.json': ITEM, ...files });
  return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.message, d.hint]);
}

const post = '  post:\n    body:\n      application/json:\n        schema: !include item.json\n';

describe('a newcomer is told what to write', () => {
  it('a scheme type written without its capitals', () => {
    const found = said(
      `title: T\nsecuritySchemes:\n  - ticket:\n      type: x-ticket\nsecuredBy: [ticket]\n/items:\n${post}`,
    );
    expect(found.find(([code]) => code === 'SVC2024')?.[2]).toBe(
      'did you mean x-Ticket? Scheme types are written with their capitals',
    );
  });

  it('permissions separated by spaces', () => {
    const acl = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n  - items_acl:\n      type: x-ACL\n      settings:\n        collection: |\n          allow g:admin all\n        item: |\n          allow authenticated update delete\nsecuredBy: [ticket]\n`;
    const found = said(`title: T\n${acl}/items:\n  securedBy: [items_acl]\n${post}  /{id}:\n    get:\n`);
    expect(found.find(([code]) => code === 'SVC2031')?.[2]).toBe('separate permissions with commas: update, delete');
  });

  it('a handler named where a list of them is wanted', () => {
    const item = JSON.stringify({
      type: 'object',
      _event_handlers: { before_create: 'set_owner' },
      properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
    });
    const found = said(`title: T\n/items:\n${post}`, { 'item.json': item });
    expect(found.find(([code]) => code === 'SVC2006')?.[2]).toBe('write it as a list: "before_create": ["set_owner"]');
  });

  it('a method, or a resource, a level too far right', () => {
    // A new user's `post:` under `get:` was told only what a method allows.
    const method = said(`title: T\n/items:\n  get:\n    post:\n      body:\n        application/json:\n`);
    expect(method.find(([code]) => code === 'SVC1102')?.[2]).toBe(
      'indented too far? "post" is a method of a resource: write it at the column of the resource\'s other methods',
    );
    const resource = said(`title: T\n/items:\n  get:\n    /{id}:\n      get:\n`);
    expect(resource.find(([code]) => code === 'SVC1102')?.[2]).toMatch(/^indented too far\? "\/\{id\}" is a resource/);
  });

  it('a body, or a schema, a level too far left', () => {
    const atResource = said(
      `title: T\n/items:\n  post:\n  body:\n    application/json:\n      schema: !include item.json\n`,
    );
    expect(atResource.find(([code]) => code === 'SVC1102')?.[1]).toBe(
      '"body" cannot appear in resource /items: a body is a method\'s (or a response\'s): indent it under post:, put: or patch:',
    );
    const beside = said(
      `title: T\n/items:\n  post:\n    body:\n      application/json:\n      schema: !include item.json\n`,
    );
    expect(beside.find(([code]) => code === 'SVC1109')?.[2]).toBe(
      'indent `schema:` under `application/json:`, whose body it describes (beside a media type it is read as another)',
    );
  });
});
