/** The classifier as the pure function it is: two documents in, sorted changes out. */
import { describe, expect, it } from 'vitest';
import { classifyChanges } from '../../src/apidiff/classify.js';

type Doc = Record<string, unknown>;
// oxlint-disable-next-line typescript/no-explicit-any -- documents edited by path: a member that is not there fails the test where it is read
type Loose = any;

/** A document with one collection: GET answers `Thing`, POST takes `ThingCreate`. */
function doc(edit: (d: Loose) => void = () => {}): Doc {
  const d: Loose = {
    openapi: '3.1.0',
    paths: {
      '/things': {
        get: {
          parameters: [
            { $ref: '#/components/parameters/_limit' },
            { name: 'size', in: 'query', schema: { type: 'integer' } },
          ],
          responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
        post: {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } },
          },
          responses: { '201': { $ref: '#/components/responses/Created' } },
          security: [{}, { key: [] }],
        },
      },
    },
    components: {
      parameters: { _limit: { name: '_limit', in: 'query', schema: { type: 'integer', maximum: 100 } } },
      responses: { Created: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
      schemas: {
        Thing: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'integer' },
            size: { type: 'integer' },
            part: { $ref: '#/components/schemas/Part' },
          },
        },
        Part: { type: 'object', properties: { label: { type: 'string' } } },
        ThingCreate: { type: 'object', properties: { size: { type: 'integer' }, tone: { enum: ['a', 'b'] } } },
      },
      securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Authorization' } },
    },
  };
  edit(d);
  return d;
}

const kinds = (before: Doc, after: Doc) =>
  classifyChanges(before, after).map((c) => `${c.breaking ? 'B' : 'c'} ${c.kind}`);

describe('classifyChanges', () => {
  it('finds nothing between equal documents', () => {
    expect(classifyChanges(doc(), doc())).toEqual([]);
  });

  it('tells of every route moved to another base path, which the paths below it do not show', () => {
    const at = (url: string) => (d: Loose) => void (d.servers = [{ url }]);
    expect(kinds(doc(at('/api/v0')), doc(at('/api/v1')))).toEqual(['B base-path-changed']);
    const [moved] = classifyChanges(doc(at('/api/v1')), doc(at('')));
    expect([moved?.operations, moved?.message]).toEqual([[], '/api/v1 → /: every route moved']);
    expect(kinds(doc(at('/api/v1')), doc(at('/api/v1')))).toEqual([]);
    // A document without servers says nothing of it.
    expect(kinds(doc(), doc(at('/api/v1')))).toEqual([]);
  });

  it('follows $refs into components, through responses and nested schemas, and says each once', () => {
    const changes = classifyChanges(
      doc(),
      doc((d) => delete d.components.schemas.Part.properties.label),
    );
    expect(changes).toEqual([
      expect.objectContaining({
        kind: 'response-field-removed',
        schema: 'Part',
        path: 'label',
        operations: ['GET /things', 'POST /things'],
      }),
    ]);
  });

  it('tells of a field hidden from callers who saw it, where both documents say who sees each field', () => {
    const audiences = (d: Loose) => void (d['x-svcgen-field-audiences'] = ['anonymous', 'member', 'admin']);
    const hidden = (d: Loose) => {
      audiences(d);
      d.components.schemas.Thing.properties.size['x-svcgen-visible-to'] = ['member', 'admin'];
    };
    expect(kinds(doc(audiences), doc(hidden))).toEqual(['B response-field-hidden']);
    expect(kinds(doc(hidden), doc(audiences))).toEqual(['c response-field-shown']);
    // A document of an older svcgen says nothing of it: a field without the mark there is not one every caller saw.
    expect(kinds(doc(), doc(hidden))).toEqual([]);
    // A group (`_group_fields`) is among the members: shown to all of them is shown to more, and the other way round.
    const grouped = (d: Loose) => {
      audiences(d);
      d.components.schemas.Thing.properties.size['x-svcgen-visible-to'] = ['g:registrar', 'admin'];
    };
    expect(kinds(doc(hidden), doc(grouped))).toEqual(['B response-field-hidden']);
    expect(kinds(doc(grouped), doc(hidden))).toEqual(['c response-field-shown']);
    expect(kinds(doc(grouped), doc(audiences))).toEqual(['c response-field-shown']);
  });

  it('compares a body that names a component with one written out by their fields, not their names', () => {
    // A nested create's body, written out without the link its URL gives (was ThingCreate with it required).
    const required = (d: Loose) => void (d.components.schemas.ThingCreate.required = ['size']);
    const inline = (d: Loose) => {
      required(d); // the component stays as it was, for the routes that still name it
      const { required: _, ...rest } = d.components.schemas.ThingCreate;
      d.paths['/things'].post.requestBody.content['application/json'].schema = rest;
    };
    expect(kinds(doc(required), doc(inline))).toEqual(['c request-field-optional']);
    expect(kinds(doc(inline), doc(required))).toEqual(['B request-field-required']);
  });

  it('judges a schema by how clients use it: what they send may only accept more', () => {
    expect(
      kinds(
        doc(),
        doc((d) => (d.components.schemas.ThingCreate.properties.tone.enum = ['a'])),
      ),
    ).toEqual(['B enum-value-removed']);
    expect(
      kinds(
        doc(),
        doc((d) => (d.components.schemas.ThingCreate.properties.size.type = 'number')),
      ),
    ).toEqual(['c type-widened']);
    expect(
      kinds(
        doc(),
        doc((d) => (d.components.schemas.Thing.properties.size.type = 'number')),
      ),
    ).toEqual(['B type-changed']);
    expect(
      kinds(
        doc(),
        doc((d) => (d.components.schemas.Thing.properties.size.type = ['integer', 'null'])),
      ),
    ).toEqual(['B response-field-nullable']);
  });

  it('says a changed pattern breaks clients, and that it cannot tell a wider one from a narrower one', () => {
    const patterned = (pattern: string) =>
      doc((d) => (d.components.schemas.ThingCreate.properties.tone.pattern = pattern));
    const [changed] = classifyChanges(patterned('^[a-z]+$'), patterned('^[a-z_]+$'));
    expect(changed).toMatchObject({ kind: 'constraint-tightened', breaking: true });
    expect(changed!.hint).toMatch(/cannot tell whether the new pattern takes every value the old one did/);
    const [added] = classifyChanges(doc(), patterned('^[a-z]+$'));
    expect(added!.hint).toBeUndefined();
  });

  it("says the same change of a field's filter operators once, naming them", () => {
    const bounded = (maximum: number) =>
      doc((d) => {
        d.paths['/things'].get.parameters = [
          { name: 'size', in: 'query', schema: { type: 'integer', maximum } },
          { name: 'size__gt', in: 'query', schema: { type: 'integer', maximum } },
          { name: 'size__lte', in: 'query', schema: { type: 'integer', maximum } },
          { name: 'tone', in: 'query', schema: { type: 'integer', maximum } },
        ];
      });
    const changes = classifyChanges(bounded(2147483647), bounded(32767)).map((c) => [c.path, c.message]);
    expect(changes).toEqual([
      ['query size', 'maximum 2147483647 → 32767 (size, size__gt, size__lte)'],
      ['query tone', 'maximum 2147483647 → 32767'],
    ]);
  });

  it('reads maximum and exclusiveMaximum as one bound: an integer made a decimal takes more, not less', () => {
    const ranged = (range: Record<string, number>) =>
      doc((d) => {
        d.components.schemas.ThingCreate.properties.budget = { type: 'number', ...range };
      });
    const change = (from: Record<string, number>, to: Record<string, number>) =>
      classifyChanges(ranged(from), ranged(to)).map((c) => [c.kind, c.message]);
    expect(change({ maximum: 2147483647 }, { exclusiveMaximum: 9999999999.995 })).toEqual([
      ['constraint-relaxed', 'maximum 2147483647 → exclusiveMaximum 9999999999.995'],
    ]);
    expect(change({ exclusiveMaximum: 9999999999.995 }, { maximum: 2147483647 })).toEqual([
      ['constraint-tightened', 'exclusiveMaximum 9999999999.995 → maximum 2147483647'],
    ]);
    // The same number, no longer taken itself.
    expect(change({ maximum: 10 }, { exclusiveMaximum: 10 })).toEqual([
      ['constraint-tightened', 'maximum 10 → exclusiveMaximum 10'],
    ]);
    expect(change({ minimum: 0 }, { exclusiveMinimum: -1 })).toEqual([
      ['constraint-relaxed', 'minimum 0 → exclusiveMinimum -1'],
    ]);
    // Both given: the tighter decides.
    expect(change({ maximum: 5, exclusiveMaximum: 100 }, { maximum: 50 })).toEqual([
      ['constraint-relaxed', 'maximum 5 → 50'],
    ]);
  });

  it('says it once for filter parameters shared as components too', () => {
    const shared = (maximum: number) =>
      doc((d) => {
        const names = ['size', 'size__gt', 'size__in'];
        d.paths['/things'].get.parameters = names.map((name) => ({ $ref: `#/components/parameters/${name}` }));
        for (const name of names)
          d.components.parameters[name] = { name, in: 'query', schema: { type: 'integer', maximum } };
      });
    const changes = classifyChanges(shared(2147483647), shared(32767)).map((c) => [c.path, c.message]);
    expect(changes).toEqual([['query size', 'maximum 2147483647 → 32767 (size, size__gt, size__in)']]);
  });

  it('puts breaking changes first', () => {
    const after = doc((d) => {
      d.components.schemas.Thing.properties.extra = { type: 'string' };
      d.components.schemas.Thing.required = [];
    });
    expect(kinds(doc(), after)).toEqual(['B response-field-optional', 'c response-field-added']);
  });

  it('sees credentials newly required, and the x-svcgen-access callers', () => {
    expect(
      kinds(
        doc(),
        doc((d) => (d.paths['/things'].post.security = [{ key: [] }])),
      ),
    ).toEqual(['B access-narrowed']);
    const access = (callers: string[]) => doc((d) => (d.paths['/things'].post['x-svcgen-access'] = callers));
    const narrowed = classifyChanges(access(['anonymous', 'member', 'admin']), access(['member', 'admin']));
    expect(narrowed).toEqual([expect.objectContaining({ kind: 'access-narrowed', operations: ['POST /things'] })]);
    expect(narrowed[0]!.message).toBe('is refused now to: anonymous callers (allowed: members, admins)');
    expect(kinds(access(['admin']), access(['member', 'admin']))).toEqual(['c access-widened']);
    // In words: `owner` alone read to a new user as a field of the model.
    expect(classifyChanges(access(['admin']), access(['owner', 'admin']))[0]!.message).toBe(
      'is open now to: members a {{principal}} lets in (owners)',
    );
  });

  it('compares query parameters and the page size', () => {
    expect(
      kinds(
        doc(),
        doc((d) => d.paths['/things'].get.parameters.pop()),
      ),
    ).toEqual(['B query-parameter-removed']);
    expect(
      kinds(
        doc(),
        doc((d) => (d.components.parameters._limit.schema.maximum = 10)),
      ),
    ).toEqual(['B page-size-lowered']);
  });

  it('tells a renamed path parameter from a removed route', () => {
    const path = (name: string) => doc((d) => (d.paths[`/things/{${name}}`] = { get: { responses: {} } }));
    expect(kinds(path('id'), path('key'))).toEqual(['B path-parameter-renamed']);
    expect(classifyChanges(path('id'), path('key'))[0]).toMatchObject({
      operations: ['GET /things/{id}'],
      message: 'is /things/{key} now',
    });
  });

  it("compares a model renamed with _renamed_from under its new name: its JSON is the same, and no field's type changed", () => {
    // A new user's Note → TreatmentNote was "field type changed — type Note → TreatmentNote".
    const renamed = doc((d) => {
      const text = JSON.stringify(d).replaceAll('Thing', 'Widget');
      Object.assign(d, JSON.parse(text));
    });
    expect(kinds(doc(), renamed)).toContain('B type-changed');
    expect(classifyChanges(doc(), renamed, { models: new Map([['Thing', 'Widget']]) })).toEqual([]);
    // What did change with it is still said, as a change of the component under its new name.
    const changed = doc((d) => {
      const text = JSON.stringify(d).replaceAll('Thing', 'Widget');
      Object.assign(d, JSON.parse(text));
      d.components.schemas.Widget.properties.size = { type: 'string' };
    });
    const changes = classifyChanges(doc(), changed, { models: new Map([['Thing', 'Widget']]) });
    expect(changes.map((c) => [c.kind, c.schema, c.path])).toEqual([['type-changed', 'Widget', 'size']]);
  });

  it('says renames given by renamed_from as renames', () => {
    const after = doc((d) => {
      d.components.schemas.Thing.properties.bulk = d.components.schemas.Thing.properties.size;
      delete d.components.schemas.Thing.properties.size;
    });
    const changes = classifyChanges(doc(), after, { renames: new Map([['Thing', new Map([['size', 'bulk']])]]) });
    expect(changes.map((c) => c.kind)).toEqual(['response-field-renamed']);
    expect(changes[0]!.message).toContain('renamed_from keeps the stored data');
    // Renamed and changed at once (a link to one that became a list of keys): both are said.
    const retyped = doc((d) => {
      d.components.schemas.Thing.properties.bulk = { type: 'array', items: { type: 'integer' } };
      delete d.components.schemas.Thing.properties.size;
    });
    const both = classifyChanges(doc(), retyped, { renames: new Map([['Thing', new Map([['size', 'bulk']])]]) });
    expect(both.map((c) => c.kind)).toContain('response-field-renamed');
    expect(both.length).toBeGreaterThan(1);
  });

  it('says a rename whose old name a new field takes: the rename, and the new field under the old name', () => {
    // A probe's phone → mobile with a new phone (a landline) was only "phone made nullable".
    const after = doc((d) => {
      d.components.schemas.Thing.properties.bulk = d.components.schemas.Thing.properties.size;
      d.components.schemas.Thing.properties.size = { type: ['string', 'null'] };
    });
    const changes = classifyChanges(doc(), after, { renames: new Map([['Thing', new Map([['size', 'bulk']])]]) });
    expect(changes.map((c) => [c.kind, c.path])).toEqual([
      ['response-field-renamed', 'size'],
      ['response-field-added', 'size'],
    ]);
    expect(changes[0]!.message).toContain(
      'size is now another field, which clients that still use size read and write',
    );
    expect(changes[1]!.message).toContain('is new, under the name bulk had before its rename');
  });

  it('says a rename in a body written out (a nested create) as a rename too, as its component says it', () => {
    // A probe's diff said "renamed" of LoanCreate and "removed" of POST /objects/{id}/loans.
    const inline = (field: string) =>
      doc((d) => {
        d.paths['/things'].post.requestBody.content['application/json'].schema = {
          type: 'object',
          properties: { [field]: { type: 'string' } },
        };
      });
    const changes = classifyChanges(inline('courier'), inline('courier_name'), {
      renames: new Map([['Loan', new Map([['courier', 'courier_name']])]]),
    });
    expect(changes.map((c) => c.kind)).toEqual(['request-field-renamed']);
  });

  it('never throws on documents of the wrong shape', () => {
    const odd: Doc[] = [
      {},
      { paths: null },
      { paths: { '/x': 5, '/y': { get: 'no' } } },
      { paths: { '/x': { get: { parameters: [null, 3, { $ref: 5 }], requestBody: [], responses: { '200': 'x' } } } } },
      {
        paths: {
          '/x': {
            get: {
              responses: {
                '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } } },
              },
            },
          },
        },
        components: { schemas: { Loop: { $ref: '#/components/schemas/Loop', properties: { a: { items: 7 } } } } },
      },
    ];
    for (const a of odd) for (const b of odd) expect(() => classifyChanges(a, b)).not.toThrow();
  });

  it('does not follow nesting deeper than any API needs (an untrusted document cannot exhaust the stack)', () => {
    const deep = (leaf: string) => {
      let schema: Doc = { type: leaf };
      // A tree, as a parsed file is: each level holds the next once.
      for (let i = 0; i < 100_000; i++) schema = { type: 'array', items: { anyOf: [schema] } };
      return doc((d) => (d.components.schemas.Thing.properties.deep = schema));
    };
    expect(() => classifyChanges(deep('string'), deep('integer'))).not.toThrow();
    expect(classifyChanges(deep('string'), deep('string'))).toEqual([]);
  });
});
