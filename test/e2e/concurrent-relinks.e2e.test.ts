/**
 * Two writes of the same to-many list at once end as one of them after the other would: a probe's
 * `PATCH /teams/B {"memberships": [m1..m4]}` beside `PATCH /teams/A {"memberships": [m1]}` left
 * three memberships on no team on PostgreSQL (6 runs of 8), an end no order of the two gives: A's
 * unlink of what it had read as its own reached rows B had taken meanwhile. Now an unlink leaves a
 * row that no longer points at the object it is unlinked from. On every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, querySql, testDatabase, type TestDatabase } from '../support/databases.js';
import { raml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const ROUNDS = 12;

const API = raml(`title: League
baseUri: http://{host}/{version}
version: v1
/teams:
  get:
  post:
    body:
      application/json:
        schema: !include team.json
  /{id}:
    get:
    patch:
/memberships:
  get:
  post:
    body:
      application/json:
        schema: !include membership.json
  /{id}:
    get:
/squads:
  get:
  post:
    body:
      application/json:
        schema: !include squad.json
  /{id}:
    get:
    patch:
/seats:
  get:
  post:
    body:
      application/json:
        schema: !include seat.json
  /{id}:
    get:
`);

// Teams and squads alike, but a squad's events carry its previous state: each write also locks the
// rows of the squads it changes (model, then key), as well as the seats it re-links (key order).
const SQUAD = JSON.stringify({
  type: 'object',
  _event_previous: true,
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string', required: true } },
    memberships: { _db_settings: { type: 'relationship', document: 'Seat', backref_name: 'team' } },
  },
});

const SEAT = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    team_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Squad', ref_column: 'squad.id', ref_column_type: 'id_field' },
    },
  },
});

const TEAM = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    name: { _db_settings: { type: 'string', required: true } },
    memberships: { _db_settings: { type: 'relationship', document: 'Membership', backref_name: 'team' } },
  },
});

const MEMBERSHIP = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    team_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Team', ref_column: 'team.id', ref_column_type: 'id_field' },
    },
  },
});

let dir: string;

beforeAll(async () => {
  const files = {
    'api.raml': API,
    'team.json': TEAM,
    'membership.json': MEMBERSHIP,
    'squad.json': SQUAD,
    'seat.json': SEAT,
  };
  dir = await projectOf(files, 'e2e-concurrent-relinks');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('two writes of one to-many list at once, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'concurrent_relinks');
    service = await startService(dir, database.env, '/v1');
    api = apiClient(service.origin, '/v1');
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  const created = async (path: string, body: object) => {
    const made = await api('POST', path, body);
    expect(made.status, made.text).toBe(201);
    return made.body['id'] as number;
  };

  it('ends as one after the other would, never with memberships on no team', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const a = await created('/teams', { name: `a${round}` });
      const b = await created('/teams', { name: `b${round}` });
      const members = [];
      for (let i = 0; i < 4; i++) members.push(await created('/memberships', { team: a }));
      const [toB, toA] = await Promise.all([
        api('PATCH', `/teams/${b}`, { memberships: members }),
        api('PATCH', `/teams/${a}`, { memberships: members.slice(0, 1) }),
      ]);
      expect([toB.status, toA.status], `${toB.text} | ${toA.text}`).toEqual([200, 200]);
      const teams = [];
      for (const id of members) teams.push((await api('GET', `/memberships/${id}`)).body['team']);
      // B then A: the first membership is A's again; A then B: B has them all.
      expect([
        [a, b, b, b],
        [b, b, b, b],
      ]).toContainEqual(teams);
    }
  }, 120_000);

  it.each([
    ['teams', 'memberships'],
    ['squads', 'seats'],
  ])(
    'swaps the lists of two %s from both sides at once, each write answered, the end the same either way',
    async (teams, members) => {
      // Each write locks the rows it re-links, and the teams it changes, in one order for both; else
      // they deadlocked on PostgreSQL, and a burst of them kept doing so past the retries (a 503).
      for (let round = 0; round < ROUNDS; round++) {
        const a = await created(`/${teams}`, { name: `swap-a${round}` });
        const b = await created(`/${teams}`, { name: `swap-b${round}` });
        const ofA = [await created(`/${members}`, { team: a }), await created(`/${members}`, { team: a })];
        const ofB = [await created(`/${members}`, { team: b }), await created(`/${members}`, { team: b })];
        const replies = await Promise.all([
          api('PATCH', `/${teams}/${a}`, { memberships: ofB }),
          api('PATCH', `/${teams}/${b}`, { memberships: ofA }),
        ]);
        expect(
          replies.map((r) => r.status),
          replies.map((r) => r.text).join(' | '),
        ).toEqual([200, 200]);
        const owners = [];
        for (const id of [...ofA, ...ofB]) owners.push((await api('GET', `/${members}/${id}`)).body['team']);
        expect(owners).toEqual([b, b, a, a]);
      }
      if (engine !== 'postgres') return;
      // Not one deadlock met and retried: the writes waited for each other (its count is flushed within a second).
      await sleep(1_500);
      const [stats] = (await querySql(
        engine,
        database.url,
        dir,
        'select deadlocks::int as n from pg_stat_database where datname = current_database()',
      )) as { n: number }[];
      expect(stats?.n).toBe(0);
    },
    120_000,
  );
});
