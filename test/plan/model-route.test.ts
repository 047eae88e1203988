/**
 * Which route's x-ACL decides on a model's objects met away from their own routes (embedded,
 * linked, the parent of a nested create): src/ir/model-route.ts, generated into each model as
 * `aclRoute` and read by the runtime (lib/http/policy.ts `modelRoute`), and used by the ACL matrix.
 * A model served only below a parent (`/projects/{id}/tasks/{tid}`) is decided by its item rules:
 * by its nested collection's, a member could link a new object to another member's private task,
 * taking its one-to-one partner's place, and learn which hidden keys exist (a probe found it;
 * test/e2e/nested-private.e2e.test.ts tries it on a running service).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aclMatrix } from '../../src/acl/matrix.js';
import { modelRoute, modelRules } from '../../src/ir/model-route.js';
import { createdBelow } from '../../src/plan/models/model-file.js';
import { raml, writeTree } from '../support/files.js';
import { serviceModel } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

// fixtures/workshop: projects open to members; tasks only below a project, each its owner's alone,
// with a one-to-one checklist below it.
const ir = serviceModel(fixtureRaml('workshop'));
const model = (name: string) => ir.models.find((m) => m.name === name)!;

describe('the route whose rules decide on a model`s objects', () => {
  it('is a route of one object, nested or not, before any collection', () => {
    expect(modelRoute(ir, model('Project'))).toMatchObject({ kind: 'item', ramlPath: '/projects/{id}' });
    // Served only below a project: its nested item route, not its nested collection.
    expect(modelRoute(ir, model('Task'))).toMatchObject({ kind: 'item', ramlPath: '/projects/{id}/tasks/{tid}' });
    expect(modelRoute(ir, model('Checklist'))).toMatchObject({ kind: 'singular' });
  });

  it('makes the matrix answer a member below a private task as the runtime does: the task`s 404', () => {
    const create = aclMatrix(ir).find(
      (r) => r.operation.method === 'POST' && r.route.ramlPath === '/projects/{id}/tasks/{tid}/checklist',
    )!;
    // The collection rules let members create; the task's item rules hide it from all but its owner.
    expect(create.outcomes).toEqual({ anonymous: 401, member: 404, owner: 'allow', admin: 'allow' });
    expect(create.lines.member).toBe('(the parent is hidden: deny everyone all)');
  });
});

describe('whether a route updates a model`s objects', () => {
  it('is a PATCH or PUT of an item, a singular or a collection, not of a dict or list field', () => {
    // Tasks have a PATCH below their project; projects are served with GET and POST only.
    expect(modelRules(ir, model('Task'))).toMatchObject({ kind: 'item', updatable: true });
    expect(modelRules(ir, model('Project'))).toMatchObject({ kind: 'item', updatable: false });
    const library = serviceModel(fixtureRaml('library'));
    const rules = (name: string) =>
      modelRules(
        library,
        library.models.find((m) => m.name === name)!,
      );
    expect(rules('Note')).toMatchObject({ kind: 'item', updatable: true });
    // A model served with GET and POST alone: its objects change only by admins (relinks.ts).
    const readOnly = {
      ...library,
      routes: library.routes.map((r) => ({ ...r, operations: r.operations.filter((o) => o.permission !== 'update') })),
    };
    expect(
      modelRules(
        readOnly,
        readOnly.models.find((m) => m.name === 'Note')!,
      )?.updatable,
    ).toBe(false);
  });
});

describe('the rules that decide who may change or delete a model`s objects elsewhere', () => {
  it('are those of the route that changes or deletes them, where it is not the one that decides on them', () => {
    const schema = JSON.stringify({
      type: 'object',
      properties: { id: { _db_settings: { type: 'id_field', primary_key: true } } },
    });
    const acl = (name: string, rules: string) =>
      `  - ${name}:\n      type: x-ACL\n      settings:\n        collection: |\n          ${rules}\n        item: |\n          ${rules}\n`;
    const dir = writeTree({
      'api.raml': raml(`title: T
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
${acl('open', 'allow authenticated all')}${acl('admins', 'allow g:admin all')}securedBy: [ticket]
/boxes:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include box.json
  /{id}:
    get:
/crates:
  securedBy: [open]
  get:
  post:
    body:
      application/json:
        schema: !include crate.json
  /{id}:
    get:
    /boxes:
      securedBy: [admins]
      get:
      /{bid}:
        get:
        patch:
        delete:
`),
      'box.json': schema,
      'crate.json': JSON.stringify({
        type: 'object',
        properties: {
          id: { _db_settings: { type: 'id_field', primary_key: true } },
          boxes: { _db_settings: { type: 'relationship', document: 'Box', backref_name: 'crate' } },
        },
      }),
    });
    const service = serviceModel(join(dir, 'api.raml'));
    const rules = modelRules(
      service,
      service.models.find((m) => m.name === 'Box')!,
    )!;
    // The top-level item route decides on a box (it only reads); the nested one, for admins, changes and deletes.
    expect(rules).toMatchObject({ kind: 'item', acl: 'open', updatable: true, deletable: true });
    expect([rules.updateRules, rules.deleteRules]).toEqual([
      { kind: 'item', acl: 'admins' },
      { kind: 'item', acl: 'admins' },
    ]);
  });
});

describe('the nested routes that create a model`s objects below the target of its link', () => {
  const below = (service: typeof ir, name: string, link: string) => {
    const m = service.models.find((candidate) => candidate.name === name)!;
    return createdBelow(
      service,
      m,
      m.relationships.find((r) => r.name === link)!,
    ).createdBelow;
  };

  it('are the nested collections and singular routes with a POST that follow the link back', () => {
    expect(below(ir, 'Task', 'project')).toEqual([{ kind: 'collection', acl: 'private_acl' }]);
    expect(below(ir, 'Checklist', 'task')).toEqual([{ kind: 'singular', acl: 'private_acl' }]);
    const library = serviceModel(fixtureRaml('library'));
    expect(below(library, 'Note', 'book')).toEqual([{ kind: 'collection', acl: 'notes_acl' }]);
    expect(below(library, 'Note', 'featured_in')).toEqual([{ kind: 'singular', acl: 'notes_acl' }]);
  });

  it('are none for a link no nested route follows, and on the side that does not hold the key', () => {
    const library = serviceModel(fixtureRaml('library'));
    expect(below(library, 'Note', 'reply_to')).toBeUndefined();
    expect(below(library, 'Book', 'notes')).toBeUndefined();
    expect(below(ir, 'Project', 'tasks')).toBeUndefined();
  });
});
