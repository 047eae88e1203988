/**
 * A delete takes along only what its caller could delete, and unlinks only what they could change.
 * A hackathon probe's team member, who may delete her team's submission, deleted with it a judge's
 * score (`ref_ondelete: CASCADE`) she could neither view nor delete, and un-awarded its prize
 * (`NULLIFY`) that `PATCH {"prizes": []}` would not let her touch. Now such a delete is refused
 * (403), naming what it would take (an object she may not view only by its model), and nothing is
 * deleted; one whose caller may is made as before, by a single DELETE or by a bulk one. A model no
 * route deletes is taken along by admins alone, as a model no route updates is re-linked by admins
 * alone. Every engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { securedRaml } from '../support/files.js';
import { apiClient, type Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';
import { memberTokens } from '../support/served.js';

type Rec = Record<string, unknown>;

const routes = (name: string, item: string) =>
  `/${name}:\n  securedBy: [${name}_acl]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include ${name}.json\n  delete:\n  /{id}:\n${item}`;

const API = securedRaml(
  'Hackathon',
  {
    // Any member may delete any submission: what it takes along is the question.
    submissions_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create, delete',
      item: 'allow g:admin all\nallow authenticated view, delete',
    },
    scores_acl: {
      collection: 'allow g:admin all\nallow g:judge all\nallow authenticated view',
      item: 'allow g:admin all\nallow g:judge all\nallow authenticated view',
    },
    prizes_acl: {
      collection: 'allow g:admin all\nallow everyone view',
      item: 'allow g:admin all\nallow everyone view',
    },
    notes_acl: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
    reviews_acl: { collection: 'allow g:admin all', item: 'allow g:admin all' },
    // Members may do anything the routes serve, but no route deletes a badge.
    admins: { collection: 'allow g:admin all' },
    badges_acl: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
    // Members may do anything a stamp's own routes serve (reading): admins delete them, below a submission.
    certificates_acl: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
    stamps_acl: {
      collection: 'allow g:admin all\nallow authenticated all',
      item: 'allow g:admin all\nallow authenticated all',
    },
  },
  [
    routes(
      'submissions',
      '    get:\n    patch:\n    put:\n    delete:\n    /stamps:\n      securedBy: [admins]\n      get:\n      /{sid}:\n        get:\n        delete:\n',
    ),
    routes('scores', '    get:\n    delete:\n'),
    routes('prizes', '    get:\n    patch:\n    delete:\n'),
    routes('notes', '    get:\n    delete:\n'),
    routes('reviews', '    get:\n    delete:\n'),
    routes('badges', '    get:\n    patch:\n').replace('  delete:\n  /{id}', '  /{id}'),
    routes('stamps', '    get:\n').replace('  delete:\n  /{id}', '  /{id}'),
    routes('certificates', '    get:\n    delete:\n'),
    '/users:\n  securedBy: [admins]\n  get:\n  /{username}:\n    get:\n    patch:\n',
  ].join(''),
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const link = (ondelete: string) => ({
  type: ['integer', 'null'],
  _db_settings: {
    type: 'foreign_key',
    ref_document: 'Submission',
    ref_column: 'submission.id',
    ref_column_type: 'id_field',
    ref_ondelete: ondelete,
  },
});
const title = { type: ['string', 'null'], _db_settings: { type: 'string' } };
const many = (document: string) => ({
  type: ['array', 'null'],
  _db_settings: { type: 'relationship', document, backref_name: 'submission' },
});
const schema = (properties: object) => JSON.stringify({ type: 'object', properties });

const FILES = {
  'api.raml': API,
  'submissions.json': schema({
    id,
    title,
    scores: many('Score'),
    prizes: many('Prize'),
    notes: many('Note'),
    reviews: many('Review'),
    badges: many('Badge'),
    stamps: many('Stamp'),
    certificates: many('Certificate'),
  }),
  'scores.json': schema({ id, title, submission_id: link('CASCADE') }),
  'prizes.json': schema({ id, title, submission_id: link('NULLIFY') }),
  'notes.json': schema({ id, title, submission_id: link('CASCADE') }),
  'reviews.json': schema({ id, title, submission_id: link('CASCADE') }),
  'badges.json': schema({ id, title, submission_id: link('CASCADE') }),
  'stamps.json': schema({ id, title, submission_id: link('CASCADE') }),
  // A certificate must have its submission: NULLIFY cannot unlink it.
  'certificates.json': JSON.stringify({
    type: 'object',
    required: ['submission'],
    properties: { id, title, submission_id: link('NULLIFY') },
  }),
};

let dir: string;

beforeAll(async () => {
  dir = await projectOf(FILES, 'e2e-cascade-rights');
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

describe.each(ENGINES)('what a delete takes along, on %s', (engine) => {
  let database: TestDatabase;
  let service: RunningService;
  let api: Api;
  let tokens: Map<string, string>;
  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const reply = await api(method, path, body, { headers: { authorization: tokens.get(who)! } });
    return { status: reply.status, body: reply.body as Rec, text: reply.text };
  };
  /** A submission (made by a member), with `children`: how many of each model to link to it (made by root). */
  const submission = async (children: Readonly<Record<string, number>> = {}) => {
    const made = await call('mia', 'POST', '/submissions', { title: 'entry' });
    expect(made.status, made.text).toBe(201);
    const key = made.body['id'] as number;
    const keys: Record<string, number[]> = {};
    for (const [path, count] of Object.entries(children))
      for (let i = 0; i < count; i++) {
        const child = await call('root', 'POST', `/${path}`, { title: `${path} ${i}`, submission: key });
        expect(child.status, child.text).toBe(201);
        (keys[path] ??= []).push(child.body['id'] as number);
      }
    return { key, keys };
  };
  const exists = async (path: string) => (await call('root', 'GET', path)).status === 200;

  beforeAll(async () => {
    database = await testDatabase(engine, dir, 'cascade_rights');
    service = await startService(dir, { ...database.env, ...rootAuthEnv() }, '/v1');
    api = apiClient(service.origin, '/v1');
    tokens = await memberTokens(api, ['mia', 'jude']);
    const judge = await call('root', 'PATCH', '/users/jude', { groups: ['user', 'judge'] });
    expect(judge.status, judge.text).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('deletes, with a submission, the notes any member may delete', async () => {
    const { key, keys } = await submission({ notes: 2 });
    expect((await call('mia', 'DELETE', `/submissions/${key}`)).status).toBe(200);
    for (const note of keys['notes']!) expect(await exists(`/notes/${note}`)).toBe(false);
  });

  it("refuses a member's delete that would take a judge's score, and deletes nothing", async () => {
    const { key, keys } = await submission({ scores: 1, notes: 1 });
    const score = keys['scores']![0]!;
    const refused = await call('mia', 'DELETE', `/submissions/${key}`);
    expect([refused.status, refused.body['message'], refused.body['errors']], refused.text).toEqual([
      403,
      `you may not delete Score ${score}, which this delete would take with it`,
      [{ field: 'scores', message: `deletes Score ${score}, which you may not delete` }],
    ]);
    for (const path of [`/submissions/${key}`, `/scores/${score}`, `/notes/${keys['notes']![0]}`])
      expect(await exists(path), path).toBe(true);
    // A judge may delete scores: the same delete is hers to make.
    expect((await call('jude', 'DELETE', `/submissions/${key}`)).status).toBe(200);
    expect(await exists(`/scores/${score}`)).toBe(false);
  });

  it('refuses a delete that would un-award a prize the member may not change', async () => {
    const { key, keys } = await submission({ prizes: 1 });
    const prize = keys['prizes']![0]!;
    const refused = await call('mia', 'DELETE', `/submissions/${key}`);
    expect([refused.status, refused.body['errors']], refused.text).toEqual([
      403,
      [{ field: 'prizes', message: `unlinks Prize ${prize}, which you may not change` }],
    ]);
    // Unlinked, not taken: the message once said the delete "would take it with it".
    expect(refused.body['message']).toContain(`you may not change Prize ${prize}, which this delete would unlink`);
    expect((await call('root', 'GET', `/prizes/${prize}`)).body['submission']).toBe(key);
    // An admin's delete unlinks it, and the prize stays.
    expect((await call('root', 'DELETE', `/submissions/${key}`)).status).toBe(200);
    expect((await call('root', 'GET', `/prizes/${prize}`)).body['submission']).toBeNull();
  });

  it('names objects the member may not view only by their model, once, however many', async () => {
    const { key, keys } = await submission({ reviews: 2 });
    const refused = await call('mia', 'DELETE', `/submissions/${key}`);
    expect([refused.status, refused.body['errors']], refused.text).toEqual([
      403,
      [{ field: 'reviews', message: 'deletes a Review you may not view, which you may not delete' }],
    ]);
    expect(refused.text).not.toContain(`Review ${keys['reviews']![0]}`);
    expect(await exists(`/reviews/${keys['reviews']![0]}`)).toBe(true);
  });

  it('leaves to admins what no route deletes, whatever the x-ACL grants', async () => {
    const { key, keys } = await submission({ badges: 1 });
    expect((await call('mia', 'DELETE', `/submissions/${key}`)).status).toBe(403);
    expect(await exists(`/badges/${keys['badges']![0]}`)).toBe(true);
    expect((await call('root', 'DELETE', `/submissions/${key}`)).status).toBe(200);
    expect(await exists(`/badges/${keys['badges']![0]}`)).toBe(false);
  });

  // A stamp's own routes only read it, and let members do anything; the route that deletes it, below
  // a submission, is for admins: that one says who may take a stamp along.
  it('asks the rules of the route that deletes a model, where it is not its own', async () => {
    const { key, keys } = await submission({ stamps: 1 });
    const stamp = keys['stamps']![0]!;
    const refused = await call('mia', 'DELETE', `/submissions/${key}`);
    expect([refused.status, refused.body['errors']], refused.text).toEqual([
      403,
      [{ field: 'stamps', message: `deletes Stamp ${stamp}, which you may not delete` }],
    ]);
    expect((await call('root', 'DELETE', `/submissions/${key}`)).status).toBe(200);
    expect(await exists(`/stamps/${stamp}`)).toBe(false);
  });

  // SQLite and PostgreSQL answered a 400 naming certificates' field, which the client never sent;
  // MongoDB unlinked them, leaving certificates without the submission they must have.
  it('refuses, even to an admin, a delete that would unlink objects whose link is required', async () => {
    const { key, keys } = await submission({ certificates: 1 });
    const refused = await call('root', 'DELETE', `/submissions/${key}`);
    expect([refused.status, refused.body['errors']], refused.text).toEqual([
      409,
      [{ field: 'certificates', message: 'has related objects that need this one (their link is required)' }],
    ]);
    expect((await call('root', 'GET', `/certificates/${keys['certificates']![0]}`)).body['submission']).toBe(key);
    expect((await call('root', 'DELETE', `/certificates/${keys['certificates']![0]}`)).status).toBe(200);
    expect((await call('root', 'DELETE', `/submissions/${key}`)).status).toBe(200);
  });

  // The same 400 (organisation_id is required) answered a change that dropped them from the list.
  it('refuses, even to an admin, a change that would unlink objects whose link is required', async () => {
    const { key, keys } = await submission({ certificates: 2 });
    const [first, second] = keys['certificates']!;
    const refused = await call('root', 'PATCH', `/submissions/${key}`, { certificates: [first] });
    expect([refused.status, refused.body['errors']], refused.text).toEqual([
      409,
      [
        {
          field: 'certificates',
          message: `would unlink Certificate ${second}, whose submission is required: link it to another Submission first, or delete it`,
        },
      ],
    ]);
    expect((await call('root', 'PATCH', `/submissions/${key}`, { certificates: [] })).status).toBe(409);
    // A PUT that leaves the list out leaves it as it is; one that keeps it whole changes nothing of it.
    const put = await call('root', 'PUT', `/submissions/${key}`, { title: 'entry, again' });
    expect(put.status, put.text).toBe(200);
    expect((await call('root', 'PATCH', `/submissions/${key}`, { certificates: [second, first] })).status).toBe(200);
    for (const certificate of [first, second])
      expect((await call('root', 'GET', `/certificates/${certificate}`)).body['submission']).toBe(key);
  });

  it('refuses a bulk delete that would take along what one of its objects would', async () => {
    const plain = await submission({ notes: 1 });
    const scored = await submission({ scores: 1 });
    const ids = `${plain.key},${scored.key}`;
    const refused = await call('mia', 'DELETE', `/submissions?id__in=${ids}`);
    expect(refused.status, refused.text).toBe(403);
    for (const path of [
      `/submissions/${plain.key}`,
      `/submissions/${scored.key}`,
      `/scores/${scored.keys['scores']![0]}`,
    ])
      expect(await exists(path), path).toBe(true);
    const deleted = await call('root', 'DELETE', `/submissions?id__in=${ids}`);
    expect([deleted.status, deleted.body['count']], deleted.text).toEqual([200, 2]);
  });
});
