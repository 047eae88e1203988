/**
 * `"_write_once": true`: a field set when its object is created, by whoever may create it, and
 * changed afterwards by admins alone. An attacker probe's captain, who could update her team's
 * appearances, moved one onto another team's player: the item rules judged the object as it was.
 * A write-once link closes that: here any member may update any player, yet none can move one to
 * another team, by the player's own routes (PATCH, PUT, a bulk PATCH) or from the team's side
 * (which would move players that exist). Auth on, on every engine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { tool } from '../support/project.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const MEMBERS = {
  collection: 'allow g:admin all\nallow authenticated view, create',
  item: 'allow g:admin all\nallow authenticated view, update',
};

/** Members may delete teams too: not one whose players' write-once link the delete would empty. */
const TEAMS = { ...MEMBERS, item: 'allow g:admin all\nallow authenticated view, update, delete' };

const RESOURCES = `
/teams:
  securedBy: [teams]
  get:
  post:
    body:
      application/json:
        schema: !include team.json
  /{id}:
    get:
    delete:
    patch:
      body:
        application/json:
          schema: !include team.json
/players:
  securedBy: [members]
  get:
  post:
    body:
      application/json:
        schema: !include player.json
  patch:
    body:
      application/json:
        schema: !include player.json
  /{id}:
    get:
    patch:
      body:
        application/json:
          schema: !include player.json
    put:
      body:
        application/json:
          schema: !include player.json
    /caps:
      get:
      post:
`;

const id = { _db_settings: { type: 'id_field', primary_key: true } };

const FILES = {
  'api.raml': securedRaml('League', { members: MEMBERS, teams: TEAMS }, RESOURCES),
  'team.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      name: { type: 'string', _db_settings: { type: 'string', required: true } },
      players: { _db_settings: { type: 'relationship', document: 'Player', backref_name: 'team' } },
    },
  }),
  'player.json': JSON.stringify({
    type: 'object',
    properties: {
      id,
      name: { type: 'string', _db_settings: { type: 'string', required: true } },
      shirt: { type: ['integer', 'null'], _db_settings: { type: 'integer' } },
      // Where she was born: set once, corrected by an admin.
      born_in: { type: ['string', 'null'], _write_once: true, _db_settings: { type: 'string' } },
      signed: { type: ['string', 'null'], format: 'date-time', _write_once: true, _db_settings: { type: 'datetime' } },
      // The caps she had when she joined: added to by POST /players/{id}/caps, which changes her.
      caps: { type: ['array', 'null'], _write_once: true, _db_settings: { type: 'list', item_type: 'string' } },
      team_id: {
        _write_once: true,
        _db_settings: { type: 'foreign_key', ref_document: 'Team', ref_column: 'team.id', ref_column_type: 'id_field' },
      },
    },
  }),
};

describe.each(ENGINES)('a write-once field (%s)', (engine) => {
  let served: ServedApi;
  let as: (name: string) => { headers: Record<string, string> };
  const api: Api = (...args) => served.api(...args);
  let [reds, blues, player] = [0, 0, 0];

  beforeAll(async () => {
    served = await servedApi(FILES, `e2e-write-once-${engine}`, { engine, env: rootAuthEnv() });
    const tokens = await memberTokens(served.api, ['cora', 'ben']);
    as = (name) => ({ headers: { authorization: tokens.get(name)! } });
    reds = (await api('POST', '/teams', { name: 'Reds' }, as('cora'))).body.id as number;
    blues = (await api('POST', '/teams', { name: 'Blues' }, as('ben'))).body.id as number;
    const made = await api(
      'POST',
      '/players',
      { name: 'Ann', team: reds, born_in: 'Lyon', caps: ['u21'], signed: '2024-01-01T10:00:00Z' },
      as('cora'),
    );
    expect(made.status, made.text).toBe(201);
    player = made.body.id as number;
  }, 600_000);

  afterAll(() => served?.stop());

  const stored = async () => {
    const read = await api('GET', `/players/${player}`, undefined, as('root'));
    return { team: read.body.team, born_in: read.body.born_in, shirt: read.body.shirt };
  };

  it('is set by the create, and a member who may update the object cannot change it: 403 naming it', async () => {
    for (const body of [{ team: blues }, { born_in: 'Nice' }, { team: blues, shirt: 4 }]) {
      const refused = await api('PATCH', `/players/${player}`, body, as('ben'));
      expect(refused.status, refused.text).toBe(403);
      const named = (refused.body.errors as { field: string; message: string }[]).map((e) => e.field);
      expect(named).toEqual(Object.keys(body).filter((k) => k !== 'shirt'));
      expect(refused.text).toContain('write-once');
    }
    const put = await api('PUT', `/players/${player}`, { name: 'Ann', team: blues }, as('cora'));
    expect(put.status, put.text).toBe(403);
    expect(await stored()).toEqual({ team: reds, born_in: 'Lyon', shirt: null });
  });

  it('is said back unchanged in another spelling: a key as text, a time in another zone', async () => {
    const same = { team: String(reds), signed: '2024-01-01T11:00:00.000+01:00' };
    const echoed = await api('PATCH', `/players/${player}`, same, as('ben'));
    expect(echoed.status, echoed.text).toBe(200);
    const later = await api('PATCH', `/players/${player}`, { signed: '2024-01-01T10:00:01Z' }, as('ben'));
    expect(later.status, later.text).toBe(403);
    const other = await api('PATCH', `/players/${player}`, { team: String(blues) }, as('ben'));
    expect(other.status, other.text).toBe(403);
    // GET shows the link by its key: an object for it is no echo, whatever key it carries.
    const object = await api('PATCH', `/players/${player}`, { team: { id: reds } }, as('ben'));
    expect([object.status, object.body.errors]).toEqual([
      400,
      [{ field: 'team', message: 'is given as objects: a link is written by the keys of the objects it links to' }],
    ]);
    expect((await stored()).team).toBe(reds);
  });

  it('is said back unchanged, or left out of a PUT, and stays as it was', async () => {
    const echoed = await api('PATCH', `/players/${player}`, { team: reds, born_in: 'Lyon', shirt: 7 }, as('ben'));
    expect(echoed.status, echoed.text).toBe(200);
    const put = await api('PUT', `/players/${player}`, { name: 'Ann', shirt: 8 }, as('ben'));
    expect(put.status, put.text).toBe(200);
    expect(await stored()).toEqual({ team: reds, born_in: 'Lyon', shirt: 8 });
  });

  it('cannot be added to by its attribute route, which changes the object', async () => {
    const added = await api('POST', `/players/${player}/caps`, { senior: true }, as('ben'));
    expect(added.status, added.text).toBe(403);
    const read = await api('GET', `/players/${player}/caps`, undefined, as('ben'));
    expect(read.body).toEqual(['u21']);
  });

  it('cannot be changed by a bulk PATCH, nor from the other side of the link', async () => {
    const bulk = await api('PATCH', `/players?name=Ann`, { team: blues }, as('ben'));
    expect(bulk.status, bulk.text).toBe(403);
    // Writing the team's `players` would move a player that exists onto it: read-only there.
    const moved = await api('PATCH', `/teams/${blues}`, { players: [player] }, as('ben'));
    expect(moved.status, moved.text).toBe(403);
    const made = await api('POST', '/teams', { name: 'Greens', players: [player] }, as('ben'));
    expect(made.status, made.text).toBe(403);
    expect(await stored()).toEqual({ team: reds, born_in: 'Lyon', shirt: 8 });
    const blue = await api('GET', `/teams/${blues}`, undefined, as('root'));
    expect(blue.body.players).toEqual([]);
  });

  it('is changed by an admin', async () => {
    const moved = await api('PATCH', `/players/${player}`, { team: blues, born_in: 'Nice' }, as('root'));
    expect(moved.status, moved.text).toBe(200);
    expect(await stored()).toEqual({ team: blues, born_in: 'Nice', shirt: 8 });
    const added = await api('POST', `/players/${player}/caps`, { senior: true }, as('root'));
    expect(added.status, added.text).toBe(201);
  });

  it("is not emptied by a member's delete of what it links to (the link would be changed); an admin's is", async () => {
    const refused = await api('DELETE', `/teams/${blues}`, undefined, as('ben'));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.errors).toEqual([
      { field: 'players', message: `unlinks Player ${player}, whose team is write-once: only an admin empties it` },
    ]);
    // Said as the link's rule, not as a right on the player (a probe's member was told she may not change her own sign-up).
    expect(refused.body.message).toContain(
      `empty the team of Player ${player}, which this delete would unlink: it is write-once, which only an admin changes`,
    );
    expect((await stored()).team).toBe(blues);
    const empty = (await api('POST', '/teams', { name: 'Greens' }, as('ben'))).body.id as number;
    expect((await api('DELETE', `/teams/${empty}`, undefined, as('ben'))).status).toBe(200);
    const deleted = await api('DELETE', `/teams/${blues}`, undefined, as('root'));
    expect(deleted.status, deleted.text).toBe(200);
    expect((await stored()).team).toBeNull();
  });
});

/** The players' team required: the generated tests' PUT must then leave the write-once link out, not seed another. */
const REQUIRED_TEAM = {
  ...FILES,
  'player.json': FILES['player.json'].replace('"type":"foreign_key"', '"type":"foreign_key","required":true'),
};

// Without logins nobody is an admin: a write-once field is the service's own code's to change.
describe('a write-once field with auth off', () => {
  let served: ServedApi;

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-write-once-open', {});
  }, 600_000);

  afterAll(() => served?.stop());

  it('is set by a create, and no change nor delete of its team empties or moves it', async () => {
    const api = served.api;
    const [reds, blues] = [
      (await api('POST', '/teams', { name: 'Reds' })).body.id,
      (await api('POST', '/teams', { name: 'Blues' })).body.id,
    ];
    const made = await api('POST', '/players', { name: 'Ann', team: reds });
    expect(made.status, made.text).toBe(201);
    const at = `/players/${String(made.body.id)}`;
    expect((await api('PATCH', at, { team: blues })).status).toBe(403);
    expect((await api('PATCH', `/teams/${String(blues)}`, { players: [made.body.id] })).status).toBe(403);
    const deleted = await api('DELETE', `/teams/${String(reds)}`);
    expect(deleted.status, deleted.text).toBe(403);
    expect(deleted.text).toContain('write-once');
    expect((await api('GET', at)).body.team).toBe(reds);
    expect((await api('DELETE', `/teams/${String(blues)}`)).status).toBe(200);
  });
});

describe("the project's own generated tests, where write-once fields are", () => {
  let served: ServedApi;

  beforeAll(async () => {
    expect(REQUIRED_TEAM['player.json']).toContain('"required":true');
    served = await servedApi(REQUIRED_TEAM, 'e2e-write-once-tests', {});
  }, 600_000);

  afterAll(() => served?.stop());

  it('pass: a PUT there leaves the write-once fields out, a merge into one is refused', async () => {
    const test = readFileSync(join(served.dir, 'test/api.test.ts'), 'utf8');
    expect(test).toContain('POST to the caps of a Player is refused: write-once');
    expect(test).toContain('const { born_in: _born_in, signed: _signed, caps: _caps, team: _team, ...data }');
    // The client's replace takes a body without them: the tests type-check.
    const typecheck = await tool(served.dir, 'tsc', ['--noEmit', '-p', 'tsconfig.json']);
    expect(typecheck.exitCode, typecheck.all).toBe(0);
    const run = await tool(served.dir, 'vitest', ['run', 'test/api.test.ts']);
    expect(run.exitCode, run.all).toBe(0);
  });
});
