/**
 * One mistake, one error: a model whose schema does not parse, is missing, or that a relationship
 * cannot reach poisons what refers to it (routes below it, backrefs, lists naming it, foreign keys
 * to it), and the build says nothing more about those. Otherwise the echo, printed by place, comes
 * before its cause. See src/ir/build/poisoned.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics/diagnostic.js';
import { positionAt } from '../../src/diagnostics/source.js';
import type { ServiceIR } from '../../src/ir/types.js';
import { analyze } from '../../src/pipeline.js';
import { raml, writeTree } from '../support/files.js';

function build(files: Record<string, string>): { ir: ServiceIR; diagnostics: readonly Diagnostic[]; codes: string[] } {
  const dir = writeTree(files);
  const result = analyze(join(dir, 'api.raml'), { cwd: dir });
  return {
    ir: result.ir!,
    diagnostics: result.diagnostics,
    codes: result.diagnostics.map((d) => `${d.code}${d.severity === 'warning' ? 'w' : ''}`),
  };
}

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const key = { _db_settings: { type: 'string', primary_key: true } };
const schema = (properties: object, root: object = {}) =>
  JSON.stringify({ type: 'object', ...root, properties }, null, 2);
const relationship = (document: string, backref: string, extra: object = {}) => ({
  _db_settings: { type: 'relationship', document, backref_name: backref, ...extra },
});
const foreignKey = (document: string, column: string, type: string) => ({
  _db_settings: { type: 'foreign_key', ref_document: document, ref_column: column, ref_column_type: type },
});
const post = (path: string, file: string, extra = '') =>
  `${path}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${file}\n${extra}`;
/** Not valid JSON: a trailing comma. */
const broken =
  '{ "type": "object", "properties": { "id": { "_db_settings": { "type": "id_field", "primary_key": true } }, } }';

describe('follow-on errors', () => {
  it('a schema that does not parse: its relationship, the route below it and the list naming it say nothing', () => {
    const { codes, ir } = build({
      'api.raml': raml(
        `title: T\n${post('/authors', 'author.json', '  /{slug}:\n    get:\n    /biography:\n      get:\n')}${post('/biographies', 'biography.json')}`,
      ),
      'author.json': schema(
        { slug: key, biography: relationship('Biography', 'author', { uselist: false }) },
        { _nested_relationships: ['biography'] },
      ),
      'biography.json': broken,
    });
    expect(codes).toEqual(['SVC2001']);
    expect(ir.routes.map((r) => r.path)).toEqual(['/authors', '/authors/:slug']);
  });

  it('a schema with three trailing commas: all three in one run, each where it is, and nothing else', () => {
    const { diagnostics } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json':
        '{\n  "type": "object",\n  "properties": {\n    "id": { "_db_settings": { "type": "id_field", "primary_key": true, } },\n  },\n}\n',
    });
    expect(diagnostics.map((d) => [d.code, d.span && positionAt(d.span.source, d.span.start).line])).toEqual([
      ['SVC2001', 4],
      ['SVC2001', 4],
      ['SVC2001', 5],
    ]);
    expect(new Set(diagnostics.map((d) => d.message))).toEqual(
      new Set(['the schema is not valid JSON: trailing comma before "}"']),
    );
  });

  it('an unreadable user model: foreign keys to it, and backrefs it would add elsewhere, say nothing', () => {
    const { codes } = build({
      'api.raml': raml(
        `title: T\nsecuritySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\nsecuredBy: [ticket]\n` +
          `${post('/users', 'user.json', '  /{username}:\n    get:\n    /stories:\n      get:\n')}` +
          `${post('/stories', 'story.json', '  /{id}:\n    get:\n    /owner:\n      get:\n')}`,
      ),
      'user.json': broken,
      'story.json': schema(
        { id, owner_id: foreignKey('User', 'user.username', 'string') },
        { _nested_relationships: ['owner'], _public_fields: ['owner'] },
      ),
    });
    // The routes have no x-ACL (SVC2070, a warning of its own); nothing else is said.
    expect(codes.filter((c) => c !== 'SVC2070w')).toEqual(['SVC2001']);
  });

  it('a relationship to an unknown model: routes to it and to its backref, lists and its foreign key say nothing', () => {
    const { codes, diagnostics } = build({
      'api.raml': raml(
        `title: T\n${post('/users', 'user.json', '  /{username}:\n    get:\n    /stories:\n      get:\n')}${post('/stories', 'story.json', '  /{id}:\n    get:\n    /owner:\n      get:\n')}`,
      ),
      'user.json': schema(
        { username: key, stories: relationship('Stroy', 'owner') },
        { _nested_relationships: ['stories'] },
      ),
      'story.json': schema(
        { id, owner_id: foreignKey('User', 'user.username', 'string') },
        { _nested_relationships: ['owner'] },
      ),
    });
    expect(codes).toEqual(['SVC2050']);
    expect(diagnostics[0]!.hint).toBe('did you mean `Story`?');
  });

  it('a collection without a schema: relationships and foreign keys to its model and routes below its items say nothing', () => {
    const { codes, ir } = build({
      'api.raml': raml(
        `title: T\n/authors:\n  get:\n  /{slug}:\n    get:\n    /books:\n      get:\n${post('/books', 'book.json')}${post('/prizes', 'prize.json')}`,
      ),
      'book.json': schema({ id, author_slug: foreignKey('Author', 'author.slug', 'string') }),
      'prize.json': schema({ id, winners: relationship('Author', 'prize') }),
    });
    expect(codes).toEqual(['SVC2018']);
    // Not a second collection of books below an author that does not exist.
    expect(ir.routes.map((r) => r.path)).toEqual(['/books', '/prizes']);
  });

  // A probe's "docks" naming "Dok", where /docks had its schema: the nested route's creates went to a second table.
  it('a misspelt document whose model only the nested route defines, from the schema of the model meant, is an error at the document', () => {
    const nested = `  /{id}:\n    get:\n    /units:\n      get:\n      post:\n        body:\n          application/json:\n            schema: !include unit.json\n`;
    const { diagnostics, codes } = build({
      'api.raml': raml(`title: T\n${post('/buildings', 'building.json', nested)}${post('/units', 'unit.json')}`),
      'building.json': schema({ id, units: relationship('Unti', 'building') }),
      'unit.json': schema({ id, building_id: foreignKey('Building', 'building.id', 'id_field') }),
    });
    const misnamed = diagnostics.filter((d) => d.code === 'SVC2050');
    expect(misnamed.map((d) => [d.severity, d.message, d.hint])).toEqual([
      [
        'error',
        'Building.units names "Unti" as its document, a model no collection defines: only its nested route does, from unit.json, the schema of Unit, so its objects would be stored apart from Unit\'s',
        'did you mean "document": "Unit"?',
      ],
    ]);
    const span = misnamed[0]!.span!;
    expect(span.source.text.slice(span.start, span.end)).toBe('"Unti"');
    // Named right, it is one model, and no error.
    const right = build({
      'api.raml': raml(`title: T\n${post('/buildings', 'building.json', nested)}${post('/units', 'unit.json')}`),
      'building.json': schema({ id, units: relationship('Unit', 'building') }),
      'unit.json': schema({ id, building_id: foreignKey('Building', 'building.id', 'id_field') }),
    });
    expect(right.codes.filter((c) => c.startsWith('SVC2050') || c.startsWith('SVC2110'))).toEqual([]);
    expect(codes).toContain('SVC2050');
  });

  it('a misspelt document on a relationship with a nested route is reported at the document, with the model meant', () => {
    const nested = `  /{id}:\n    get:\n    /units:\n      get:\n      post:\n        body:\n          application/json:\n            schema: !include unit.json\n`;
    const { diagnostics } = build({
      'api.raml': raml(`title: T\n${post('/buildings', 'building.json', nested)}/units:\n  get:\n  /{id}:\n    get:\n`),
      'building.json': schema({ id, units: relationship('Unti', 'building') }),
      'unit.json': schema({ id, building_id: foreignKey('Building', 'building.id', 'id_field') }),
    });
    const missing = diagnostics.filter((d) => d.code === 'SVC2018');
    expect(missing.map((d) => [d.message, d.hint])).toEqual([
      [
        'no schema defines model Unit for /units: Building.units names "Unti" as its document, so the schema of its nested route defines a model Unti',
        'did you mean "document": "Unit"?',
      ],
    ]);
    // At the document's value in the schema, where the mistake is.
    const span = missing[0]!.span!;
    expect(span.source.path.endsWith('building.json')).toBe(true);
    expect(span.source.text.slice(span.start, span.end)).toBe('"Unti"');
  });

  it('a misspelt ref_document: the backref its relationship would add, named in "required", says nothing', () => {
    const { codes } = build({
      'api.raml': raml(`title: T\n${post('/appointments', 'appointment.json')}${post('/records', 'record.json')}`),
      'appointment.json': schema({ id, records: relationship('Record', 'appointment') }),
      'record.json': schema(
        { id, appointment_id: foreignKey('Apointment', 'appointment.id', 'id_field') },
        { required: ['appointment'] },
      ),
    });
    expect(codes).toEqual(['SVC2050']);
  });

  it('a schema without properties: routes below its items and relationships to it say nothing', () => {
    const { codes } = build({
      'api.raml': raml(
        `title: T\n${post('/tags', 'tag.json', '  /{id}:\n    get:\n    /items:\n      get:\n')}${post('/items', 'item.json')}`,
      ),
      'tag.json': JSON.stringify({ type: 'object' }),
      'item.json': schema({ id, tag: relationship('Tag', 'items', { uselist: false }) }),
    });
    expect(codes).toEqual(['SVC2002']);
  });

  it('an x-ACL used only by a resource that an error left without a route is not "unused"', () => {
    const { codes } = build({
      'api.raml': raml(
        `title: T\nsecuritySchemes:\n  - acl:\n      type: x-ACL\n      settings:\n        collection: allow everyone view\n/authors:\n  securedBy: [acl]\n  get:\n`,
      ),
    });
    expect(codes).toEqual(['SVC2018']);
  });

  it('still reports an unknown nested resource, and its hint lists only what is served', () => {
    const { codes, diagnostics } = build({
      'api.raml': raml(`title: T\n${post('/authors', 'author.json', '  /{slug}:\n    get:\n    /bio:\n      get:\n')}`),
      'author.json': schema({
        slug: key,
        biography: relationship('Biography', 'author', { uselist: false }),
        tags: { _db_settings: { type: 'list', item_type: 'string' } },
      }),
    });
    expect(codes).toEqual(['SVC2020', 'SVC2050']);
    const unknownNested = diagnostics.find((d) => d.code === 'SVC2020')!;
    expect(unknownNested.message).toContain('"bio" is not a relationship');
    // `biography` is declared but does not resolve, so it is not served: the hint does not offer it.
    expect(unknownNested.hint).toBe('below an item, svcgen serves these fields of Author: tags');
  });

  it('still reports a name that is not a relationship when every schema was read', () => {
    const { codes } = build({
      'api.raml': raml(
        `title: T\n${post('/authors', 'author.json', '  /{slug}:\n    get:\n    /books:\n      get:\n')}`,
      ),
      'author.json': schema({ slug: key }, { _nested_relationships: ['books'] }),
    });
    expect(codes).toEqual(['SVC2020', 'SVC2061']);
  });

  it('still reports a name no schema declares while another schema is missing, unless a foreign key here points at it', () => {
    const { diagnostics } = build({
      'api.raml': raml(
        `title: T\n${post('/courses', 'course.json', '  /{id}:\n    get:\n    /reviews:\n      get:\n')}` +
          `/certificates:\n  get:\n  post:\n`,
      ),
      'course.json': schema({ id }),
    });
    expect(diagnostics.map((d) => [d.code, d.hint])).toEqual([
      [
        'SVC2020',
        'Course has no relationship, dict or list field to serve here (unless the schema of Certificate, not read yet, adds it as a backref)',
      ],
      ['SVC2018', expect.stringContaining('give /certificates a post body schema')],
    ]);
  });
});
