/**
 * A create through a flat route (`POST /plots`) whose body puts the object below a parent (its
 * `garden`, where `/gardens/{id}/plots` creates plots below a garden) gives the collection rules
 * that parent (`rule.parent`), as the nested route does: a garden's coordinator creates plots in
 * her garden either way, and in no other. A new user's coordinator was refused on the flat route
 * while the ACL matrix said she could (the principal was asked with no parent). SQLite, auth on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gardenFiles, gardenService, type GardenService } from '../support/gardens.js';
import type { Api } from '../support/http.js';

const FILES_PLOT_ACL = {
  collection: 'allow g:admin all\nallow {{garden_coordinator}} create\nallow authenticated view',
  item: 'allow g:admin all\nallow authenticated view',
};

const FILES = gardenFiles({
  // Every member views every garden here; below, only its coordinator does.
  plotAcl: FILES_PLOT_ACL,
  flat: true,
});

/** `{{garden_coordinator}}`: the coordinator of the garden a plot is made in. */
const COORDINATOR = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Plot } from '../../models/plot.js';

export function gardenCoordinator(_request: FastifyRequest, _object: Plot | undefined, rule: AclRule): AclResult {
  if (rule.parentModel !== 'Garden') return undefined;
  const coordinator = rule.parent?.['coordinator'];
  return typeof coordinator === 'string' ? grant(rule, user(coordinator)) : undefined;
}
`;

/** `{{garden_coordinator}}` on a garden too: its coordinator (the gardens' item rules, below). */
const COORDINATOR_OF_EITHER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { GardenCoordinatorObject } from '../../principals.js';

export function gardenCoordinator(
  _request: FastifyRequest,
  object: GardenCoordinatorObject | undefined,
  rule: AclRule,
): AclResult {
  const garden = rule.parentModel === 'Garden' ? rule.parent : (object as Readonly<Record<string, unknown>> | undefined);
  const coordinator = garden?.['coordinator'];
  return typeof coordinator === 'string' ? grant(rule, user(coordinator)) : undefined;
}
`;

describe('a create on a flat route that puts its object below a parent', () => {
  let garden: GardenService;
  const api: Api = (...args) => garden.api(...args);
  const as = (name: string) => garden.as(name);

  beforeAll(async () => {
    garden = await gardenService(FILES, 'e2e-flat-create-parent', {
      file: 'src/custom/principals/garden-coordinator.ts',
      text: COORDINATOR,
    });
  }, 600_000);

  afterAll(() => garden?.stop());

  it('gives its rules the parent, as the nested route does: the coordinator creates in her garden alone', async () => {
    const nested = await api('POST', `/gardens/${garden.coras}/plots`, { number: 1 }, as('cora'));
    expect(nested.status, nested.text).toBe(201);
    const flat = await api('POST', '/plots', { number: 2, garden: garden.coras }, as('cora'));
    expect([flat.status, flat.body.garden], flat.text).toEqual([201, garden.coras]);
    for (const body of [{ number: 3, garden: garden.bens }, { number: 4 }]) {
      const refused = await api('POST', '/plots', body, as('cora'));
      expect(refused.status, `${JSON.stringify(body)}: ${refused.text}`).toBe(403);
    }
    // A garden that is not there: the 400 of a link to nothing, before any rule is asked.
    const missing = await api('POST', '/plots', { number: 5, garden: 999999 }, as('cora'));
    expect([missing.status, missing.body.message]).toEqual([400, 'garden: Garden 999999 not found']);
    const listed = await api('GET', `/gardens/${garden.bens}/plots`, undefined, as('root'));
    expect(listed.body.total).toBe(0);
  });
});

/**
 * A parent the caller may not view is one that does not exist, on a flat create too: the same 400
 * as a key that names nothing. A probe's hidden parent got a 403 (its rules were asked with it)
 * where a missing one got the 400, which told a hidden object from a missing one, with
 * `auth.hide_refused` on too.
 */
describe('a create on a flat route that names a parent the caller may not view', () => {
  let garden: GardenService;
  const api: Api = (...args) => garden.api(...args);
  const as = (name: string) => garden.as(name);

  beforeAll(async () => {
    const files = gardenFiles({
      plotAcl: FILES_PLOT_ACL,
      gardenAcl: {
        // Item rules fall back on the collection's: members may not list gardens here.
        collection: 'allow g:admin all',
        item: 'allow g:admin all\nallow {{garden_coordinator}} view',
      },
      flat: true,
    });
    garden = await gardenService(files, 'e2e-flat-create-hidden-parent', {
      file: 'src/custom/principals/garden-coordinator.ts',
      text: COORDINATOR_OF_EITHER,
    });
  }, 600_000);

  afterAll(() => garden?.stop());

  it('is answered as a garden that does not exist: 400 naming the field, whatever the rules would say', async () => {
    const seen = await api('GET', `/gardens/${garden.bens}`, undefined, as('cora'));
    expect(seen.status, seen.text).toBe(403);
    const hidden = await api('POST', '/plots', { number: 1, garden: garden.bens }, as('cora'));
    const missing = await api('POST', '/plots', { number: 1, garden: 999999 }, as('cora'));
    expect([hidden.status, hidden.body.message]).toEqual([400, `garden: Garden ${garden.bens} not found`]);
    expect([missing.status, missing.body.message]).toEqual([400, 'garden: Garden 999999 not found']);
    const own = await api('POST', '/plots', { number: 2, garden: garden.coras }, as('cora'));
    expect(own.status, own.text).toBe(201);
    const listed = await api('GET', `/gardens/${garden.bens}/plots`, undefined, as('root'));
    expect(listed.body.total).toBe(0);
  });
});
