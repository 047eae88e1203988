/**
 * Handlers see a decimal as it is stored, rounded to its scale: a probe's bounty of 200.004 passed
 * a handler's range check (at most 200) as 200.004, unrounded, and was stored as 200.00 — a check
 * and what it checked disagreed. So with dates and times: a leap second reached a probe's handler
 * as written (`Date.parse` gave NaN), and an offset put a booking in another month than the one
 * stored. SQLite.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Bounties
baseUri: http://{host}/{version}
version: v1
/bounties:
  get:
  post:
    body:
      application/json:
        schema: !include bounty.json
`);

const BOUNTY = JSON.stringify({
  type: 'object',
  _event_handlers: { before_create: ['check_range'], after_create: ['refuse_after'] },
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    amount: { _db_settings: { type: 'decimal', precision: 10, scale: 2, required: true } },
    seen: { _db_settings: { type: 'string' } },
    due: { _db_settings: { type: 'datetime' } },
    day: { _db_settings: { type: 'date' } },
    at: { _db_settings: { type: 'time' } },
  },
});

const CHECK_RANGE = `import type { CheckRangeEvent } from '../../events.js';
import { HttpError } from '../../lib/errors.js';

export async function checkRange(event: CheckRangeEvent): Promise<void> {
  const amount = event.fields.amount?.new_value;
  if (typeof amount === 'number' && amount > 200) throw new HttpError(400, 'at most 200');
  const { due, day, at } = event.fields;
  const times = [due, day, at].filter((f) => f !== undefined).map((f) => f.new_value);
  event.setFieldValue('seen', times.length ? times.join(' ') : String(amount));
}
`;

/** An after handler that refuses once the object is made (and presented): 409, or a status that is none. */
const REFUSE_AFTER = `import type { RefuseAfterEvent } from '../../events.js';
import { HttpError } from '../../lib/errors.js';

export async function refuseAfter(event: RefuseAfterEvent): Promise<void> {
  const amount = event.fields.amount?.new_value;
  if (amount === 13) throw new HttpError(409, 'not 13');
  if (amount === 99) throw new HttpError(999, 'a status that is none');
}
`;

describe('a before handler of a decimal', () => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi({ 'api.raml': API, 'bounty.json': BOUNTY }, 'e2e-handler-values', {
      prepare: (dir) => {
        writeFileSync(join(dir, 'src/custom/handlers/check-range.ts'), CHECK_RANGE);
        writeFileSync(join(dir, 'src/custom/handlers/refuse-after.ts'), REFUSE_AFTER);
      },
    });
  }, 600_000);

  afterAll(() => served?.stop());

  it('sees it rounded to its scale, as it is stored', async () => {
    const within = await api('POST', '/bounties', { amount: 200.004 });
    expect([within.status, within.body.amount, within.body.seen], within.text).toEqual([201, 200, '200']);
    const above = await api('POST', '/bounties', { amount: 200.005 });
    expect([above.status, above.body.message], above.text).toEqual([400, 'at most 200']);
  });

  it('sees a date and time, a date and a time as they are stored', async () => {
    const sent = { amount: 1, due: '2026-06-30T23:59:60Z', day: ' 2026-07-01 ', at: '9:05' };
    const leap = await api('POST', '/bounties', sent);
    expect([leap.status, leap.body.seen], leap.text).toEqual([201, '2026-07-01T00:00:00Z 2026-07-01 09:05:00']);
    // A time that is none is told so in words, not as the pattern that refused it (a probe's `7:5`).
    const badTime = await api('POST', '/bounties', { amount: 1, at: '7:5' });
    expect([badTime.status, badTime.body.errors], badTime.text).toEqual([
      400,
      [{ field: 'at', message: 'must be a time of day: HH:MM or HH:MM:SS, from 00:00 to 23:59:59' }],
    ]);
    const offset = await api('POST', '/bounties', { amount: 1, due: '2026-06-30T22:30:00-05:00' });
    expect([offset.body.seen, offset.body.due]).toEqual(['2026-07-01T03:30:00Z', '2026-07-01T03:30:00Z']);
  });

  // A probe's after handler refused a change: its 422 (here a 409) carried the Location and the ETag of a
  // version never committed (If-Match with it was a 412), and an HttpError of status 999 was
  // answered in Fastify's own shape, with its words.
  it('refused by an after handler, answers without the Location and ETag of what was not made', async () => {
    const refused = await api('POST', '/bounties', { amount: 13 });
    expect([refused.status, refused.body.message], refused.text).toEqual([409, 'not 13']);
    expect([refused.headers.get('location'), refused.headers.get('etag')]).toEqual([null, null]);
    const broken = await api('POST', '/bounties', { amount: 99 });
    expect([broken.status, broken.body.message, broken.body.status_code], broken.text).toEqual([
      500,
      'Internal Server Error',
      500,
    ]);
    expect(broken.body).toHaveProperty('request_id');
    expect(broken.text).not.toContain('FST_');
    expect([broken.headers.get('location'), broken.headers.get('etag')]).toEqual([null, null]);
    // Neither was made.
    const all = await api('GET', '/bounties?amount=13,99');
    expect(all.body.total).toBe(0);
  });
});
