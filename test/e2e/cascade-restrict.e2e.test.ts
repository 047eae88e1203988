/**
 * A delete that would take with it, two cascades down, an object that something still refers to
 * by a RESTRICT link: refused before anything is deleted, naming that object and the deleted
 * object's own relationship that leads there (a club, its teams, their players, a player's
 * injuries). The database's refusal, that deep, once named none of it. SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { servedApi, type ServedApi } from '../support/served.js';

const collection = (name: string) =>
  `/${name}:\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${name}.json\n  /{id}:\n    get:\n    delete:\n`;

const key = (target: string, ondelete: string) => ({
  _db_settings: {
    type: 'foreign_key',
    ref_document: target,
    ref_column: `${target.toLowerCase()}.id`,
    ref_column_type: 'id_field',
    ref_ondelete: ondelete,
  },
});
const id = { _db_settings: { type: 'id_field', primary_key: true } };
const many = (document: string, backref: string) => ({
  _db_settings: { type: 'relationship', document, backref_name: backref },
});
const schema = (properties: object) => JSON.stringify({ type: 'object', properties });

const FILES = {
  'api.raml': raml(
    `title: League\nbaseUri: http://{host}/{version}\nversion: v1\n${['clubs', 'teams', 'players', 'injuries', 'fines'].map(collection).join('')}`,
  ),
  'clubs.json': schema({ id, teams: many('Team', 'club') }),
  'teams.json': schema({ id, club_id: key('Club', 'CASCADE'), players: many('Player', 'team') }),
  'players.json': schema({
    id,
    team_id: key('Team', 'CASCADE'),
    injuries: many('Injury', 'player'),
    fines: many('Fine', 'player'),
  }),
  'injuries.json': schema({ id, player_id: key('Player', 'RESTRICT') }),
  'fines.json': schema({ id, player_id: key('Player', 'RESTRICT') }),
};

describe('a cascade held two levels down by a RESTRICT link', () => {
  let served: ServedApi;
  const api: Api = (...args) => served.api(...args);

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-cascade-restrict');
  }, 600_000);

  afterAll(() => served?.stop());

  it('refuses the delete, naming the player, the injuries and the club`s own teams', async () => {
    const club = (await api('POST', '/clubs', {})).body.id as number;
    const team = (await api('POST', '/teams', { club })).body.id as number;
    const player = (await api('POST', '/players', { team })).body.id as number;
    expect((await api('POST', '/injuries', { player })).status).toBe(201);
    const reply = await api('DELETE', `/clubs/${club}`);
    expect([reply.status, reply.body.message, reply.body.errors], reply.text).toEqual([
      409,
      `related objects still refer to Player ${player} (injuries), which this delete would take with it, so it cannot be deleted`,
      [{ field: 'teams', message: `Player ${player} has injuries that prevent deleting it` }],
    ]);
    for (const path of [`/clubs/${club}`, `/teams/${team}`, `/players/${player}`])
      expect((await api('GET', path)).status, path).toBe(200);
  });

  // Both of a player's RESTRICT links could hold it: the answer names the one that does (a probe
  // went looking for swaps that did not exist).
  it("names, of a delete's RESTRICT links, those that hold objects", async () => {
    const club = (await api('POST', '/clubs', {})).body.id as number;
    const team = (await api('POST', '/teams', { club })).body.id as number;
    const player = (await api('POST', '/players', { team })).body.id as number;
    expect((await api('POST', '/injuries', { player })).status).toBe(201);
    const reply = await api('DELETE', `/players/${player}`);
    expect([reply.status, reply.body.message, reply.body.errors], reply.text).toEqual([
      409,
      'related objects still refer to this one (injuries), so it cannot be deleted',
      [{ field: 'injuries', message: 'has related objects that prevent deleting this one' }],
    ]);
  });
});
