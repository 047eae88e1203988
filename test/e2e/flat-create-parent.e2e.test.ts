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

const FILES = gardenFiles({
  plotAcl: {
    collection: 'allow g:admin all\nallow {{garden_coordinator}} create\nallow authenticated view',
    item: 'allow g:admin all\nallow authenticated view',
  },
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
    for (const body of [{ number: 3, garden: garden.bens }, { number: 4 }, { number: 5, garden: 999999 }]) {
      const refused = await api('POST', '/plots', body, as('cora'));
      expect(refused.status, `${JSON.stringify(body)}: ${refused.text}`).toBe(403);
    }
    const listed = await api('GET', `/gardens/${garden.bens}/plots`, undefined, as('root'));
    expect(listed.body.total).toBe(0);
  });
});
