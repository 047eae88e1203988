/** The service model: naming, fields, relationships, routes, auth, ACLs and events. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelNameOf, slug } from '../../src/ir/naming.js';
import type { Model, ServiceIR } from '../../src/ir/types.js';
import { analyze } from '../../src/pipeline.js';
import { raml, securedRaml, writeTree } from '../support/files.js';
import { repoRoot } from '../support/paths.js';

function build(files: Record<string, string>): { ir: ServiceIR; codes: string[] } {
  const dir = writeTree(files);
  const result = analyze(join(dir, 'api.raml'), { cwd: dir });
  return { ir: result.ir!, codes: result.diagnostics.map((d) => `${d.code}${d.severity === 'warning' ? 'w' : ''}`) };
}

function model(ir: ServiceIR, name: string): Model {
  const m = ir.models.find((x) => x.name === name);
  if (!m) throw new Error(`no model ${name}`);
  return m;
}

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const str = (extra: object = {}) => ({ _db_settings: { type: 'string', ...extra } });
const schema = (properties: object, root: object = {}) => JSON.stringify({ type: 'object', ...root, properties });
const post = (path: string, file: string, extra = '') =>
  `${path}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${file}\n${extra}`;

describe('naming', () => {
  it.each([
    ['stories', 'Story'],
    ['users', 'User'],
    ['alien-users', 'AlienUser'],
    ['alien_users', 'AlienUser'],
    ['people', 'Person'],
    ['data', 'Datum'],
    ['items', 'Item'],
  ])('the model of /%s is %s', (segment, name) => {
    expect(modelNameOf(segment)).toBe(name);
  });

  it('slugs the title for the package name', () => {
    expect(slug('Example REST API')).toBe('example-rest-api');
    expect(slug('  Ünïcode Café!  ')).toBe('unicode-cafe');
  });
});

describe('fields', () => {
  it('turns only properties with _db_settings into fields, in schema order', () => {
    const { ir } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({
        id,
        note: { type: 'string' },
        name: str({ required: true, max_length: 20 }),
        count: { _db_settings: { type: 'biginteger' } },
      }),
    });
    const item = model(ir, 'Item');
    expect(item.fields.map((f) => [f.name, f.type])).toEqual([
      ['id', 'id_field'],
      ['name', 'string'],
      ['count', 'big_integer'],
    ]);
    expect(item.fields.find((f) => f.name === 'name')).toMatchObject({
      required: true,
      requiredOnCreate: true,
      maxLength: 20,
    });
    expect(item.fields.find((f) => f.name === 'id')).toMatchObject({ generated: true, requiredOnCreate: false });
  });

  it('reads "index" (Ramses forwards it to the column): true or false, a warning on a relationship and on long values, an error on anything else', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}\n${post('/owners', 'owner.json')}`),
      'item.json': schema({
        id,
        code: str({ index: true, max_length: 20 }),
        body: { _db_settings: { type: 'text', index: true } },
        name: str({ index: false }),
        plain: str(),
        owner_id: {
          _db_settings: {
            type: 'foreign_key',
            ref_document: 'Owner',
            ref_column: 'owner.id',
            ref_column_type: 'id_field',
          },
        },
      }),
      'owner.json': schema({
        id,
        label: str({ index: 'yes' }),
        items: { _db_settings: { type: 'relationship', document: 'Item', backref_name: 'owner', index: true } },
      }),
    });
    expect(model(ir, 'Item').fields.map((f) => [f.name, f.index])).toEqual([
      ['id', false],
      ['code', true],
      ['body', true],
      ['name', false],
      ['plain', false],
      ['owner_id', false],
      ['owner', false],
    ]);
    // A text without max_length may be too long for PostgreSQL's index entry; SVC2034 says so.
    expect(codes).toEqual(['SVC2034w', 'SVC2010', 'SVC2012w']);
  });

  it('reads "search": text fields are searched unless it is false; true or false only, and only on a text field', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({
        id,
        title: str(),
        code: str({ search: false }),
        body: { _db_settings: { type: 'text', search: true } },
        note: { _db_settings: { type: 'unicode_text', search: false } },
        label: str({ search: 'no' }),
        year: { _db_settings: { type: 'integer', search: false } },
      }),
    });
    expect(model(ir, 'Item').fields.map((f) => [f.name, f.search])).toEqual([
      ['id', false],
      ['title', true],
      ['code', false],
      ['body', true],
      ['note', false],
      ['label', true],
      ['year', false],
    ]);
    expect(codes).toEqual(['SVC2010', 'SVC2012w']);
  });

  it('reads callable defaults: now is built in, other names are user functions', () => {
    const { ir } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({
        id,
        at: { _db_settings: { type: 'datetime', default: '{{datetime.datetime.utcnow}}', onupdate: '{{now}}' } },
        slug: str({ default: '{{make_slug}}' }),
      }),
    });
    const item = model(ir, 'Item');
    expect(item.fields.find((f) => f.name === 'at')).toMatchObject({
      default: { kind: 'now' },
      onUpdate: { kind: 'now' },
    });
    expect(item.fields.find((f) => f.name === 'slug')!.default).toEqual({ kind: 'callable', name: 'make_slug' });
    expect(ir.userCode.callables).toEqual([{ name: 'make_slug', usedBy: [{ model: 'Item', field: 'slug' }] }]);
  });

  it('keeps JSON Schema validation keywords of a property', () => {
    const { ir } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, code: { type: 'string', pattern: '^[A-Z]+$', description: 'doc', ...str() } }),
    });
    expect(model(ir, 'Item').fields.find((f) => f.name === 'code')!.validation).toEqual({ pattern: '^[A-Z]+$' });
  });

  it('takes choices of the type the field keeps, each once: text for a choice, the item type for a list (else SVC2010)', () => {
    const codes = (settings: object) =>
      build({
        'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
        'item.json': schema({ id, kind: { _db_settings: settings } }),
      }).codes;
    expect(codes({ type: 'choice', choices: ['ford', 'toyota'] })).toEqual([]);
    expect(codes({ type: 'choice', choices: ['ford', 'toyota', 3] })).toEqual(['SVC2010']);
    // Listed twice: a slip (a probe's "pending", "pending"), as a repeated RAML enum value is.
    expect(codes({ type: 'choice', choices: ['pending', 'approved', 'pending'] })).toEqual(['SVC2010']);
    expect(codes({ type: 'list', item_type: 'integer', choices: [1, 2, 1] })).toEqual(['SVC2010']);
    expect(codes({ type: 'list', item_type: 'integer', choices: [1, 2, 3] })).toEqual([]);
    expect(codes({ type: 'list', item_type: 'integer', choices: [1, '2'] })).toEqual(['SVC2010']);
    // An interval is whole seconds; an alias is read as its type.
    expect(codes({ type: 'list', item_type: 'interval', choices: [60, 3600] })).toEqual([]);
    expect(codes({ type: 'list', item_type: 'biginteger', choices: ['1'] })).toEqual(['SVC2010']);
    expect(codes({ type: 'list', item_type: 'string', choices: ['a', true] })).toEqual(['SVC2010']);
    // Numbers of a choice, or choices on a number: the hint says JSON Schema's enum does it.
    const hints = (settings: object) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
        'item.json': schema({ id, kind: { _db_settings: settings } }),
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => d.hint);
    };
    expect(hints({ type: 'choice', choices: [25, 45] })[0]).toMatch(/a choice is text; .*\("enum": \[25, 45\]\)/);
    expect(hints({ type: 'integer', choices: [25, 45] })[0]).toMatch(
      /^for an integer that takes a few values, .*"enum"/,
    );
  });

  it('says a key written twice in a schema as that alone, not as two fields that differ only in case', () => {
    const { codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': `{"type": "object", "properties": {"id": ${JSON.stringify(id)}, "name": ${JSON.stringify(str())}, "name": ${JSON.stringify(str())}}}`,
    });
    expect(codes).toEqual(['SVC1005']);
  });

  it("says once what is wrong with a field's settings, each where it is written", () => {
    const codes = (property: object) =>
      build({
        'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
        'item.json': schema({ id, value: property }),
      }).codes;
    // An unknown item type is that, not also a list without one.
    expect(codes({ _db_settings: { type: 'list', item_type: 'dict' } })).toEqual(['SVC2005']);
    expect(codes({ _db_settings: { type: 'list' } })).toEqual(['SVC2008']);
    // More digits after the point than in all: only 0 would fit.
    expect(codes({ _db_settings: { type: 'decimal', precision: 4, scale: 8 } })).toEqual(['SVC2008']);
    expect(codes({ _db_settings: { type: 'decimal', precision: 6, scale: 2 } })).toEqual([]);
    // Lengths and digits are whole numbers a column can have (a max_length of -5 crashed the generator's samples;
    // a numeric(0, -1) reached PostgreSQL's migration).
    for (const settings of [
      { type: 'string', max_length: -5 },
      { type: 'string', max_length: 0 },
      { type: 'string', max_length: 2.5 },
      { type: 'text', min_length: -3 },
      { type: 'decimal', precision: 0 },
      { type: 'decimal', precision: 1001 },
      { type: 'decimal', scale: -1, precision: 6 },
    ])
      expect(codes({ _db_settings: settings }), JSON.stringify(settings)).toEqual(['SVC2010']);
    expect(codes({ _db_settings: { type: 'string', min_length: 0, max_length: 1 } })).toEqual([]);
    // A JSON type that the stored type cannot have: svcgen takes numbers for a decimal.
    expect(codes({ type: 'string', _db_settings: { type: 'decimal' } })).toEqual(['SVC2075w']);
    expect(codes({ type: 'string', _db_settings: { type: 'big_integer' } })).toEqual(['SVC2075w']);
    expect(codes({ type: ['number', 'null'], _db_settings: { type: 'decimal' } })).toEqual([]);
    // A temporal format another temporal type's (a new user's borrowing date stored as a datetime).
    expect(codes({ type: 'string', format: 'date', _db_settings: { type: 'datetime' } })).toEqual(['SVC2075w']);
    expect(codes({ type: 'string', format: 'date-time', _db_settings: { type: 'time' } })).toEqual(['SVC2075w']);
    expect(codes({ type: 'string', format: 'date-time', _db_settings: { type: 'datetime' } })).toEqual([]);
    expect(codes({ type: 'string', format: 'email', _db_settings: { type: 'string' } })).toEqual([]);
  });

  it('says where a relationship\'s JSON type is not what "uselist" links (a list of sign-ups made one per work day)', () => {
    const codes = (settings: object, type: unknown) =>
      build({
        'api.raml': raml(`title: T\n${post('/workdays', 'workday.json')}${post('/signups', 'signup.json')}`),
        'workday.json': schema({
          id,
          signups: {
            type,
            _db_settings: { type: 'relationship', document: 'Signup', backref_name: 'workday', ...settings },
          },
        }),
        'signup.json': schema({
          id,
          workday_id: {
            _db_settings: {
              type: 'foreign_key',
              ref_document: 'Workday',
              ref_column: 'workday.id',
              ref_column_type: 'id_field',
            },
          },
        }),
      }).codes.filter((c) => c.startsWith('SVC2075'));
    expect(codes({ uselist: false }, ['array', 'null'])).toEqual(['SVC2075w']);
    expect(codes({}, 'integer')).toEqual(['SVC2075w']);
    expect(codes({}, ['array', 'null'])).toEqual([]);
    expect(codes({ uselist: false }, ['integer', 'null'])).toEqual([]);
    expect(codes({ uselist: false }, 'object')).toEqual([]);
  });

  it('warns of an item line whose view or update the collection rules give every member, a group, everyone or a principal (SVC2081), not an owner\'s "all" beside everyone\'s reading', () => {
    const codes = (collection: string, item = 'allow {{coach}} view') =>
      build({
        'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          ${collection}
        item: |
          allow g:admin all
          ${item}
securedBy: [ticket]
${post('/workouts', 'workout.json', '  securedBy: [acl]\n  /{id}:\n    get:\n')}`),
        'workout.json': schema({ id }),
      }).codes.filter((c) => c.startsWith('SVC2081'));
    // A coach's view, which every member has anyway.
    expect(codes('allow authenticated view, create')).toEqual(['SVC2081w']);
    // A coach's view, which everyone has anyway, anonymous callers too: the workouts read as private.
    expect(codes('allow everyone view\n          allow authenticated create')).toEqual(['SVC2081w']);
    // Everyone reads, the coach does the rest: nothing is said of reading.
    expect(codes('allow everyone view\n          allow authenticated create', 'allow {{coach}} all')).toEqual([]);
    // Everyone reads, and the item rules end in a deny of everyone's reading: they decide alone.
    expect(codes('allow everyone view', 'allow {{coach}} view\n          deny everyone view')).toEqual([]);
    // A principal is asked without the object there: whom it lets list, it lets view every workout.
    expect(codes('allow {{coach}} view')).toEqual(['SVC2081w']);
    // Denied to members first: the principal's line is never reached by them.
    expect(codes('deny authenticated view\n          allow {{coach}} view')).toEqual([]);
    // A group's members who own nothing fall back to its collection line too (a probe's students, who
    // read each other's practice logs), each group said apart; admins are meant to have it all.
    expect(codes('allow g:student view\n          allow g:teacher view, create')).toEqual(['SVC2081w', 'SVC2081w']);
    expect(codes('allow g:student view', 'allow {{coach}} view\n          deny everyone all')).toEqual([]);
    expect(codes('allow g:student create')).toEqual([]);
    // Staff given all, moderators beside an owner's "all", members of a group denied as members: as meant.
    expect(codes('allow g:editor all', 'allow {{coach}} all')).toEqual([]);
    expect(codes('allow g:editor all', 'allow {{coach}} view, update')).toEqual([]);
    expect(codes('allow g:moderator view, delete\n          allow everyone view', 'allow {{coach}} all')).toEqual([]);
    expect(codes('allow g:student view', 'allow {{coach}} view\n          deny g:user view')).toEqual([]);
  });

  it('hints the relationship an unused foreign key needs (SVC2060), renaming a key with no suffix, whose backref would take its name', () => {
    const hint = (key: string, more: object = {}) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${post('/owners', 'owner.json')}${post('/items', 'item.json')}`),
        'owner.json': schema({ id }),
        'item.json': schema({
          id,
          ...more,
          [key]: {
            _db_settings: {
              type: 'foreign_key',
              ref_document: 'Owner',
              ref_column: 'owner.id',
              ref_column_type: 'id_field',
            },
          },
        }),
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.find((d) => d.code === 'SVC2060')?.hint;
    };
    expect(hint('owner_id')).toMatch(/^add a relationship to Owner's schema, e\.g\. .*"backref_name": "owner"/);
    expect(hint('owner')).toMatch(/^rename the foreign key to "owner_id" .*"backref_name": "owner"/);
    // A field of its own has the name the backref would take: another one.
    expect(hint('owner_id', { owner: { _db_settings: { type: 'string' } } })).toMatch(
      /^add a relationship .*"backref_name": "owner_link"/,
    );
  });

  it('reads a to-many link whose backref is a plural as meant to be many-to-many, and hints the model that keeps one (SVC2057)', () => {
    const hint = (backref: string) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${post('/teachers', 'teacher.json')}${post('/instruments', 'instrument.json')}`),
        'teacher.json': schema({
          id,
          instruments: { _db_settings: { type: 'relationship', document: 'Instrument', backref_name: backref } },
        }),
        'instrument.json': schema({ id }),
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.find((d) => d.code === 'SVC2057')?.hint;
    };
    expect(hint('teachers')).toMatch(
      /^if each Instrument has many teachers too \("teachers"\), that is many-to-many, .* a TeacherInstrument with a foreign key to each/,
    );
    expect(hint('teacher')).toMatch(/^declare it to choose its name/);
  });

  it('says a to-one link whose key it adds on the other model is one-to-one, and how many-to-one is declared (SVC2057)', () => {
    // A new user's order with "uselist": false to its ticket type took the key added on ticket types for its own.
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/orders', 'order.json')}${post('/ticket_types', 'ticket_type.json')}`),
      'order.json': schema({
        id,
        ticket_type: {
          _db_settings: { type: 'relationship', document: 'TicketType', backref_name: 'order', uselist: false },
        },
      }),
      'ticket_type.json': schema({ id }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.find((d) => d.code === 'SVC2057');
    expect(said?.message).toMatch(
      /svcgen adds tickettype\.order_id \(one-to-one: each TicketType is linked to at most one Order\)$/,
    );
    expect(said?.hint).toMatch(
      /^if many orders share one TicketType, that is many-to-one, declared the other way round: a foreign key on Order to TicketType, and on TicketType a to-many relationship/,
    );
  });

  it('warns of an object principal on a top-level collection (SVC2086), but of its create where the x-ACL guards a nested one too', () => {
    const acl = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\n  - club_acl:\n      type: x-ACL\n      settings:\n        collection: |\n          allow g:admin all\n          allow {{club_admin}} view, create\n        item: |\n          allow g:admin all\n          allow {{club_admin}} all\nsecuredBy: [ticket]\n`;
    const team = schema({
      id,
      club_id: {
        _db_settings: { type: 'foreign_key', ref_document: 'Club', ref_column: 'club.id', ref_column_type: 'id_field' },
      },
    });
    const club = schema({
      id,
      teams: { _db_settings: { type: 'relationship', document: 'Team', backref_name: 'club' } },
    });
    const body = (file: string, indent = '    ') =>
      `${indent}body:\n${indent}  application/json:\n${indent}    schema: !include ${file}\n`;
    const teams = `/teams:\n  securedBy: [club_acl]\n  get:\n  post:\n${body('team.json')}`;
    const clubs = (nested: string) => `/clubs:\n  get:\n  post:\n${body('club.json')}  /{id}:\n    get:\n${nested}`;
    const nestedTeams = `    /teams:\n      securedBy: [club_acl]\n      get:\n      post:\n${body('team.json', '        ')}`;
    const refused = (raml_: string, files: Record<string, string> = { 'team.json': team, 'club.json': club }) => {
      const dir = writeTree({ 'api.raml': raml(`title: T\n${acl}${raml_}`), ...files });
      const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2086');
      return found.map((d) => /its callers are refused (.*)$/.exec(d.message)?.[1]);
    };
    expect(refused(`${teams}${clubs('')}`)).toEqual(['view, create']);
    // A create at /teams names its club, which the principal may decide by, as at /clubs/{id}/teams;
    // a list at /teams has neither object nor parent (a probe's gardeners, refused their own loans,
    // were told nothing because the x-ACL guarded a nested route too).
    expect(refused(`${teams}${clubs(nestedTeams)}`)).toEqual(['view']);
    // The hint's way out keeps each list to the caller's own: with the deny the item rules lack (a
    // new user followed the hint without it, and every member read every object).
    const hintOf = (acl_: string) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${acl_}${teams}${clubs('')}`),
        'team.json': team,
        'club.json': club,
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.find((d) => d.code === 'SVC2086')?.hint;
    };
    expect(hintOf(acl)).toContain(
      'give view, create on the collection to authenticated and end the item rules with "deny authenticated view"',
    );
    const denied = acl.replace(
      'allow {{club_admin}} all\n',
      'allow {{club_admin}} all\n          deny authenticated all\n',
    );
    expect(denied).not.toBe(acl);
    expect(hintOf(denied)).toMatch(/^give view, create on the collection to authenticated: then the item lines'/);
    // So where it guards a singular route below a parent (a club's one team).
    const oneTeam = schema({
      id,
      team: { _db_settings: { type: 'relationship', document: 'Team', backref_name: 'club', uselist: false } },
    });
    const singular = `    /team:
      securedBy: [club_acl]
      get:
      post:
${body('team.json', '        ')}`;
    expect(refused(`${teams}${clubs(singular)}`, { 'team.json': team, 'club.json': oneTeam })).toEqual(['view']);
    const built = build({
      'api.raml': raml(`title: T\n${acl}${teams}${clubs(singular)}`),
      'team.json': team,
      'club.json': oneTeam,
    });
    expect(built.codes.filter((c) => c.endsWith('e'))).toEqual([]);
  });

  it("warns of a delete members may make that what it takes along refuses (SVC2103), by the foreign key's rule", () => {
    const dir = 'fixtures/invalid/SVC2103-delete-refused-by-what-it-takes';
    const files = Object.fromEntries(
      ['api.raml', 'household.json', 'log_entry.json'].map((f) => [f, readFileSync(join(repoRoot, dir, f), 'utf8')]),
    );
    const withKeyRule = (rule: string | null) => ({
      ...files,
      'log_entry.json': files['log_entry.json']!.replace(
        '"ref_ondelete": "CASCADE"',
        rule ? `"ref_ondelete": "${rule}"` : '"index": true',
      ),
    });
    const found = (tree: Record<string, string>) => {
      const dir = writeTree(tree);
      return analyze(join(dir, 'api.raml'), { cwd: dir })
        .diagnostics.filter((d) => d.code === 'SVC2103')
        .map((d) => d.message.split(', which')[0]);
    };
    expect(found(files)).toEqual(['deleting a Household deletes its entries (ondelete: CASCADE)']);
    // NULLIFY changes each entry's link, which members may not either.
    expect(found(withKeyRule('SET NULL'))).toEqual(['deleting a Household unlinks its entries (NULLIFY)']);
    // Ramses' ondelete alone is no rule the runtime follows (SVC2069): the key's default is, and RESTRICT refuses first.
    expect(found(withKeyRule('RESTRICT'))).toEqual([]);
    // A delete of what holds the key (an entry members may delete) changes nothing of its household:
    // before, the key's other side was read as this one's, and a probe's bookings were said to NULLIFY their sitter.
    const entriesDeletable = {
      ...files,
      'api.raml': files['api.raml']!.replace(
        'item: |\n          allow g:admin all\n          allow authenticated view\n',
        'item: |\n          allow g:admin all\n          allow authenticated view, delete\n',
      ),
    };
    expect(entriesDeletable['api.raml']).not.toBe(files['api.raml']);
    // (A household's delete, whose entries members may now delete too, is no longer refused either.)
    expect(found(entriesDeletable)).toEqual([]);
  });

  it('refuses a user granted by a whole-number key of any type (SVC2105): id_field, integer, big_integer, small_integer', () => {
    const dir = 'fixtures/invalid/SVC2105-user-granted-by-handed-out-key';
    const files = Object.fromEntries(
      ['api.raml', 'paper.json', 'user.json'].map((f) => [f, readFileSync(join(repoRoot, dir, f), 'utf8')]),
    );
    for (const type of ['id_field', 'integer', 'big_integer', 'small_integer']) {
      const user = files['user.json']!.replace(
        '"type": "id_field", "primary_key": true',
        `"type": "${type}", "primary_key": true`,
      );
      expect(user.includes(`"type": "${type}", "primary_key": true`), type).toBe(true);
      expect(
        build({ ...files, 'user.json': user }).codes.filter((c) => c.startsWith('SVC2105')),
        type,
      ).toEqual(['SVC2105']);
    }
  });

  it('warns of a principal named once beside one a slip away (SVC2100), not of another role of a long name', () => {
    const codes = (once: string) => {
      const acl = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\n  - home_acl:\n      type: x-ACL\n      settings:\n        collection: |\n          allow g:admin all\n        item: |\n          allow {{household_owner}} view\n          allow {{household_owner}} update\n          allow {{${once}}} delete\nsecuredBy: [ticket]\n`;
      return build({
        'api.raml': raml(`title: T\n${acl}/items:\n  securedBy: [home_acl]\n  get:\n  /{id}:\n    get:\n`),
        'item.json': schema({ id }),
      }).codes.filter((c) => c.startsWith('SVC2100'));
    };
    expect(codes('household_guest')).toEqual([]);
    expect(codes('househld_owner')).toEqual(['SVC2100w']);
    expect(codes('household_ownr')).toEqual(['SVC2100w']);
    // Each named once (a new user's {{ownr}} on one line, {{owner}} on another): said once, offering neither as the fix.
    const acl = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\n  - home_acl:\n      type: x-ACL\n      settings:\n        collection: |\n          allow g:admin all\n        item: |\n          allow {{owner}} view\n          allow {{ownr}} delete\nsecuredBy: [ticket]\n`;
    const dir = writeTree({
      'api.raml': raml(`title: T\n${acl}/items:\n  securedBy: [home_acl]\n  get:\n  /{id}:\n    get:\n`),
      'item.json': schema({ id }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2100');
    expect(said.map((d) => [d.message, d.hint])).toEqual([
      [
        '{{ownr}} and {{owner}} are each named once, a slip apart',
        'if they are one principal, write one of the two names on both lines: each name is a function of its own (src/custom/principals/), and a stub lets no one in',
      ],
    ]);
  });

  it('warns of item handlers a bulk change skips (SVC2083), unless the bulk action has handlers of its own', () => {
    const codes = (handlers: object) =>
      build({
        'api.raml': raml(
          `title: T\n/items:\n  get:\n  patch:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n  /{id}:\n    patch:\n`,
        ),
        'item.json': schema({ id, name: str() }, { _event_handlers: handlers }),
      }).codes;
    expect(codes({ before_update: ['guard'] })).toEqual(['SVC2083w']);
    expect(codes({ before_update: ['guard'], before_update_many: ['refuse_many'] })).toEqual([]);
  });

  it('warns of item handlers the other method skips (SVC2111): a PUT that runs no before_update guard, a PATCH none of before_replace', () => {
    const codes = (handlers: object, methods = '    patch:\n    put:\n') =>
      build({
        'api.raml': raml(
          `title: T\n/items:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include item.json\n  /{id}:\n${methods}`,
        ),
        'item.json': schema({ id, name: str() }, { _event_handlers: handlers }),
      }).codes;
    expect(codes({ before_update: ['guard'] })).toEqual(['SVC2111w']);
    expect(codes({ after_replace: ['notify'] })).toEqual(['SVC2111w']);
    expect(codes({ before_update: ['guard'], before_replace: ['guard'] })).toEqual([]);
    expect(codes({ before_set: ['guard'] })).toEqual([]);
    // Without a PUT on the item, its PATCH runs every update handler there is.
    expect(codes({ before_update: ['guard'] }, '    patch:\n')).toEqual([]);
  });

  it('hints `choice` for an "enum" type, and a date type for a property whose format is a date', () => {
    const hints = (properties: object) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
        'item.json': schema({ id, ...properties }),
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.hint]);
    };
    expect(hints({ kind: { _db_settings: { type: 'enum' } } })).toEqual([
      ['SVC2005', 'a field of one of a list of values is `"type": "choice"`, with its values in `"choices": [...]`'],
    ]);
    // SQL's names for a type, which are too far from svcgen's for a "did you mean".
    expect(hints({ level: { _db_settings: { type: 'smallint' } } })).toEqual([
      ['SVC2005', 'svcgen calls it `small_integer`'],
    ]);
    // As Ramses read it: a type left out, null or empty is a string (a porting probe's "" was an error).
    for (const settings of [{}, { type: null }, { type: '' }])
      expect(hints({ notes: { _db_settings: settings } }), JSON.stringify(settings)).toEqual([]);
    // Ramses' column name, where it is another: said (a porting probe's was dropped without a word).
    expect(hints({ notes: { _db_settings: { type: 'text', name: 'ride_notes' } } })).toEqual([
      [
        'SVC2012',
        'to keep reading a Ramses database\'s "ride_notes", name the property "ride_notes"; else copy the values into "notes" (docs/migrating-from-ramses.md)',
      ],
    ]);
    expect(hints({ notes: { _db_settings: { type: 'text', name: 'notes' } } })).toEqual([]);
    // An object's inherited names are no type (they were taken as one, silently).
    for (const type of ['constructor', '__proto__', 'toString'])
      expect(
        hints({ level: { _db_settings: { type } } }).map(([code]) => code),
        type,
      ).toEqual(['SVC2005']);
    // A list of objects is a dict whose JSON Schema gives their shape.
    const [[code, hint]] = hints({ markers: { _db_settings: { type: 'list', item_type: 'dict' } } }) as [
      [string, string],
    ];
    expect([code, hint]).toEqual([
      'SVC2005',
      expect.stringContaining('a list holds scalars: keep objects (or lists) in a dict field'),
    ]);
    const documentation = (format: string) => hints({ born: { type: 'string', format } })[0]?.[1];
    expect(documentation('date')).toContain('"_db_settings": {"type": "date"}');
    expect(documentation('date-time')).toContain('"_db_settings": {"type": "datetime"}');
    expect(documentation('email')).toContain('"_db_settings": {"type": "string"}');
  });

  it('hints the identifier a handler name written with dashes or spaces was meant to be (SVC2007)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id }, { _event_handlers: { before_create: ['check-room', 'set owner'] } }),
    });
    expect(analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.hint])).toEqual([
      ['SVC2007', 'handler names are TypeScript identifiers: did you mean "check_room"?'],
      ['SVC2007', 'handler names are TypeScript identifiers: did you mean "set_owner"?'],
    ]);
  });

  it('reads "readOnly": true or false; anything else is SVC2079; a read-only field no handler or default can set is SVC2080', () => {
    const item = (name: object) => ({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, name }),
    });
    const field = (ir: ServiceIR) => model(ir, 'Item').fields.find((f) => f.name === 'name')!;
    const optional = build(item({ ...str(), readOnly: true }));
    expect([field(optional.ir).readOnly, field(optional.ir).requiredOnCreate, optional.codes]).toEqual([
      true,
      false,
      [],
    ]);
    expect(field(build(item({ ...str(), readOnly: false })).ir).readOnly).toBe(false);
    expect(build(item({ ...str(), readOnly: 'yes' })).codes).toEqual(['SVC2079']);
    // Required, no default, no before_create handler: nothing but an admin's body could set it.
    const required = build(item({ ...str({ required: true }), readOnly: true }));
    expect([field(required.ir).requiredOnCreate, required.codes]).toEqual([false, ['SVC2080w']]);
    expect(build(item({ ...str({ required: true, default: 'x' }), readOnly: true })).codes).toEqual([]);
  });

  it('reads "_write_once": true or false (else SVC2116); misspelt, or inside _db_settings, it is said (SVC2087, SVC2090)', () => {
    const hintOf = (files: Record<string, string>) => {
      const dir = writeTree(files);
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.flatMap((d) => [d.code, d.hint]);
    };
    const item = (name: object) => ({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, name }),
    });
    const field = (ir: ServiceIR) => model(ir, 'Item').fields.find((f) => f.name === 'name')!;
    const once = build(item({ ...str({ required: true }), _write_once: true }));
    expect([field(once.ir).writeOnce, field(once.ir).readOnly, field(once.ir).requiredOnCreate, once.codes]).toEqual([
      true,
      false,
      true,
      [],
    ]);
    expect(field(build(item({ ...str(), _write_once: false })).ir).writeOnce).toBe(false);
    expect(build(item({ ...str(), _write_once: 'yes' })).codes).toEqual(['SVC2116']);
    expect(build(item({ ...str(), _write_onse: true })).codes).toEqual(['SVC2087']);
    expect(build(item({ ...str(), _procesors: ['trim'] })).codes).toEqual(['SVC2087']);
    // Without its `_`, or in camel case: JSON Schema's nearest keyword (`writeOnly`) is not what was meant.
    for (const key of ['write_once', 'write-once', 'writeOnce'])
      expect(hintOf(item({ ...str(), [key]: true }))).toEqual(['SVC2087', 'did you mean `_write_once`?']);
    expect(build(item({ _db_settings: { type: 'string', _write_once: true } })).codes).toEqual(['SVC2090']);
    // As other frameworks spell it, inside _db_settings where most rules live: no rule there either.
    for (const key of ['write_once', 'writeOnce'])
      expect(hintOf(item({ _db_settings: { type: 'string', [key]: true } }))).toEqual([
        'SVC2090',
        'write "_write_once" beside "_db_settings", in the property itself',
      ]);
    // Keys of its own nothing is near stay annotations.
    expect(build(item({ ...str(), _comment: 'kept' })).codes).toEqual([]);
    // Read-only says more: a field that is both is read-only, and no create sets it either.
    expect(
      [field(build(item({ ...str(), readOnly: true, _write_once: true })).ir)].map((f) => [f.readOnly, f.writeOnce]),
    ).toEqual([[true, false]]);
    // An onupdate would change it on every update (SVC2117).
    const stamped = build(item({ _write_once: true, _db_settings: { type: 'datetime', onupdate: '{{now}}' } }));
    expect(stamped.codes).toEqual(['SVC2117w']);
  });

  it('makes a write-once link write-once where its key is, and read-only from the other model', () => {
    const files = (onKey: boolean) => ({
      'api.raml': raml(`title: T\n${post('/clubs', 'club.json')}${post('/teams', 'team.json')}`),
      'team.json': schema({
        id,
        club_id: {
          ...(onKey ? { _write_once: true } : {}),
          _db_settings: {
            type: 'foreign_key',
            ref_document: 'Club',
            ref_column: 'club.id',
            ref_column_type: 'id_field',
          },
        },
      }),
      'club.json': schema({
        id,
        teams: {
          ...(onKey ? {} : { _write_once: true }),
          _db_settings: { type: 'relationship', document: 'Team', backref_name: 'club' },
        },
      }),
    });
    for (const onKey of [true, false]) {
      const { ir, codes } = build(files(onKey));
      expect(codes).toEqual([]);
      const rules = (m: string, f: string) => {
        const found = model(ir, m).fields.find((x) => x.name === f)!;
        return [found.writeOnce, found.readOnly];
      };
      expect([rules('Team', 'club_id'), rules('Team', 'club'), rules('Club', 'teams')]).toEqual([
        [true, false],
        [true, false],
        [false, true],
      ]);
    }
  });

  it('honours draft-03 "required": true on a property, and "required": false', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({
        id,
        name: { type: 'string', required: true, ...str() },
        note: { type: 'string', required: false, ...str() },
      }),
    });
    expect(codes.filter((c) => !c.endsWith('w'))).toEqual([]);
    expect(model(ir, 'Item').fields.find((f) => f.name === 'name')).toMatchObject({
      required: true,
      requiredOnCreate: true,
    });
    expect(model(ir, 'Item').fields.find((f) => f.name === 'note')).toMatchObject({ required: false });
  });

  /** The error codes of an API whose one model has a string field named `name`. */
  const errorsWithField = (name: string) => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': `{"type": "object", "properties": {"id": ${JSON.stringify(id)}, "${name}": ${JSON.stringify(str())}}}`,
    });
    const result = analyze(join(dir, 'api.raml'), { cwd: dir });
    return result.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);
  };

  it.each([
    '__proto__',
    'constructor',
    'prototype',
    // Every plain object has these: a body without the field "had" it (the inherited function).
    'toString',
    'valueOf',
    'hasOwnProperty',
    'isPrototypeOf',
    'rowid',
    'RowId',
    // PostgreSQL's system columns: the first migration failed there at start-up.
    'ctid',
    'xmin',
    'xmax',
    'cmin',
    'cmax',
    'tableoid',
    'svc_search_title',
    `a${'b'.repeat(63)}`,
  ])('refuses a field named %s (SVC2004), and pollutes nothing', (name) => {
    expect(errorsWithField(name)).toEqual(['SVC2004']);
    expect(Object.prototype).not.toHaveProperty('_db_settings');
  });

  it('accepts a field name of 63 characters, the longest PostgreSQL keeps whole', () => {
    expect(errorsWithField(`a${'b'.repeat(62)}`)).toEqual([]);
  });
});

describe('relationships', () => {
  const user = schema({
    username: str({ primary_key: true }),
    stories: { _db_settings: { type: 'relationship', document: 'Story', backref_name: 'owner' } },
  });
  const story = (extra: object = {}) =>
    schema({
      id,
      owner_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'User',
          ref_column: 'user.username',
          ref_column_type: 'string',
          ...extra,
        },
      },
    });

  it('adds the backref to the target and links both sides through the foreign key', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': story({ ref_ondelete: 'CASCADE' }),
    });
    expect(codes).toEqual([]);
    expect(model(ir, 'User').relationships).toEqual([
      {
        name: 'stories',
        target: 'Story',
        inverse: 'owner',
        cardinality: 'many',
        declared: true,
        foreignKey: { model: 'Story', field: 'owner_id' },
        onDelete: 'cascade',
        documentOnDelete: null,
      },
    ]);
    expect(model(ir, 'Story').relationships).toEqual([
      {
        name: 'owner',
        target: 'User',
        inverse: 'stories',
        cardinality: 'one',
        declared: false,
        foreignKey: { model: 'Story', field: 'owner_id' },
        onDelete: 'nullify',
        documentOnDelete: null,
      },
    ]);
    expect(model(ir, 'Story').fields.find((f) => f.name === 'owner_id')!.foreignKey).toEqual({
      model: 'User',
      column: 'username',
      columnType: 'string',
      onDelete: 'cascade',
      onUpdate: 'cascade',
      relationship: 'owner',
    });
    expect(model(ir, 'Story').fields.find((f) => f.name === 'owner')).toMatchObject({
      type: 'relationship',
      synthesized: true,
      relationship: 'owner',
    });
  });

  it.each([
    ['ondelete', 'CASCADE', {}, ['SVC2069w']],
    ['backref_ondelete', 'CASCADE', {}, ['SVC2069w']],
    // The relationship asks for what the foreign key does: nothing to say.
    ['ondelete', 'CASCADE', { ref_ondelete: 'CASCADE' }, []],
    ['ondelete', 'NULLIFY', {}, []],
  ])(
    "warns when a relationship's %s (%s) is not what its foreign key does on delete (SVC2069)",
    (key, rule, fk, codes) => {
      const withRule = schema({
        username: str({ primary_key: true }),
        stories: { _db_settings: { type: 'relationship', document: 'Story', backref_name: 'owner', [key]: rule } },
      });
      const built = build({
        'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
        'user.json': withRule,
        'story.json': story(fk),
      });
      expect(built.codes).toEqual(codes);
    },
  );

  it('makes a whole link read-only when one of its fields says "readOnly": true, on both models', () => {
    const readOnlyFields = (files: Record<string, string>) => {
      const { ir, codes } = build({
        'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
        ...files,
      });
      const flagged = ir.models.flatMap((m) => m.fields.filter((f) => f.readOnly).map((f) => `${m.name}.${f.name}`));
      return { flagged: flagged.sort(), codes };
    };
    const all = ['Story.owner', 'Story.owner_id', 'User.stories'];
    const onKey = JSON.parse(story()) as { properties: Record<string, Record<string, unknown>> };
    onKey.properties['owner_id']!['readOnly'] = true;
    expect(readOnlyFields({ 'user.json': user, 'story.json': JSON.stringify(onKey) })).toEqual({
      flagged: all,
      codes: [],
    });
    const onRelationship = JSON.parse(user) as { properties: Record<string, Record<string, unknown>> };
    onRelationship.properties['stories']!['readOnly'] = true;
    expect(readOnlyFields({ 'user.json': JSON.stringify(onRelationship), 'story.json': story() })).toEqual({
      flagged: all,
      codes: [],
    });
    expect(readOnlyFields({ 'user.json': user, 'story.json': story() })).toEqual({ flagged: [], codes: [] });
  });

  it('says what deleting does, and the line that makes it so (SVC2069)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': schema({
        username: str({ primary_key: true }),
        stories: {
          _db_settings: { type: 'relationship', document: 'Story', backref_name: 'owner', ondelete: 'CASCADE' },
        },
      }),
      'story.json': story(),
    });
    const [warning] = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect([warning?.code, warning?.message, warning?.hint]).toEqual([
      'SVC2069',
      'deleting a User unlinks its Story objects (NULLIFY, the rule of the foreign key Story.owner_id, on every engine), not CASCADE as this relationship says',
      'add "ref_ondelete": "CASCADE" to the _db_settings of Story.owner_id',
    ]);
  });

  it('refuses to delete what a required key links to (RESTRICT), unless the key says CASCADE; its NULLIFY is SVC2069', () => {
    const files = (extra: object, root: object = {}) => ({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': JSON.stringify({ ...JSON.parse(story(extra)), ...root }),
    });
    const rule = (ir: ServiceIR) => model(ir, 'User').relationships.find((r) => r.name === 'stories')!.onDelete;
    // A required key cannot be unlinked: deleting its user was a 400 "owner_id is required".
    expect(rule(build(files({ required: true })).ir)).toBe('restrict');
    expect(rule(build(files({}, { required: ['owner_id'] })).ir)).toBe('restrict');
    expect(rule(build(files({ required: true, ref_ondelete: 'CASCADE' })).ir)).toBe('cascade');
    expect(rule(build(files({})).ir)).toBe('nullify');
    const said = build(files({ required: true, ref_ondelete: 'NULLIFY' }));
    expect([rule(said.ir), said.codes]).toEqual(['restrict', ['SVC2069w']]);
  });

  it('takes a backref named in the root "required" as its key required, with RESTRICT; another unknown name is SVC2084', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': JSON.stringify({ ...JSON.parse(story()), required: ['owner'] }),
    });
    expect(codes).toEqual([]);
    const stories = model(ir, 'Story');
    expect(stories.fields.find((f) => f.name === 'owner_id')?.required).toBe(true);
    expect(stories.fields.find((f) => f.name === 'owner')?.required).toBe(true);
    expect(model(ir, 'User').relationships.find((r) => r.name === 'stories')?.onDelete).toBe('restrict');
    // A name that is neither is still SVC2084.
    const misspelt = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': JSON.stringify({ ...JSON.parse(story()), required: ['ownr'] }),
    });
    expect(misspelt.codes).toEqual(['SVC2084w']);
    // Its hint suggests the backref too, which the schema's properties do not list (a probe's).
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': JSON.stringify({ ...JSON.parse(story()), required: ['ownr'] }),
    });
    const [found] = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2084');
    expect(found?.hint).toBe('did you mean `owner`?');
  });

  it('refuses an item below an item (SVC2022), which was dropped without a word', () => {
    const { codes } = build({
      'api.raml': raml(`title: T\n${post('/farms', 'farm.json')}  /{id}:\n    get:\n    /{other}:\n      get:\n`),
      'farm.json': JSON.stringify({ type: 'object', properties: { id } }),
    });
    expect(codes).toEqual(['SVC2022']);
  });

  it('refuses "required" written as one name instead of a list (SVC2006), with the list to write', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': `{"type": "object", "required": "name", "properties": {"id": ${JSON.stringify(id)}, "name": ${JSON.stringify(str())}}}`,
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect(found.map((d) => [d.code, d.message, d.hint])).toEqual([
      ['SVC2006', '"required" must be a list of field names', 'write "required": ["name"]'],
    ]);
  });

  it('warns of a property without _db_settings, unless a relationship adds a field of its name (SVC2074)', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      // `owner` documents the backref that `stories` adds; `born` is nothing.
      'story.json': `{"type": "object", "properties": {"id": ${JSON.stringify(id)}, "owner": {"type": "string"}, "born": {"type": "integer"}, "owner_id": ${JSON.stringify({ _db_settings: { type: 'foreign_key', ref_document: 'User', ref_column: 'user.username', ref_column_type: 'string' } })}}}`,
    });
    expect(codes).toEqual(['SVC2074w']);
    expect(model(ir, 'Story').fields.map((f) => f.name)).not.toContain('born');
  });

  it('says where the foreign key that would store a relationship points instead (SVC2062), and nothing more when that is no model (SVC2050)', () => {
    const fk = (ref: string) =>
      `{"type": "object", "properties": {"id": ${JSON.stringify(id)}, "owner_username": ${JSON.stringify({ _db_settings: { type: 'foreign_key', ref_document: ref, ref_column: 'user.username', ref_column_type: 'string' } })}}}`;
    const api = raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`);
    const elsewhere = writeTree({ 'api.raml': api, 'user.json': user, 'story.json': fk('Story') });
    const found = analyze(join(elsewhere, 'api.raml'), { cwd: elsewhere }).diagnostics.filter(
      (d) => d.code === 'SVC2062',
    );
    expect(found.map((d) => [d.message, d.hint])).toEqual([
      [
        'Story.owner_username would store this relationship, but its ref_document is "Story", not User',
        'write "ref_document": "User", or give the key of Story another name',
      ],
    ]);
    expect(build({ 'api.raml': api, 'user.json': user, 'story.json': fk('Usr') }).codes).toEqual(['SVC2050']);
  });

  it('refuses a link to a model svcgen keeps for itself (SVC2050), and offers none of those as a target', () => {
    const auth = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\nsecuredBy: [ticket]\n`;
    const api = raml(`title: T\n${auth}${post('/users', 'user.json')}${post('/pets', 'pet.json')}`);
    const authUser = schema(
      {
        username: str({ primary_key: true, required: true }),
        email: str({ required: true, unique: true }),
        password: str({ required: true, min_length: 8 }),
        groups: { _db_settings: { type: 'list', item_type: 'string' } },
      },
      { _auth_model: true },
    );
    const linking = (document: string) =>
      schema({ id, creds: { _db_settings: { type: 'relationship', document, backref_name: 'pet' } } });
    const found = (document: string) => {
      const dir = writeTree({ 'api.raml': api, 'user.json': authUser, 'pet.json': linking(document) });
      return analyze(join(dir, 'api.raml'), { cwd: dir })
        .diagnostics.filter((d) => d.code === 'SVC2050')
        .map((d) => [d.severity, d.message, d.hint]);
    };
    expect(found('AuthCredential')).toEqual([
      [
        'error',
        'relationship "creds" points to AuthCredential, a model svcgen keeps for itself (no object of the API may link to it)',
        'models: Pet, User',
      ],
    ]);
    // None of svcgen's own models is offered (the note says where models come from).
    expect(found('AuthLoginNames')[0]?.[2]).toMatch(/^models: Pet, User \(a model is the schema of a resource/);
  });

  it('finds a one-to-one foreign key on either side', () => {
    const withKeyOnUser = schema({
      username: str({ primary_key: true }),
      profile_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Profile',
          ref_column: 'profile.id',
          ref_column_type: 'id_field',
        },
      },
      profile: { _db_settings: { type: 'relationship', document: 'Profile', backref_name: 'user', uselist: false } },
    });
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/profiles', 'profile.json')}`),
      'user.json': withKeyOnUser,
      'profile.json': schema({ id }),
    });
    expect(codes).toEqual([]);
    expect(model(ir, 'User').relationships[0]).toMatchObject({
      name: 'profile',
      cardinality: 'one',
      foreignKey: { model: 'User', field: 'profile_id' },
    });
    expect(model(ir, 'User').fields.find((f) => f.name === 'profile_id')!.foreignKey).toMatchObject({
      model: 'Profile',
      column: 'id',
      relationship: 'profile',
    });
  });

  it('uses foreign_keys to tell several relationships to one model apart', () => {
    const twoKeys = schema({
      username: str({ primary_key: true }),
      stories: {
        _db_settings: {
          type: 'relationship',
          document: 'Story',
          backref_name: 'owner',
          foreign_keys: 'Story.owner_id',
        },
      },
      assigned: {
        _db_settings: {
          type: 'relationship',
          document: 'Story',
          backref_name: 'assignee',
          foreign_keys: 'Story.assignee_id',
        },
      },
    });
    const fk = {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'User',
        ref_column: 'user.username',
        ref_column_type: 'string',
      },
    };
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': twoKeys,
      'story.json': schema({ id, owner_id: fk, assignee_id: fk }),
    });
    expect(codes).toEqual([]);
    expect(model(ir, 'Story').relationships.map((r) => [r.name, r.foreignKey.field])).toEqual([
      ['assignee', 'assignee_id'],
      ['owner', 'owner_id'],
    ]);
  });

  it('adds a missing foreign key, with a warning', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}${post('/stories', 'story.json')}`),
      'user.json': user,
      'story.json': schema({ id }),
    });
    expect(codes).toEqual(['SVC2057w']);
    expect(model(ir, 'Story').fields.find((f) => f.name === 'owner_username')).toMatchObject({
      type: 'foreign_key',
      synthesized: true,
    });
  });
});

describe('routes', () => {
  it('takes a resource with no method of its own that only holds others as a bare prefix (a RAML group)', () => {
    const { ir, codes } = build({
      'api.raml': raml(
        `title: T\n/admin:\n  description: What admins use\n${post('  /child-things', 'thing.json').replace(/\n  /g, '\n    ')}/empty:\n`,
      ),
      'thing.json': schema({ id }),
    });
    expect(codes).toEqual([]);
    expect(ir.routes.map((r) => r.path)).toEqual(['/admin/child-things']);
    expect(ir.models.map((m) => m.name)).toEqual(['ChildThing']);
  });

  const files = {
    'api.raml': raml(`title: T
version: v2
baseUri: http://{host}:{port}/{version}/api/
${post('/users', 'user.json')}  /{name}:
    get:
    put:
    head:
    /stories:
      get:
      post:
    /settings:
      get:
      post:
    /profile:
      get:
      post:
        body:
          application/json:
            schema: !include profile.json
${post('/stories', 'story.json')}  /{id}:
    get:
    delete:
    options:
`),
    'user.json': schema({
      username: str({ primary_key: true }),
      settings: { _db_settings: { type: 'dict' } },
      stories: { _db_settings: { type: 'relationship', document: 'Story', backref_name: 'owner' } },
      profile: { _db_settings: { type: 'relationship', document: 'Profile', backref_name: 'user', uselist: false } },
    }),
    'story.json': schema({
      id,
      owner_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'User',
          ref_column: 'user.username',
          ref_column_type: 'string',
        },
      },
    }),
    'profile.json': schema({
      id,
      user_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'User',
          ref_column: 'user.username',
          ref_column_type: 'string',
        },
      },
    }),
  };
  const { ir, codes } = build(files);

  it('takes the base path from baseUri with {version}', () => {
    expect(codes).toEqual([]);
    expect(ir.basePath).toBe('/v2/api');
  });

  // it%2Fems: a route with a percent-encoded character was reached only at it%252Fems (a probe's).
  it.each(['it:ems', 'it*ems', 'it?ems', 'it#ems', 'it ems', 'it%2Fems'])(
    'refuses the segment %s, which the router or a URL would read as syntax (SVC2016)',
    (segment) => {
      const { codes } = build({
        'api.raml': raml(`title: T\n${post(`/${segment}`, 'item.json')}`),
        'item.json': schema({ id }),
      });
      expect(codes).toEqual(['SVC2016']);
    },
  );

  // "." and ".." segments: clients resolve them away, and the service was never reached.
  it.each(['/v1/a*b', '/v1/:id', '/v1/a b', '/a%2Fb/v1', '/../v1', '/v1/./x', '/v1/..'])(
    'refuses the base path %s (SVC2027)',
    (path) => {
      const { codes } = build({
        'api.raml': raml(`title: T\nbaseUri: "http://example.com${path}"\n${post('/items', 'item.json')}`),
        'item.json': schema({ id }),
      });
      expect(codes).toEqual(['SVC2027']);
    },
  );

  it('takes dots inside a segment of the base path (/v1.2)', () => {
    const { codes } = build({
      'api.raml': raml(`title: T\nbaseUri: "http://example.com/v1.2/..x"\n${post('/items', 'item.json')}`),
      'item.json': schema({ id }),
    });
    expect(codes).toEqual([]);
  });

  it('classifies nested resources', () => {
    expect(ir.routes.map((r) => [r.kind, r.path, r.model, r.parent?.field ?? null])).toEqual([
      ['collection', '/stories', 'Story', null],
      ['item', '/stories/:id', 'Story', null],
      ['collection', '/users', 'User', null],
      ['item', '/users/:name', 'User', null],
      ['singular', '/users/:name/profile', 'Profile', 'profile'],
      ['attribute', '/users/:name/settings', 'User', 'settings'],
      ['collection', '/users/:name/stories', 'Story', 'stories'],
    ]);
  });

  it('maps each listed method to its action and permission', () => {
    expect(
      ir.routes.find((r) => r.path === '/users/:name')!.operations.map((o) => [o.method, o.action, o.permission]),
    ).toEqual([
      ['GET', 'show', 'view'],
      ['PUT', 'replace', 'update'],
      ['HEAD', 'show', 'view'],
    ]);
    expect(ir.routes.find((r) => r.path === '/stories/:id')!.operations.map((o) => o.action)).toEqual([
      'show',
      'delete',
      'item_options',
    ]);
    expect(ir.routes.find((r) => r.kind === 'item' && r.model === 'User')!.itemParam).toBe('name');
  });
});

describe('authentication and ACLs', () => {
  const api = (acl: string, extra = '') =>
    raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings: { secret: auth_tkt_secret, hashalg: sha512, cookie_name: sid, http_only: 'false' }
  - owner_acl:
      type: x-ACL
      settings:
        collection: |
${acl}
securedBy: [ticket]
${post('/items', 'item.json', '  securedBy: [owner_acl]\n')}${extra}`);
  const item = schema({ id, owner: str() });
  /** A login-cookie scheme, as a `securitySchemes` entry. */
  const TICKET = '  - ticket:\n      type: x-Ticket\n      settings: { secret: auth_tkt_secret }\n';

  it('warns of a scheme left out of the root securedBy, with a hint that keeps the others in the list', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
${TICKET}  - token:
      type: x-ApiKey
securedBy: [ticket]
/items:
  get:
`),
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2024');
    expect(found.map((d) => [d.severity, d.message, d.hint])).toEqual([
      [
        'warning',
        'security scheme "token" is declared but not in the root securedBy, so it is not used',
        'add it to the list at the root: securedBy: [ticket, token]',
      ],
    ]);
  });

  // The contract's hashalg is "sha256 at least": a probe's sha384 was an error.
  it('signs tickets with sha256, sha384 or sha512, and refuses a weaker or unknown digest', () => {
    const withHash = (hashalg: string) =>
      writeTree({
        'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings: { secret: auth_tkt_secret, hashalg: ${hashalg} }
securedBy: [ticket]
/items:
  get:
`),
      });
    for (const hashalg of ['sha256', 'SHA384', 'sha512']) {
      const dir = withHash(hashalg);
      const { ir, diagnostics } = analyze(join(dir, 'api.raml'), { cwd: dir });
      expect(
        diagnostics.filter((d) => d.code === 'SVC2025'),
        hashalg,
      ).toEqual([]);
      expect(ir?.auth?.ticket?.hashalg).toBe(hashalg.toLowerCase());
    }
    for (const hashalg of ['sha1', 'md5', 'sha3-256']) {
      const dir = withHash(hashalg);
      const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2025');
      expect(found.map((d) => d.message)).toEqual([
        `x-Ticket "hashalg" must be sha256, sha384 or sha512, not "${hashalg}"`,
      ]);
    }
  });

  it("says which Pyramid cookie settings svcgen decides, and reads a setting named like an object's own member as any other", () => {
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings: { secret: auth_tkt_secret, secure: true, constructor: 1, toString: 2 }
securedBy: [ticket]
/items:
  get:
`),
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2026');
    expect(found.map((d) => [d.message, d.hint])).toEqual([
      [
        'x-Ticket setting "secure" is decided by svcgen',
        'svcgen sets the cookie Secure on requests that came over HTTPS (behind a proxy, with http.trust_proxy), and always with auth.cookie_host_prefix',
      ],
      ['x-Ticket setting "constructor" is not used by svcgen', 'svcgen reads secret, hashalg, cookie_name, http_only'],
      ['x-Ticket setting "toString" is not used by svcgen', 'svcgen reads secret, hashalg, cookie_name, http_only'],
    ]);
  });

  it('generates the default user model and reads the ticket settings', () => {
    const { ir, codes } = build({ 'api.raml': api('          allow everyone view'), 'item.json': item });
    expect(codes).toEqual([]);
    expect(ir.auth).toEqual({
      userModel: 'User',
      apiKey: null,
      ticket: {
        scheme: 'ticket',
        secretSetting: 'auth_tkt_secret',
        hashalg: 'sha512',
        cookieName: 'sid',
        httpOnly: false,
      },
    });
    const user = model(ir, 'User');
    expect(user).toMatchObject({ isDefaultUserModel: true, isAuthModel: true, primaryKey: 'username' });
    expect(user.fields.map((f) => f.name)).toEqual(['username', 'email', 'password', 'groups']);
  });

  it('parses rules in order, expands all, reads principals', () => {
    const { ir } = build({
      'api.raml': api(
        '          allow g:Admin all\n          deny {{Item_Owner}} delete\n          allow authenticated view, create\n          allow alice options; allow everyone view',
      ),
      'item.json': item,
    });
    expect(ir.acls[0]!.collection.map((e) => [e.action, e.principal, e.permissions])).toEqual([
      ['allow', { kind: 'group', group: 'admin' }, ['view', 'create', 'update', 'delete', 'options']],
      ['deny', { kind: 'dynamic', name: 'item_owner' }, ['delete']],
      ['allow', { kind: 'authenticated' }, ['view', 'create']],
      ['allow', { kind: 'user', id: 'alice' }, ['options']],
      ['allow', { kind: 'everyone' }, ['view']],
    ]);
    expect(ir.acls[0]!.item).toEqual([]);
    expect(ir.userCode.principals).toEqual([{ name: 'item_owner', usedBy: [{ model: 'Item', acl: 'owner_acl' }] }]);
    expect(ir.routes.every((r) => r.acl === 'owner_acl')).toBe(true);
  });

  it('names no x-ACL for a resource without one when there are several to choose from (SVC2070)', () => {
    const acl = (name: string) =>
      `  - ${name}:\n      type: x-ACL\n      settings:\n        collection: allow everyone view\n`;
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
${TICKET}${acl('a_acl')}${acl('b_acl')}securedBy: [ticket]
${post('/items', 'item.json', '  securedBy: [b_acl]\n')}${post('/notes', 'item.json', '  securedBy: [a_acl]\n')}${post('/audits', 'item.json')}`),
      'item.json': item,
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2070');
    expect(found.map((d) => d.hint)).toEqual([
      'add `securedBy: [<x-ACL>]` to the resource, with the x-ACL meant for it: a_acl, b_acl',
    ]);
  });

  it('says that rules written without `|` were folded into one line', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings: { secret: auth_tkt_secret }
  - owner_acl:
      type: x-ACL
      settings:
        collection:
          allow g:admin all
          allow everyone view
securedBy: [ticket]
${post('/items', 'item.json', '  securedBy: [owner_acl]\n')}`),
      'item.json': item,
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2031');
    expect(found.map((d) => [d.message, d.hint])).toEqual([
      [
        'unknown ACL permission "all allow everyone view"',
        'the rules were read as one line: write `collection: |` (and `item: |`) so that each line is a rule of its own',
      ],
    ]);
  });

  // Each of these was once read as a user id: the rule matched no one, and no diagnostic said so.
  it.each([
    ['allow authenticted view', 'SVC2032w', 'not authenticated'],
    ['allow Everyon view', 'SVC2032w', 'not everyone'],
    ['allow {{owner update, delete', 'SVC2030', 'is not a dynamic principal'],
    ['allow owner}} view', 'SVC2030', 'is not a dynamic principal'],
    ['allow {{}} view', 'SVC2030', 'is not a dynamic principal'],
    ['allow g: view', 'SVC2030', 'names no group'],
    // A group with its `g:` forgotten or misspelt: a user of that name (anyone could register it, once).
    ['allow group:partner view', 'SVC2032w', 'not the group partner'],
    ['allow g:partner view\n          allow partner create', 'SVC2032w', 'not the group partner'],
    ['allow user view', 'SVC2032w', 'not the group user'],
    // One slip from a group: a new user's `allow organisers create` beside g:organiser, silently no one's.
    ['allow g:organiser view\n          allow organisers create', 'SVC2032w', 'not the group organiser'],
    ['allow g:editor view\n          allow edtor create', 'SVC2032w', 'not the group editor'],
  ])('says what is wrong with the principal of "%s"', (line, code, message) => {
    const dir = writeTree({ 'api.raml': api(`          ${line}`), 'item.json': item });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) =>
      ['SVC2030', 'SVC2032'].includes(d.code),
    );
    expect(found.map((d) => `${d.code}${d.severity === 'warning' ? 'w' : ''}`)).toEqual([code]);
    expect(found[0]!.message).toContain(message);
  });

  it('takes a short user name one letter from a group for the user it names (bob beside g:box)', () => {
    const dir = writeTree({
      'api.raml': api('          allow g:box view\n          allow bob create'),
      'item.json': item,
    });
    expect(analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2032')).toEqual([]);
  });
});

describe('x-ACL lines the rules never read, or read too late (SVC2093)', () => {
  /** The messages of SVC2093 for the item rules `item` (one line each). */
  const unreached = (item: string) => {
    const dir = writeTree({
      'api.raml': securedRaml(
        'Tools',
        { tools_acl: { collection: 'allow g:admin all', item } },
        post('/tools', 'tool.json', '  securedBy: [tools_acl]\n  /{id}:\n    get:\n    patch:\n'),
      ),
      'tool.json': schema({ id }),
    });
    return analyze(join(dir, 'api.raml'), { cwd: dir })
      .diagnostics.filter((d) => d.code === 'SVC2093')
      .map((d) => d.message);
  };

  it('says a deny below an allow of every logged-in user gives way, where it does (a banned member changed a tool)', () => {
    expect(unreached('allow g:admin all\nallow authenticated view, update\ndeny g:banned update')).toEqual([
      'x-ACL "tools_acl": "deny g:banned update" is never reached: "allow authenticated view, update" above it decides update for every logged-in user',
    ]);
    expect(unreached('allow authenticated view, update\ndeny g:banned all')).toEqual([
      'x-ACL "tools_acl": "deny g:banned all" is not reached for view, update: "allow authenticated view, update" above it decides them for every logged-in user, so those it names are not refused view, update',
    ]);
    // The same group or user above, and everyone: as for any line.
    expect(unreached('allow g:staff view\ndeny g:staff view')).toHaveLength(1);
    expect(unreached('allow alice update\ndeny alice all')).toHaveLength(1);
  });

  it('serves no head without get, and says so (SVC2023): it had no handler, and its 405 named HEAD in Allow', () => {
    const dir = writeTree({
      'api.raml': raml(`title: Garden
/plots:
  head:
  post:
    body:
      application/json:
        schema: !include plot.json
  /{id}:
    get:
    head:
`),
      'plot.json': schema({ id, name: str() }),
    });
    const { ir, diagnostics } = analyze(join(dir, 'api.raml'), { cwd: dir });
    expect(diagnostics.filter((d) => d.code === 'SVC2023').map((d) => d.message)).toEqual([
      'head on /plots is not served without get: a HEAD is answered as a GET, without its body',
    ]);
    const methods = (path: string) => ir!.routes.find((r) => r.ramlPath === path)!.operations.map((o) => o.method);
    expect(methods('/plots')).toEqual(['POST']);
    expect(methods('/plots/{id}')).toEqual(['GET', 'HEAD']);
  });

  it('says which rules of the named parameters it takes the service does not apply (SVC2108)', () => {
    // A probe's `_limit` of maximum 5 gave pages of 7, a required header was never asked for, and
    // an `{id}` of minimum 10 found item 3: each warned of nowhere.
    const dir = writeTree({
      'api.raml': raml(`title: Garden
/plots:
  get:
    headers:
      X-Tenant: { required: true }
      X-Trace: { description: a trace id }
    queryParameters:
      _limit: { type: integer, maximum: 5, default: 10 }
      name: { pattern: '^[a-z]+$' }
      size: { enum: [s, m] }
      _page: { type: integer }
  post:
    body:
      application/json:
        schema: !include plot.json
  /{id}:
    uriParameters:
      id: { type: integer, minimum: 10 }
    get:
`),
      'plot.json': schema({ id, name: str(), size: { _db_settings: { type: 'choice', choices: ['s', 'm', 'l'] } } }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir })
      .diagnostics.filter((d) => d.code === 'SVC2108')
      .map((d) => d.message.replace(/, which the service does not apply.*/, ''));
    expect(said).toEqual([
      'the header "X-Tenant" of get on /plots declares required: true',
      'the query parameter "_limit" of get on /plots declares maximum: 5, default: 10',
      'the query parameter "name" of get on /plots declares pattern: "^[a-z]+$"',
      'the URI parameter {id} of /plots/{id} declares minimum: 10',
    ]);
  });

  it('says which RAML query parameters the service does not take, on any method (SVC2108)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: Garden
/plots:
  get:
    queryParameters: { name__between:, name__contains:, name:, _limit:, q:, size: }
  post:
    queryParameters: { nofield: }
    body:
      application/json:
        schema: !include plot.json
  patch:
    queryParameters: { name:, q:, _limit: }
  /{id}:
    get:
      queryParameters: { _fields:, name: }
    delete:
      queryParameters: { force: }
`),
      'plot.json': schema({ id, name: str() }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir })
      .diagnostics.filter((d) => d.code === 'SVC2108')
      .map((d) => /"([^"]+)"/.exec(d.message)![1]);
    expect(said).toEqual(['name__between', 'size', 'nofield', '_limit', 'name', 'force']);
    // A URI parameter with no type written, or a text one with a pattern, claims nothing.
    const untyped = writeTree({
      'api.raml': raml(`title: Garden
/plots:
  post:
    body:
      application/json:
        schema: !include plot.json
  /{id}:
    uriParameters:
      id: { description: the id }
    get:
/beds:
  post:
    body:
      application/json:
        schema: !include plot.json
  /{id}:
    uriParameters:
      id: { type: string, pattern: '^[0-9]+$' }
    get:
`),
      'plot.json': schema({ id }),
    });
    // (Its pattern is a rule the service does not apply, said as such; not a key typed wrong.)
    expect(
      analyze(join(untyped, 'api.raml'), { cwd: untyped })
        .diagnostics.filter((d) => d.code === 'SVC2108')
        .map((d) => d.message),
    ).toEqual([
      'the URI parameter {id} of /beds/{id} declares pattern: "^[0-9]+$", which the service does not apply: it checks its parameters by its own rules',
    ]);
    // A declared enum with a value the field's choices do not have.
    const choices = writeTree({
      'api.raml': raml(`title: Garden
/plots:
  get:
    queryParameters:
      status: { enum: [free, taken, archived] }
  post:
    body:
      application/json:
        schema: !include plot.json
`),
      'plot.json': schema({ id, status: { _db_settings: { type: 'choice', choices: ['free', 'taken'] } } }),
    });
    const refused = analyze(join(choices, 'api.raml'), { cwd: choices }).diagnostics.filter(
      (d) => d.code === 'SVC2108',
    );
    expect(refused.map((d) => d.message)).toEqual([
      'the query parameter "status" of get declares "archived", which status never is: a request with it is answered 400',
    ]);
  });

  it('says a line naming the user self matches no one (SVC2106): no user may be named so', () => {
    const dir = writeTree({
      'api.raml': securedRaml(
        'Tools',
        { tools_acl: { collection: 'allow g:admin all', item: 'allow g:admin all\nallow self update' } },
        post('/tools', 'tool.json', '  securedBy: [tools_acl]\n  /{id}:\n    get:\n    patch:\n'),
      ),
      'tool.json': schema({ id }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2106');
    expect(said.map((d) => d.message)).toEqual([
      'x-ACL "tools_acl": "allow self update" names the User "self", which no user may be (/users/self is the logged-in user): the line matches no one',
    ]);
  });

  it('says nothing where the line above does not name all it names, or a deny above already refuses', () => {
    // Deny first: the rules read it first.
    expect(unreached('deny g:banned all\nallow authenticated view, update')).toEqual([]);
    // A function may grant anonymous callers, whom `authenticated` does not name.
    expect(unreached('allow authenticated view\ndeny {{blocked}} view')).toEqual([]);
    // Another group, and a user above a group.
    expect(unreached('allow g:staff view\ndeny g:banned view\nallow alice view\ndeny g:x view')).toEqual([]);
    // A deny above refuses already: the one below is not reached for view, but nothing is let through.
    expect(unreached('deny authenticated view\ndeny g:banned all')).toEqual([]);
    // A closing deny decides what the lines above leave to it: that is what it is for.
    expect(unreached('allow everyone view\nallow {{owner}} update\ndeny everyone all')).toEqual([]);
    expect(unreached('allow g:staff view\ndeny authenticated all')).toEqual([]);
  });
});

describe('events', () => {
  it('expands set and keeps list order across tags', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema(
        { id },
        {
          _event_handlers: { before_set: ['stamp'], before_create: ['owner', 'audit'], after_update_many: ['notify'] },
        },
      ),
    });
    expect(codes).toEqual([]);
    expect(model(ir, 'Item').eventHandlers).toEqual([
      { phase: 'before', action: 'create', handlers: ['stamp', 'owner', 'audit'] },
      { phase: 'before', action: 'update_many', handlers: ['stamp'] },
      { phase: 'after', action: 'update_many', handlers: ['notify'] },
      { phase: 'before', action: 'update', handlers: ['stamp'] },
      { phase: 'before', action: 'replace', handlers: ['stamp'] },
    ]);
    expect(ir.userCode.handlers.map((h) => h.name)).toEqual(['audit', 'notify', 'owner', 'stamp']);
  });

  it('says an action alone is no event tag (`set` for before_set)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id }, { _event_handlers: { set: ['stamp'], befor_create: ['owner'] } }),
    });
    const found = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2040');
    expect(found.map((d) => d.hint)).toEqual([
      'an action alone is no event: write before_set or after_set',
      'did you mean `before_create`?',
    ]);
  });
});

describe('JSON Schema references', () => {
  it("follows a local $ref: the constraints of the schema it names are checked, the property's own win", () => {
    const definitions = {
      code: { type: 'string', maxLength: 8, pattern: '^[A-Z]+$' },
      tags: { type: 'string', minLength: 2 },
    };
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema(
        {
          id,
          code: { $ref: '#/definitions/code', maxLength: 4, ...str() },
          tags: {
            type: 'array',
            items: { $ref: '#/definitions/tags' },
            _db_settings: { type: 'list', item_type: 'string' },
          },
        },
        { definitions },
      ),
    });
    expect(codes).toEqual([]);
    const fields = model(ir, 'Item').fields;
    expect(fields.find((f) => f.name === 'code')!.validation).toEqual({ maxLength: 4, pattern: '^[A-Z]+$' });
    expect(fields.find((f) => f.name === 'tags')!.validation).toEqual({ items: { type: 'string', minLength: 2 } });
  });

  it('reports a $ref it cannot follow (SVC2029) and leaves no $ref for the validator', () => {
    const { ir, codes } = build({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({
        id,
        code: { $ref: 'other.json#/code', ...str() },
        tags: { type: 'array', items: { $ref: '#/nowhere' }, _db_settings: { type: 'list', item_type: 'string' } },
      }),
    });
    expect(codes).toEqual(['SVC2029w', 'SVC2029w']);
    expect(JSON.stringify(model(ir, 'Item').fields.map((f) => f.validation))).not.toContain('$ref');
  });
});

describe('_unique_together', () => {
  const players = { _db_settings: { type: 'relationship', document: 'Player', backref_name: 'team' } };
  const api = (root: object, teamRoot: object = {}) => ({
    'api.raml': raml(`title: T\n${post('/teams', 'team.json')}${post('/players', 'player.json')}`),
    'team.json': schema({ id, name: str(), players }, teamRoot),
    'player.json': schema(
      {
        id,
        team_id: {
          _db_settings: {
            type: 'foreign_key',
            ref_document: 'Team',
            ref_column: 'team.id',
            ref_column_type: 'id_field',
          },
        },
        number: { _db_settings: { type: 'integer' } },
        positions: { _db_settings: { type: 'list', item_type: 'string' } },
      },
      root,
    ),
  });

  it('names stored fields, a link to one object by its foreign key, each set once', () => {
    const { ir, codes } = build(
      api({
        _unique_together: [
          ['team', 'number'],
          ['number', 'team_id'],
          ['id', 'number'],
        ],
      }),
    );
    expect(codes).toEqual([]);
    expect(model(ir, 'Player').uniqueTogether).toEqual([
      ['team_id', 'number'],
      ['id', 'number'],
    ]);
    expect(model(ir, 'Team').uniqueTogether).toEqual([]);
  });

  it('refuses a list field, a link to many, one field named twice and a set that is no list', () => {
    expect(build(api({ _unique_together: [['number', 'positions']] })).codes).toEqual(['SVC2089']);
    expect(build(api({ _unique_together: [['team', 'team_id']] })).codes).toEqual(['SVC2088']);
    expect(build(api({ _unique_together: 'team' })).codes).toEqual(['SVC2088']);
    expect(build(api({}, { _unique_together: [['name', 'players']] })).codes).toEqual(['SVC2089']);
  });

  it('says, of a link to many, to declare the relationship on the other model', () => {
    const dir = writeTree(api({}, { _unique_together: [['name', 'players']] }));
    const [problem] = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect(problem?.hint).toBe(
      'to link each Team to one Player, declare the relationship on Player instead (a list of Team objects, "backref_name": "players"): then Team keeps the Player\'s key, which _unique_together can compare',
    );
  });

  it('lists each field once where a name is no field', () => {
    const dir = writeTree(api({ _unique_together: [['team', 'shirt']] }));
    const [problem] = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect(problem?.code).toBe('SVC2089');
    const names = problem!.hint!.replace(/^fields of Player: /, '').split(', ');
    expect(names).toContain('team');
    expect(names).toEqual([...new Set(names)]);
  });
});

describe('privacy lists and rules written nearly right', () => {
  it('a root key nearly one of svcgen’s (`_auth_field`) is an error: the list it meant would hide nothing', () => {
    const files = (root: object) => ({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, name: str(), email: str() }, root),
    });
    expect(build(files({ _auth_field: ['name'] })).codes).toEqual(['SVC2087']);
    expect(build(files({ _public_fieldz: ['name'] })).codes).toEqual(['SVC2087']);
    expect(build(files({ _cache_ttl: 5 })).codes).toEqual(['SVC2013w']);
  });

  it('a rule inside _db_settings is an error, a description there a warning', () => {
    const files = (settings: object) => ({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, name: { type: 'string', _db_settings: { type: 'string', ...settings } } }),
    });
    for (const rule of [{ readOnly: true }, { pattern: '^a' }, { enum: ['a'] }, { maxLength: 3 }])
      expect(build(files(rule)).codes, JSON.stringify(rule)).toEqual(['SVC2090']);
    expect(build(files({ description: 'x' })).codes).toEqual(['SVC2012w']);
  });

  it("names what a slip from another type's parameter meant (max_lenght on a decimal)", () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, total: { _db_settings: { type: 'decimal', scale: 2, max_lenght: 9 } } }),
    });
    const [problem] = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect([problem?.code, problem?.severity, problem?.hint]).toEqual([
      'SVC2012',
      'warning',
      'did you mean "max_length"? It belongs to string, text, unicode, unicode_text fields, and is ignored here too',
    ]);
  });

  it("names the parameter another framework's name stands for (decimal_places for scale), an error as a slip is", () => {
    const problems = (settings: object) => {
      const dir = writeTree({
        'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
        'item.json': schema({ id, price: { _db_settings: { type: 'decimal', ...settings } } }),
      });
      return analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.severity, d.hint]);
    };
    // A new user's price kept the default scale under a warning that said only "it is ignored".
    expect(problems({ decimal_places: 2 })).toEqual([['SVC2097', 'error', 'did you mean "scale"?']]);
    expect(problems({ max_digits: 8, min: 0 })).toEqual([
      ['SVC2097', 'error', 'did you mean "precision"?'],
      ['SVC2097', 'error', 'did you mean "min_value"?'],
    ]);
    // One this type has no parameter for is still only ignored.
    expect(problems({ values: [1] })).toEqual([['SVC2012', 'warning', 'it is ignored']]);
  });

  it('says a resource whose segment has no letter or digit names no model (it said "model  for /..")', () => {
    const dir = writeTree({ 'api.raml': raml('title: T\n/..:\n  get:\n') });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.message]);
    expect(said).toContainEqual(['SVC2018', '/.. names no model: its segment has no letter or digit']);
  });

  it('names "search" for "searchable": a text field kept in full-text search under "it is ignored" (a new user’s)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
      'item.json': schema({ id, code: { _db_settings: { type: 'string', searchable: false } } }),
    });
    const said = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => [d.code, d.hint]);
    expect(said).toEqual([['SVC2097', 'did you mean "search"?']]);
  });
});

describe('_event_previous', () => {
  const files = (root: object) => ({
    'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
    'item.json': schema({ id, name: str() }, root),
  });

  it('is true or false, false when absent', () => {
    expect(model(build(files({ _event_previous: true })).ir, 'Item').eventPrevious).toBe(true);
    expect(model(build(files({})).ir, 'Item').eventPrevious).toBe(false);
    expect(build(files({ _event_previous: 'yes' })).codes).toEqual(['SVC2010']);
    // `_auth_model` is read alike: a word is no flag.
    const authYes = build(files({ _auth_model: 'yes' }));
    expect(authYes.codes).toContain('SVC2010');
    expect(model(authYes.ir, 'Item').isAuthModel).toBe(false);
  });

  it("is the default, with auth, of a model with links kept in other models' rows, not of the model that keeps them", () => {
    const auth = `securitySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: s\nsecuredBy: [ticket]\n`;
    const tree = (root: object, withAuth = true) => ({
      'api.raml': raml(
        `title: T\n${withAuth ? auth : ''}${post('/proposals', 'proposal.json')}${post('/votes', 'vote.json')}`,
      ),
      'proposal.json': schema(
        { id, votes: { _db_settings: { type: 'relationship', document: 'Vote', backref_name: 'proposal' } } },
        root,
      ),
      'vote.json': schema({
        id,
        proposal_id: {
          _db_settings: {
            type: 'foreign_key',
            ref_document: 'Proposal',
            ref_column: 'proposal.id',
            ref_column_type: 'id_field',
          },
        },
      }),
    });
    const previous = (files: Record<string, string>) =>
      ['Proposal', 'Vote'].map((name) => model(build(files).ir, name).eventPrevious);
    expect(previous(tree({}))).toEqual([true, false]);
    expect(previous(tree({ _event_previous: false }))).toEqual([false, false]);
    expect(previous(tree({}, false))).toEqual([false, false]);
  });
});

describe('privacy lists that cannot be so (SVC2092)', () => {
  it('warns of a password listed to be shown, which no answer carries', () => {
    const user = (root: object) =>
      schema(
        {
          username: { _db_settings: { type: 'string', primary_key: true } },
          email: { _db_settings: { type: 'string', required: true, unique: true } },
          password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
        },
        { _auth_model: true, ...root },
      );
    const api = (root: object) => ({
      'api.raml': raml(
        `title: T\nsecuritySchemes:\n  - ticket:\n      type: x-Ticket\n      settings:\n        secret: auth_tkt_secret\nsecuredBy: [ticket]\n${post('/users', 'user.json')}`,
      ),
      'user.json': user(root),
    });
    expect(build(api({ _auth_fields: ['username', 'password'] })).codes).toContain('SVC2092w');
    expect(build(api({ _public_fields: ['username', 'password'], _auth_fields: ['username'] })).codes).toEqual(
      expect.arrayContaining(['SVC2092w']),
    );
    expect(build(api({ _auth_fields: ['username', 'email'] })).codes).not.toContain('SVC2092w');
  });
});

describe('a foreign key without ref_column_type (SVC2011)', () => {
  it("names the type of the key it references, once that model's key is known", () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/animals', 'animal.json')}${post('/visits', 'visit.json')}`),
      'animal.json': schema({
        id,
        name: str(),
        visits: { _db_settings: { type: 'relationship', document: 'Visit', backref_name: 'animal' } },
      }),
      'visit.json': schema({
        id,
        animal_id: { _db_settings: { type: 'foreign_key', ref_document: 'Animal', ref_column: 'animal.id' } },
      }),
    });
    const problems = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics;
    expect(problems.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        'SVC2011',
        'foreign_key field "animal_id" needs "ref_column_type": the type of Animal.id',
        'write "ref_column_type": "id_field"',
      ],
    ]);
  });
});

describe('_group_fields', () => {
  const files = (root: object) => ({
    'api.raml': raml(`title: T\n${post('/items', 'item.json')}`),
    'item.json': schema({ id, name: str(), value: str(), notes: str() }, root),
  });
  const built = (root: object) => {
    const dir = writeTree(files(root));
    return analyze(join(dir, 'api.raml'), { cwd: dir });
  };

  it('reads the fields each group sees, by group as the x-ACLs name it', () => {
    const result = built({ _auth_fields: ['id', 'name'], _group_fields: { 'g:Registrar': ['value', 'value'] } });
    expect(result.diagnostics).toEqual([]);
    expect(model(result.ir!, 'Item').groupFields).toEqual([{ group: 'registrar', fields: ['value'] }]);
    expect(model(build(files({})).ir, 'Item').groupFields).toEqual([]);
  });

  it('refuses what is no group, or no list of fields, and says what a per-object reader takes', () => {
    const messages = (root: object) => built(root).diagnostics.map((d) => `${d.code} ${d.message} | ${d.hint ?? ''}`);
    expect(messages({ _auth_fields: ['id'], _group_fields: { registrar: ['value'] } })).toEqual([
      'SVC2006 "registrar" in "_group_fields" is not a group | a group is named as the x-ACLs name it: "g:registrar"',
    ]);
    expect(messages({ _auth_fields: ['id'], _group_fields: { '{{owner}}': ['value'] } })[0]).toMatch(
      /^SVC2006 .*not a group \| .*per kind of caller, not per object.*one-to-one/,
    );
    expect(built({ _group_fields: ['value'] }).diagnostics.map((d) => d.code)).toEqual(['SVC2006']);
    const twice = built({ _auth_fields: ['id'], _group_fields: { 'g:HR': ['value'], 'g:hr': ['notes'] } });
    expect(twice.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['SVC2006', '"g:hr" in "_group_fields" names g:hr again'],
    ]);
    expect(built({ _auth_fields: ['id'], _group_fields: { 'g:x': 'value' } }).diagnostics.map((d) => d.code)).toEqual([
      'SVC2006',
    ]);
    const unknown = built({ _auth_fields: ['id'], _group_fields: { 'g:x': ['valeu'] } }).diagnostics;
    expect(unknown.map((d) => [d.code, d.message, d.hint])).toEqual([
      ['SVC2061', '"valeu" in _group_fields of g:x is not a field of Item', 'did you mean `value`?'],
    ]);
  });

  it("warns that a user sees their own record's group fields, and may write them (SVC2092)", () => {
    const dir = writeTree({
      'api.raml': raml(`title: T\n${post('/users', 'user.json')}`),
      'user.json': schema(
        {
          username: { _db_settings: { type: 'string', primary_key: true } },
          email: { _db_settings: { type: 'string', required: true, unique: true } },
          password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
          salary: { _db_settings: { type: 'integer' } },
          grade: { readOnly: true, _db_settings: { type: 'integer' } },
        },
        { _auth_model: true, _auth_fields: ['username'], _group_fields: { 'g:hr': ['salary', 'grade', 'groups'] } },
      ),
    });
    const problems = analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.filter((d) => d.code === 'SVC2092');
    // A read-only field, and their groups (which only admins change), the user sees but does not write.
    const sees =
      '_group_fields of User shows "%s" to g:hr, but a user sees all of their own record: the user it describes sees it too';
    expect(problems.map((d) => [d.message, d.hint?.includes('readOnly') ?? false])).toEqual([
      [`${sees.replace('%s', 'salary')}, and may write it`, true],
      [sees.replace('%s', 'grade'), false],
      [sees.replace('%s', 'groups'), false],
    ]);
    // Judged, the schema silences them (it has no comments to say it on the line).
    const judged = JSON.parse(readFileSync(join(dir, 'user.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'user.json'), JSON.stringify({ ...judged, _svcgen_ignore: ['SVC2092'] }));
    expect(analyze(join(dir, 'api.raml'), { cwd: dir }).diagnostics.map((d) => d.code)).not.toContain('SVC2092');
  });

  it('warns of an entry that shows its group nothing more (SVC2092)', () => {
    const warnings = (root: object) => built(root).diagnostics.map((d) => `${d.code}${d.severity[0]} ${d.message}`);
    expect(warnings({ _group_fields: { 'g:x': ['value'] } })).toEqual([
      'SVC2092w _group_fields of Item shows "value" to g:x, but without _auth_fields every member sees every field',
    ]);
    expect(warnings({ _auth_fields: ['id', 'value'], _group_fields: { 'g:x': ['value'] } })).toEqual([
      'SVC2092w _group_fields of Item shows "value" to g:x, but _auth_fields shows it to every member',
    ]);
    expect(
      warnings({ _auth_fields: ['id'], _hidden_fields: ['notes'], _group_fields: { 'g:x': ['notes', 'value'] } }),
    ).toEqual(['SVC2092w _group_fields of Item shows "notes" to g:x, but _hidden_fields shows it to admins only']);
  });
});

describe('a stranger shown more than a member (SVC2092)', () => {
  const files = (root: object, view = 'allow everyone view') => ({
    'api.raml': securedRaml(
      'Clinic',
      { records: { collection: `allow g:admin all\n${view}`, item: `allow g:admin all\n${view}` } },
      `\n/records:\n  securedBy: [records]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include record.json\n  /{id}:\n    get:\n`,
    ),
    'record.json': schema({ id, diagnosis: str(), internal_note: str() }, root),
  });
  const warnings = (root: object, view?: string) => {
    const dir = writeTree(files(root, view));
    return analyze(join(dir, 'api.raml'), { cwd: dir })
      .diagnostics.filter((d) => d.code === 'SVC2092')
      .map((d) => `${d.message} | ${d.hint ?? ''}`);
  };

  it('warns where anonymous callers may view objects whose fields members are not all shown, for want of _public_fields', () => {
    expect(warnings({ _auth_fields: ['id', 'diagnosis'] })).toEqual([
      'Record has no _public_fields, so anonymous callers see every field, "internal_note" too, which members are not shown, and the x-ACL of /records lets them view it | list what anonymous callers see: "_public_fields": ["id","diagnosis"] (or [] for none)',
    ]);
    // A group's field is one other members are not shown.
    expect(warnings({ _auth_fields: ['id', 'diagnosis'], _group_fields: { 'g:vet': ['internal_note'] } })).toHaveLength(
      1,
    );
  });

  it('says nothing where _public_fields is given, members see every field, or anonymous callers may not view', () => {
    expect(warnings({ _auth_fields: ['id', 'diagnosis'], _public_fields: ['id'] })).toEqual([]);
    expect(warnings({})).toEqual([]);
    expect(warnings({ _auth_fields: ['id', 'diagnosis'], _hidden_fields: ['internal_note'] })).toEqual([]);
    expect(warnings({ _auth_fields: ['id', 'diagnosis'] }, 'allow authenticated view')).toEqual([]);
    expect(warnings({ _auth_fields: ['id', 'diagnosis'] }, 'deny everyone view\nallow everyone view')).toEqual([]);
  });
});

describe('model names the generated TypeScript takes (SVC2077)', () => {
  it('refuses Model and ModelRepository, which the repository types name', () => {
    for (const path of ['/models', '/model-repositories']) {
      const files = { 'api.raml': raml(`title: T\n${post(path, 'm.json')}`), 'm.json': schema({ id, name: str() }) };
      expect(build(files).codes, path).toContain('SVC2077');
    }
  });
});
