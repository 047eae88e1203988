/**
 * A foreign key (`campaign_id`) is served but never written: its link (`campaign`) is. A body that
 * sends the key for a required link is told, with the link's "is required", what to send
 * instead; before, it read only "campaign is required" unless it sent both (a new user's finding).
 * SQLite, auth off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Campaigns
baseUri: http://{host}/{version}
version: v1
/campaigns:
  post:
    body:
      application/json:
        schema: !include campaign.json
/npcs:
  post:
    body:
      application/json:
        schema: !include npc.json
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };

const FILES = {
  'api.raml': API,
  'campaign.json': JSON.stringify({
    type: 'object',
    properties: { id, npcs: { _db_settings: { type: 'relationship', document: 'Npc', backref_name: 'campaign' } } },
  }),
  'npc.json': JSON.stringify({
    type: 'object',
    required: ['name'],
    properties: {
      id,
      name: { type: 'string', _db_settings: { type: 'string', required: true } },
      campaign_id: {
        _db_settings: {
          type: 'foreign_key',
          required: true,
          ref_document: 'Campaign',
          ref_column: 'campaign.id',
          ref_column_type: 'id_field',
        },
      },
    },
  }),
};

describe('a body that sends the foreign key of a required link', () => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-foreign-key-body');
  }, 600_000);

  afterAll(() => served?.stop());

  it('is told to send the link, where the link is required', async () => {
    const campaign = (await api('POST', '/campaigns', {})).body.id as number;
    const reply = await api('POST', '/npcs', { name: 'Gollum', campaign_id: campaign });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.errors).toContainEqual({
      field: 'campaign',
      message: 'is required (campaign_id is its foreign key, which is not written: send the key as "campaign")',
    });
    // Without the key, the link is just required; with the link, it is made.
    const bare = await api('POST', '/npcs', { name: 'Gollum' });
    expect(bare.body.errors).toContainEqual({ field: 'campaign', message: 'is required' });
    const made = await api('POST', '/npcs', { name: 'Gollum', campaign });
    expect([made.status, made.body.campaign_id], made.text).toEqual([201, campaign]);
  });
});
