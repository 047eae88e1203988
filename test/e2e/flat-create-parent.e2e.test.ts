/**
 * A create through a flat route (`POST /plots`) whose body puts the object below a parent (its
 * `garden`, where `/gardens/{id}/plots` creates plots below a garden) gives the collection rules
 * that parent (`rule.parent`), as the nested route does: a garden's coordinator creates plots in
 * her garden either way, and in no other. A new user's coordinator was refused on the flat route
 * while the ACL matrix said she could (the principal was asked with no parent). SQLite, auth on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gardenFiles } from '../support/gardens.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

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
  let served: ServedApi;
  let tokens: Map<string, string>;
  let coras: number;
  let bens: number;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-flat-create-parent', {
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/principals/garden-coordinator.ts'), COORDINATOR),
    });
    tokens = await memberTokens(api, ['cora', 'ben']);
    coras = (await api('POST', '/gardens', { coordinator: 'cora' }, as('root'))).body.id as number;
    bens = (await api('POST', '/gardens', { coordinator: 'ben' }, as('root'))).body.id as number;
  }, 600_000);

  afterAll(() => served?.stop());

  it('gives its rules the parent, as the nested route does: the coordinator creates in her garden alone', async () => {
    const nested = await api('POST', `/gardens/${coras}/plots`, { number: 1 }, as('cora'));
    expect(nested.status, nested.text).toBe(201);
    const flat = await api('POST', '/plots', { number: 2, garden: coras }, as('cora'));
    expect([flat.status, flat.body.garden], flat.text).toEqual([201, coras]);
    for (const body of [{ number: 3, garden: bens }, { number: 4 }, { number: 5, garden: 999999 }]) {
      const refused = await api('POST', '/plots', body, as('cora'));
      expect(refused.status, `${JSON.stringify(body)}: ${refused.text}`).toBe(403);
    }
    const listed = await api('GET', `/gardens/${bens}/plots`, undefined, as('root'));
    expect(listed.body.total).toBe(0);
  });
});
