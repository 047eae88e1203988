/**
 * A write that sets a relationship kept in the other model's rows (`PATCH /bookings/1
 * {"attendances": []}`) unlinks only the objects it read as linked: those it checked the caller's
 * rights to move, ran the handlers of, and records an event for. A probe's PostgreSQL race: an
 * attendance created for the booking and committed between that read and the write was unlinked
 * too, with no event (the event stream said it was still the booking's) and no check. Here the
 * concurrent create is made deterministic: an attendance's before_update handler, which the PATCH
 * runs for each attendance it unlinks, commits one on a connection of its own. PostgreSQL (on
 * SQLite, writes are one at a time: nothing commits in between).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Bookings
baseUri: http://{host}/{version}
version: v1
/bookings:
  get:
  post:
    body:
      application/json:
        schema: !include booking.json
  /{id}:
    get:
    patch:
/attendances:
  get:
  post:
    body:
      application/json:
        schema: !include attendance.json
  /{id}:
    get:
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const BOOKING = JSON.stringify({
  type: 'object',
  properties: {
    id,
    title: { _db_settings: { type: 'string', required: true } },
    attendances: { _db_settings: { type: 'relationship', document: 'Attendance', backref_name: 'booking' } },
  },
});
const ATTENDANCE = JSON.stringify({
  type: 'object',
  _event_handlers: { before_update: ['sneak_in'] },
  properties: {
    id,
    name: { _db_settings: { type: 'string', required: true } },
    booking_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Booking',
        ref_column: 'booking.id',
        ref_column_type: 'id_field',
      },
    },
  },
});

/** When the PATCH unlinks `first`, another client's attendance of the same booking commits. */
const SNEAK_IN = `import pg from 'pg';
import type { SneakInEvent } from '../../events.js';

export async function sneakIn(event: SneakInEvent): Promise<void> {
  const instance = event.instance!;
  if (instance.name !== 'first') return;
  const client = new pg.Client({ connectionString: process.env['SVC_DATABASE_URL'] });
  await client.connect();
  try {
    await client.query('insert into attendance (name, booking_id) values ($1, $2)', ['sneaked in', instance.booking]);
  } finally {
    await client.end();
  }
}
`;

describe('a PATCH of a relationship while another client links to the same object (PostgreSQL)', () => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi(
      { 'api.raml': API, 'booking.json': BOOKING, 'attendance.json': ATTENDANCE },
      'e2e-moved-links-race',
      {
        engine: 'postgres',
        prepare: (dir) => writeFileSync(join(dir, 'src/custom/handlers/sneak-in.ts'), SNEAK_IN),
      },
    );
  }, 600_000);

  afterAll(() => served?.stop());

  it('unlinks only what it read as linked: the attendance committed meanwhile stays linked', async () => {
    const booking = await api('POST', '/bookings', { title: 'standup' });
    expect(booking.status, booking.text).toBe(201);
    const first = await api('POST', '/attendances', { name: 'first', booking: booking.body.id });
    expect(first.status, first.text).toBe(201);
    const patched = await api('PATCH', `/bookings/${String(booking.body.id)}`, { attendances: [] });
    expect(patched.status, patched.text).toBe(200);
    const all = await api('GET', '/attendances?_sort=id');
    const rows = (all.body.data as { name: string; booking: unknown }[]).map((a) => [a.name, a.booking]);
    expect(rows).toEqual([
      ['first', null],
      ['sneaked in', booking.body.id],
    ]);
    // And the answer says what the booking has now.
    expect(patched.body.attendances).toHaveLength(1);
  });
});
