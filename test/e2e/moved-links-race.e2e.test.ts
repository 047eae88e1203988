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
/rooms:
  get:
  post:
    body:
      application/json:
        schema: !include room.json
  /{id}:
    get:
    patch:
/desks:
  get:
  post:
    body:
      application/json:
        schema: !include desk.json
  /{id}:
    get:
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const required = (field: string) => ({ [field]: { _db_settings: { type: 'string', required: true } } });

/** A model whose `list` holds the objects of `document` that point at it by their `backref`. */
const parent = (name: string, list: string, document: string, backref: string) =>
  JSON.stringify({
    type: 'object',
    properties: {
      id,
      ...required(name),
      [list]: { _db_settings: { type: 'relationship', document, backref_name: backref } },
    },
  });

/** A model with a name and a foreign key to `parentModel`, whose before_update handler is `handler`. */
const child = (handler: string, parentModel: string) => {
  const table = parentModel.toLowerCase();
  return JSON.stringify({
    type: 'object',
    _event_handlers: { before_update: [handler] },
    properties: {
      id,
      ...required('name'),
      [`${table}_id`]: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: parentModel,
          ref_column: `${table}.id`,
          ref_column_type: 'id_field',
        },
      },
    },
  });
};

const BOOKING = parent('title', 'attendances', 'Attendance', 'booking');
const ATTENDANCE = child('sneak_in', 'Booking');
const ROOM = parent('name', 'desks', 'Desk', 'room');
const DESK = child('take_away', 'Room');

/** When a PATCH moves `mover`, another client moves `taken` (still in room 1) to room 2 and commits. */
const TAKE_AWAY = `import pg from 'pg';
import type { TakeAwayEvent } from '../../events.js';

export async function takeAway(event: TakeAwayEvent): Promise<void> {
  if (event.instance!.name !== 'mover') return;
  const client = new pg.Client({ connectionString: process.env['SVC_DATABASE_URL'] });
  await client.connect();
  try {
    await client.query(
      "update desk set room_id = (select id from room where name = 'two') where name = 'taken' and room_id = (select id from room where name = 'one')",
    );
  } finally {
    await client.end();
  }
}
`;

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
      { 'api.raml': API, 'booking.json': BOOKING, 'attendance.json': ATTENDANCE, 'room.json': ROOM, 'desk.json': DESK },
      'e2e-moved-links-race',
      {
        engine: 'postgres',
        prepare: (dir) => {
          writeFileSync(join(dir, 'src/custom/handlers/sneak-in.ts'), SNEAK_IN);
          writeFileSync(join(dir, 'src/custom/handlers/take-away.ts'), TAKE_AWAY);
        },
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

  // A probe's concurrent PATCHes of two rooms' lists deadlocked (503s): a write linked back what
  // another had moved away since it read, with its row not locked in order, and no event of the room
  // that lost it. It runs again instead, from what it reads then.
  it('links back what another write moved away since it read only by running again, with the events of that move', async () => {
    const one = await api('POST', '/rooms', { name: 'one' });
    const two = await api('POST', '/rooms', { name: 'two' });
    const taken = await api('POST', '/desks', { name: 'taken', room: one.body.id });
    // In no room: what it leaves is no event of room two's.
    const mover = await api('POST', '/desks', { name: 'mover' });
    const patched = await api('PATCH', `/rooms/${String(one.body.id)}`, { desks: [taken.body.id, mover.body.id] });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.desks).toEqual([taken.body.id, mover.body.id]);
    expect((await api('GET', `/rooms/${String(two.body.id)}`)).body.desks).toEqual([]);
    // Run again, the PATCH found `taken` in room two: room two's losing it is an event.
    const events = (await served.query(`select type, pk from svc_events where model = 'Room' order by seq`)) as {
      type: string;
      pk: string;
    }[];
    expect(events.map((e) => `${e.type} ${e.pk}`)).toContain(`Room.update ${String(two.body.id)}`);
  });
});
