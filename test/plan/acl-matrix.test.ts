/**
 * The ACL matrix (src/acl/matrix.ts), which `svcgen inspect --acl` prints and the generated
 * test/acl.test.ts checks the service against, decides a create below a parent as the runtime does:
 * where the new object becomes the parent's one-to-one partner, the caller must also be able to
 * update the parent (runtime/src/lib/http/relinks.ts); on the parent's to-many side, not. Below
 * a parent whose own parent the caller may not view, what is not refused first is that parent's
 * refusal (a 404 where its rules read it), as the runtime finds a parent only among the objects of
 * the one above it (RouteContext.parent).
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aclMatrix, printMatrix, type MatrixRow } from '../../src/acl/matrix.js';
import { serviceModel } from '../support/generated.js';
import { raml, securedRaml, writeTree } from '../support/files.js';
import { fixtureRaml } from '../support/project.js';

const rows = aclMatrix(serviceModel(fixtureRaml('library')));
const row = (method: string, path: string): MatrixRow => {
  const found = rows.find((r) => r.operation.method === method && r.route.ramlPath === path);
  if (!found) throw new Error(`no row ${method} ${path}`);
  return found;
};

describe('the ACL matrix of creates below a parent', () => {
  it('asks for the parent`s update where the new object becomes its one-to-one partner', () => {
    const featured = row('POST', '/books/{id}/featured_note');
    // notes_acl lets members create; books_acl lets only a book's owner (and admins) update it.
    expect(featured.outcomes).toEqual({ anonymous: 401, member: 403, owner: 'allow', admin: 'allow' });
    expect(featured.lines.member).toBe('(linking to the parent: deny authenticated update, delete)');
  });

  it('does not where the parent has many of them, nor where there is no parent', () => {
    expect(row('POST', '/books/{id}/notes').outcomes).toEqual({
      anonymous: 401,
      member: 'allow',
      owner: 'allow',
      admin: 'allow',
    });
    expect(row('POST', '/authors/{id}/books').outcomes.member).toBe('allow');
    expect(row('POST', '/books').outcomes.member).toBe('allow');
  });
});

describe('the ACL matrix two levels down', () => {
  it('answers a grandparent`s own refusal below it where its rules refuse whatever it is, whatever the parent`s rules', () => {
    // The workshop with projects only admins may view: a task's owner still cannot reach its checklist,
    // and is told so as the project's own URL tells her (a probe's front end could not tell "log in"
    // from "missing" where every hidden parent was a 404).
    const dir = mkdtempSync(join(tmpdir(), 'svcgen-matrix-'));
    cpSync(join(fixtureRaml('workshop'), '..'), dir, { recursive: true });
    const raml = join(dir, 'api.raml');
    const projectsItem =
      '            item: |\n                allow g:admin all\n                allow authenticated view\n';
    const text = readFileSync(raml, 'utf8');
    expect(text).toContain(projectsItem);
    writeFileSync(raml, text.replace(projectsItem, `${projectsItem.split('allow auth')[0]}deny everyone all\n`));
    const found = aclMatrix(serviceModel(raml));
    const outcomes = (method: string, path: string) =>
      found.find((r) => r.operation.method === method && r.route.ramlPath === path)!.outcomes;
    const hidden = { anonymous: 401, member: 403, owner: 403, admin: 'allow' };
    expect(outcomes('GET', '/projects/{id}/tasks/{tid}')).toEqual(hidden);
    expect(outcomes('GET', '/projects/{id}/tasks/{tid}/checklist')).toEqual(hidden);
    expect(outcomes('POST', '/projects/{id}/tasks/{tid}/checklist')).toEqual(hidden);
  });
});

describe('the ACL matrix of OPTIONS', () => {
  it('decides it on an item as GET is, by the item rules, even where they call user code', () => {
    const workshop = aclMatrix(serviceModel(fixtureRaml('workshop')));
    const options = workshop.find(
      (r) => r.operation.method === 'OPTIONS' && r.route.ramlPath === '/projects/{id}/tasks/{tid}',
    );
    expect(options?.scope).toBe('item');
    // Anonymous callers may not view the project, whatever it is: its own 401.
    expect(options?.outcomes).toEqual({ anonymous: 401, member: 403, owner: 'allow', admin: 'allow' });
  });
});

describe('the members of the ACL matrix', () => {
  const api = (groups: string[] | undefined) => {
    const dir = writeTree({
      'api.raml': raml(`title: Shows
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - shows_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow g:listener view
          allow g:user create
securedBy: [ticket]
/shows:
  securedBy: [shows_acl]
  get:
  post:
    body:
      application/json:
        schema: !include show.json
/users:
  post:
    body:
      application/json:
        schema: !include user.json
`),
      'show.json': JSON.stringify({
        type: 'object',
        properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
      }),
      'user.json': JSON.stringify({
        type: 'object',
        _auth_model: true,
        properties: {
          username: { _db_settings: { type: 'string', primary_key: true, required: true } },
          email: { _db_settings: { type: 'string', required: true, unique: true } },
          password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
          groups: { _db_settings: { type: 'list', item_type: 'string', ...(groups ? { default: groups } : {}) } },
        },
      }),
    });
    const ir = serviceModel(join(dir, 'api.raml'));
    const matrix = aclMatrix(ir);
    const member = (method: string) => matrix.find((r) => r.operation.method === method)!.outcomes.member;
    return { ir, member };
  };

  it("are in the groups a new user gets, the user model's groups default: what a registered member has", () => {
    const listeners = api(['listener']);
    expect([listeners.member('GET'), listeners.member('POST')]).toEqual(['allow', 403]);
    expect(printMatrix(listeners.ir, aclMatrix(listeners.ir))).toContain('the groups a new user gets ("listener")');
    const users = api(['user']);
    expect([users.member('GET'), users.member('POST')]).toEqual([403, 'allow']);
    // A groups field without a default: registration gives none, so g:user grants a member nothing.
    const none = api(undefined);
    expect([none.member('GET'), none.member('POST')]).toEqual([403, 403]);
    expect(printMatrix(none.ir, aclMatrix(none.ir))).toContain('the groups a new user gets (none)');
  });
});

describe('the ACL matrix of a principal that may let anonymous callers in', () => {
  it('marks 401* where the rules ask a principal before they refuse, and says who', () => {
    // A public catalogue: {{on_display}} grants everyone an object on display (a probe's matrix said 401).
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
          allow g:admin all
          allow {{on_display}} view
        item: |
          allow g:admin all
          allow {{on_display}} view
          deny everyone all
  - staff_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          deny everyone all
          allow {{on_display}} view
securedBy: [ticket]
/objects:
  securedBy: [objects_acl]
  get:
  post:
    body:
      application/json:
        schema: !include object.json
  /{id}:
    get:
/notes:
  securedBy: [staff_acl]
  get:
  post:
    body:
      application/json:
        schema: !include note.json
`),
      'note.json': JSON.stringify({
        type: 'object',
        properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
      }),
      'object.json': JSON.stringify({
        type: 'object',
        properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
      }),
    });
    const ir = serviceModel(join(dir, 'api.raml'));
    const matrix = aclMatrix(ir);
    const of = (method: string, path: string) =>
      matrix.find((r) => r.operation.method === method && r.route.ramlPath === path)!;
    expect(of('GET', '/objects').anonymousUnless).toBe('{{on_display}}');
    expect(of('GET', '/objects/{id}').anonymousUnless).toBe('{{on_display}}');
    // Not asked for a create, nor after a line that refuses everyone first.
    expect(of('POST', '/objects').anonymousUnless).toBeNull();
    expect(of('GET', '/notes').anonymousUnless).toBeNull();
    // Who the owner column stands for, principal by principal.
    expect(of('GET', '/objects').principals).toEqual(['{{on_display}}']);
    const printed = printMatrix(ir, matrix);
    expect(printed).toMatch(/GET\s+\/objects\s+objects_acl\s+401\*/);
    expect(printed).toContain('401*: refused unless {{on_display}} lets anonymous callers in');
  });
});

describe('the ACL matrix of several principals on one route', () => {
  it('says which principals let the owner in, per method (a GM deletes a character, its player does not)', () => {
    const dir = writeTree({
      'api.raml': raml(`title: Campaigns
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - characters_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view, create
        item: |
          allow g:admin all
          allow {{campaign_gm}} all
          allow {{player}} view, update
          deny everyone all
securedBy: [ticket]
/characters:
  securedBy: [characters_acl]
  get:
  post:
    body:
      application/json:
        schema: !include character.json
  /{id}:
    get:
    patch:
    delete:
`),
      'character.json': JSON.stringify({
        type: 'object',
        properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
      }),
    });
    const ir = serviceModel(join(dir, 'api.raml'));
    const matrix = aclMatrix(ir);
    const by = (method: string) =>
      matrix.find((r) => r.operation.method === method && r.route.ramlPath === '/characters/{id}')!.principals;
    expect([by('GET'), by('PATCH'), by('DELETE')]).toEqual([
      ['{{campaign_gm}}', '{{player}}'],
      ['{{campaign_gm}}', '{{player}}'],
      ['{{campaign_gm}}'],
    ]);
    expect(printMatrix(ir, matrix)).toMatch(
      /DELETE\s+\/characters\/\{id\}\s+characters_acl\s+401\*\s+403\s+allow\s+allow\s+\{\{campaign_gm\}\}$/m,
    );
  });
});

describe('the ACL matrix of a dict or list field’s own route', () => {
  /** A pet whose `flags` (a list) only vets see, whose `tags` are read-only and `chips` write-once, each with its route. */
  const matrix = () => {
    const dir = writeTree({
      'api.raml': securedRaml(
        'Clinic',
        {
          pets_acl: {
            collection: 'allow g:admin all\nallow authenticated view',
            item: 'allow g:admin all\nallow authenticated view, update',
          },
        },
        `/pets:
  securedBy: [pets_acl]
  post:
    body:
      application/json:
        schema: !include pet.json
  /{id}:
    get:
    /flags:
      get:
      post:
    /tags:
      get:
      post:
    /chips:
      get:
      post:
`,
      ),
      'pet.json': JSON.stringify({
        type: 'object',
        _auth_fields: ['id', 'tags'],
        _group_fields: { 'g:vet': ['flags'] },
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          flags: { _db_settings: { type: 'list', item_type: 'string', default: [] } },
          tags: { readOnly: true, _db_settings: { type: 'list', item_type: 'string', default: [] } },
          chips: { _write_once: true, _db_settings: { type: 'list', item_type: 'string', default: [] } },
        },
      }),
    });
    return aclMatrix(serviceModel(join(dir, 'api.raml')));
  };
  const outcome = (rows: readonly MatrixRow[], method: string, path: string) =>
    rows.find((r) => r.operation.method === method && r.route.ramlPath === path)!;

  it('lets only admins write a read-only field, as the service does (a generated test said its owner could)', () => {
    const rows = matrix();
    const write = outcome(rows, 'POST', '/pets/{id}/tags');
    expect(write.outcomes).toEqual({ anonymous: 401, member: 403, owner: 403, admin: 'allow' });
    expect(write.lines.member).toBe('(read-only: tags)');
    expect(outcome(rows, 'GET', '/pets/{id}/tags').outcomes.member).toBe('allow');
  });

  it('lets only admins merge into a write-once field: the merge changes an object that exists', () => {
    const rows = matrix();
    const write = outcome(rows, 'POST', '/pets/{id}/chips');
    expect(write.outcomes).toEqual({ anonymous: 401, member: 403, owner: 403, admin: 'allow' });
    expect(write.lines.member).toBe('(write-once: chips)');
  });

  it('lets in the groups whose _group_fields show the field', () => {
    const rows = matrix();
    for (const method of ['GET', 'POST']) {
      const row = outcome(rows, method, '/pets/{id}/flags');
      expect([row.outcomes.member, row.groupsAllowed], method).toEqual([403, ['vet']]);
    }
  });
});
