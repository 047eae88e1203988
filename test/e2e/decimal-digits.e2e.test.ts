/**
 * A decimal travels as a JSON number, an IEEE double, which keeps 15 significant digits exactly: a
 * probe's donation of 90071992547409.99 was stored as ….98, and 99999999999999999999.99 as 1e20,
 * with no word said. Such values are a 400 now, on every engine, and every value of 15 digits is
 * stored and read back as it was sent. (The schema's bound stays the column's, 10^36 here: a tighter
 * one would be a break to `svcgen diff` of every project an older svcgen made.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Donations
baseUri: http://{host}/{version}
version: v1
/donations:
  get:
  post:
    body:
      application/json:
        schema: !include donation.json
  patch:
  /{id}:
    get:
    patch:
`);

const DONATION = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    // numeric(38, 2) on PostgreSQL: the column holds more than a JSON number carries.
    amount: { _db_settings: { type: 'decimal', scale: 2, required: true } },
    rate: { _db_settings: { type: 'decimal', scale: 10 } },
  },
});

describe.each(ENGINES)('decimals of more digits than a JSON number keeps, on %s', (engine) => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi({ 'api.raml': API, 'donation.json': DONATION }, `e2e-decimal-digits-${engine}`, {
      engine,
    });
  }, 600_000);

  afterAll(() => served?.stop());

  it('stores and reads back every value of 15 significant digits as it was sent, rounded to its scale', async () => {
    for (const [amount, rate] of [
      [9999999999999.99, 12345.1234567891],
      [-9999999999999.99, 0.0000000001],
      [0.01, 123456789.5],
      [123.455, 1.00000000005],
    ] as const) {
      const created = await api('POST', '/donations', { amount, rate });
      expect(created.status, created.text).toBe(201);
      const read = await api('GET', `/donations/${String(created.body.id)}`);
      const rounded = { 123.455: 123.46, 1.00000000005: 1.0000000001 } as Record<number, number>;
      expect([read.body.amount, read.body.rate]).toEqual([rounded[amount] ?? amount, rounded[rate] ?? rate]);
    }
  });

  it('refuses a value that would lose digits, by POST, PATCH and a bulk PATCH, and changes nothing', async () => {
    const kept = await api('POST', '/donations', { amount: 5, rate: 1 });
    // As a client writes them: the digits this test sends are those of the JSON text.
    const refused: [string, string, string, string][] = [
      ['POST', '/donations', '{"amount": 90071992547409.99}', 'amount'],
      ['POST', '/donations', '{"amount": 12345678901234567.89}', 'amount'],
      ['POST', '/donations', '{"amount": 99999999999999999999.99}', 'amount'],
      ['POST', '/donations', '{"amount": 1, "rate": 123456.12345678912}', 'rate'],
      ['PATCH', `/donations/${String(kept.body.id)}`, '{"amount": 90071992547409.99}', 'amount'],
      ['PATCH', '/donations', '{"amount": 1000000000000000.5}', 'amount'],
    ];
    for (const [method, path, raw, field] of refused) {
      const reply = await api(method, path, undefined, { raw, headers: { 'content-type': 'application/json' } });
      expect(reply.status, `${method} ${raw}: ${reply.text}`).toBe(400);
      expect(
        reply.body.errors.map((e: { field: string }) => e.field),
        reply.text,
      ).toEqual([field]);
    }
    // More digits than 15 after the point are no loss: they are rounded to the scale, 14 digits in all.
    expect((await api('POST', '/donations', { amount: 123456789012.34567 })).body.amount).toBe(123456789012.35);
    const after = await api('GET', `/donations/${String(kept.body.id)}`);
    expect([after.body.amount, after.body.rate]).toEqual([5, 1]);
  });

  it('says so in the OpenAPI document', async () => {
    const document = (await api('GET', '/openapi.json')).body;
    expect(document.components.schemas.DonationCreate.properties.amount.description).toMatch(
      /At most 15 significant digits, below 10\^15/,
    );
  });
});
