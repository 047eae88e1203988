/**
 * A handler several models share sets the fields they share, as the README shows a handler doing
 * (`event.setFieldValue('owner', …)`): a probe's `set_owner`, bound to four models, did not compile
 * (each model's setFieldValue was a signature of its own, and TypeScript called none of them). A
 * field one of them lacks is still refused by the types. On SQLite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi } from '../support/served.js';

const API = raml(`title: Sitting
baseUri: http://{host}/{version}
version: v1
/pets:
  get:
  post:
    body:
      application/json:
        schema: !include pet.json
/bookings:
  get:
  post:
    body:
      application/json:
        schema: !include booking.json
`);

const schemaWith = (extra: object) =>
  JSON.stringify({
    type: 'object',
    _event_handlers: { before_create: ['set_owner'] },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      owner: { type: ['string', 'null'], readOnly: true, _db_settings: { type: 'string', max_length: 50 } },
      ...extra,
    },
  });

const SET_OWNER = `import type { SetOwnerEvent } from '../../events.js';

export function setOwner(event: SetOwnerEvent): void {
  event.setFieldValue('owner', 'ann');
  // @ts-expect-error: only pets have a name
  if (event.model.name === 'never') event.setFieldValue('name', 'x');
}
`;

describe('a handler two models share', () => {
  let api: Api;

  beforeAll(async () => {
    const files = {
      'api.raml': API,
      'pet.json': schemaWith({ name: { _db_settings: { type: 'string' } } }),
      'booking.json': schemaWith({ nights: { _db_settings: { type: 'integer' } } }),
    };
    const served = await servedApi(files, 'e2e-shared-handler', {
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/handlers/set-owner.ts'), SET_OWNER),
    });
    api = served.api;
    return () => served.stop();
  }, 600_000);

  it('sets the field they share on each', async () => {
    const pet = await api('POST', '/pets', { name: 'Rex' });
    const booking = await api('POST', '/bookings', { nights: 2 });
    expect([pet.status, pet.body['owner'], booking.status, booking.body['owner']]).toEqual([201, 'ann', 201, 'ann']);
  });
});
