/**
 * A create below a parent (`POST /gardens/{id}/plots`) whose before_create handler sets the link to
 * that parent to another object: the URL's parent overruled the handler after it ran, so a member
 * created objects as someone else (a dating-app attacker's like "from" another user). Now refused,
 * 403, and nothing is written; below the parent the handler chooses, the create goes through.
 * SQLite, auth on.
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
    collection: 'allow g:admin all\nallow authenticated view, create',
    item: 'allow g:admin all\nallow authenticated view',
  },
  plot: { _event_handlers: { before_create: ['own_garden'] } },
  gardenId: { readOnly: true },
});

/** Every plot goes to the garden its creator coordinates. */
const OWN_GARDEN = `import type { OwnGardenEvent } from '../../events.js';

export async function ownGarden(event: OwnGardenEvent): Promise<void> {
  const user = event.view.request.user;
  const garden = user ? await event.db.garden.findFirst({ where: { coordinator: String(user['username']) } }) : null;
  if (garden) event.setFieldValue('garden', garden.id);
}
`;

describe('a create below a parent whose handler links it to another', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  let coras: number;
  let bens: number;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-nested-create-handler', {
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/handlers/own-garden.ts'), OWN_GARDEN),
    });
    tokens = await memberTokens(api, ['cora', 'ben']);
    coras = (await api('POST', '/gardens', { coordinator: 'cora' }, as('root'))).body.id as number;
    bens = (await api('POST', '/gardens', { coordinator: 'ben' }, as('root'))).body.id as number;
  }, 600_000);

  afterAll(() => served?.stop());

  it("is refused where the URL names another parent than the handler's, and made below the handler's", async () => {
    const below = (garden: number) => api('POST', `/gardens/${garden}/plots`, { number: 7 }, as('cora'));
    const refused = await below(bens);
    expect([refused.status, refused.body.errors], refused.text).toEqual([
      403,
      [{ field: 'garden', message: `is ${coras}, as the service sets it, not ${bens}` }],
    ]);
    expect(refused.body.message).toContain(`you may not create a Plot below Garden ${bens}`);
    expect((await api('GET', `/gardens/${bens}/plots`, undefined, as('root'))).body.total).toBe(0);
    const made = await below(coras);
    expect([made.status, made.body.garden], made.text).toEqual([201, coras]);
  });
});
