/**
 * A create below a parent (`POST /gardens/{id}/plots`) whose before_create handler sets the link to
 * that parent to another object: the URL's parent overruled the handler after it ran, so a member
 * created objects as someone else (a dating-app attacker's like "from" another user). Now refused,
 * 403, and nothing is written; below the parent the handler chooses, the create goes through.
 * SQLite, auth on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gardenFiles, gardenService, type GardenService } from '../support/gardens.js';
import type { Api } from '../support/http.js';

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
  let garden: GardenService;
  const api: Api = (...args) => garden.api(...args);
  const as = (name: string) => garden.as(name);

  beforeAll(async () => {
    garden = await gardenService(FILES, 'e2e-nested-create-handler', {
      file: 'src/custom/handlers/own-garden.ts',
      text: OWN_GARDEN,
    });
  }, 600_000);

  afterAll(() => garden?.stop());

  it("is refused where the URL names another parent than the handler's, and made below the handler's", async () => {
    const below = (key: number) => api('POST', `/gardens/${key}/plots`, { number: 7 }, as('cora'));
    const refused = await below(garden.bens);
    expect([refused.status, refused.body.errors], refused.text).toEqual([
      403,
      [{ field: 'garden', message: `is ${garden.coras}, as the service sets it, not ${garden.bens}` }],
    ]);
    expect(refused.body.message).toContain(`you may not create a Plot below Garden ${garden.bens}`);
    expect((await api('GET', `/gardens/${garden.bens}/plots`, undefined, as('root'))).body.total).toBe(0);
    const made = await below(garden.coras);
    expect([made.status, made.body.garden], made.text).toEqual([201, garden.coras]);
  });
});
