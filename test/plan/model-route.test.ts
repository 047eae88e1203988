/**
 * Which route's x-ACL decides on a model's objects met away from their own routes (embedded,
 * linked, the parent of a nested create): src/acl/model-route.ts, generated into each model as
 * `aclRoute` and read by the runtime (lib/http/policy.ts `modelRoute`), and used by the ACL matrix.
 * A model served only below a parent (`/projects/{id}/tasks/{tid}`) is decided by its item rules:
 * by its nested collection's, a member could link a new object to another member's private task,
 * taking its one-to-one partner's place, and learn which hidden keys exist (a probe found it;
 * test/e2e/nested-private.e2e.test.ts tries it on a running service).
 */
import { describe, expect, it } from 'vitest';
import { aclMatrix } from '../../src/acl/matrix.js';
import { modelRoute } from '../../src/acl/model-route.js';
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
