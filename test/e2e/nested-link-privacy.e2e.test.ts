/**
 * A nested route finds its objects by their link to the parent, so it tells what that link is:
 * `/speakers/{id}/proposals` lists whose proposals these are. Where field privacy hides the link
 * from a caller (a proposal's `speaker`, left out of `_auth_fields` for a blind review), the route
 * is refused to them, as a filter by the link is (`?speaker=1`: 400). A probe's reviewer once read
 * who proposed what through the nested route. A nested route whose link is readable still serves,
 * and the ACL matrix (`inspect --acl`, the generated acl.test.ts, run here) says the same as the
 * service. SQLite, auth on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { tool } from '../support/project.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Papers',
  {
    open_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow authenticated view, update',
    },
  },
  `
/speakers:
  securedBy: [open_acl]
  get:
  post:
    body:
      application/json:
        schema: !include speaker.json
  /{id}:
    get:
    /proposals:
      securedBy: [open_acl]
      get:
      post:
        body:
          application/json:
            schema: !include proposal.json
      /{pid}:
        get:
        patch:
    /talks:
      securedBy: [open_acl]
      get:
/proposals:
  securedBy: [open_acl]
  get:
  /{id}:
    get:
/talks:
  securedBy: [open_acl]
  get:
  post:
    body:
      application/json:
        schema: !include talk.json
`,
);

const keyOf = (target: string) => ({
  _db_settings: {
    type: 'foreign_key',
    ref_document: target,
    ref_column: `${target.toLowerCase()}.id`,
    ref_column_type: 'id_field',
  },
});

const FILES = {
  'api.raml': API,
  'speaker.json': JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      name: { _db_settings: { type: 'string', required: true } },
      proposals: { _db_settings: { type: 'relationship', document: 'Proposal', backref_name: 'speaker' } },
      talks: { _db_settings: { type: 'relationship', document: 'Talk', backref_name: 'speaker' } },
    },
  }),
  // Blind review: members read a proposal without its speaker.
  'proposal.json': JSON.stringify({
    type: 'object',
    _auth_fields: ['id', 'title'],
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      title: { _db_settings: { type: 'string', required: true } },
      speaker_id: keyOf('Speaker'),
    },
  }),
  'talk.json': JSON.stringify({
    type: 'object',
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      title: { _db_settings: { type: 'string', required: true } },
      speaker_id: keyOf('Speaker'),
    },
  }),
};

describe('a nested route whose link field privacy hides', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });
  let speaker: number;
  let proposal: number;

  beforeAll(async () => {
    served = await servedApi(FILES, 'e2e-nested-link-privacy', { env: rootAuthEnv() });
    tokens = await memberTokens(api, ['rita']);
    speaker = (await api('POST', '/speakers', { name: 'Alice' }, as('root'))).body.id as number;
    const made = await api('POST', `/speakers/${speaker}/proposals`, { title: 'Embedded Rust' }, as('root'));
    expect(made.status, made.text).toBe(201);
    proposal = made.body.id as number;
    expect((await api('POST', '/talks', { title: 'Keynote', speaker }, as('root'))).status).toBe(201);
  }, 600_000);

  afterAll(() => served?.stop());

  it('is refused to a member who may not read the link, for every method, as a filter by it is', async () => {
    const filtered = await api('GET', `/proposals?speaker=${speaker}`, undefined, as('rita'));
    expect(filtered.status, filtered.text).toBe(400);
    const message = 'you may not read speaker of a Proposal, which this route lists them by';
    for (const [method, path, body] of [
      ['GET', `/speakers/${speaker}/proposals?_fields=id,title`, undefined],
      ['GET', `/speakers/${speaker}/proposals?_count`, undefined],
      ['GET', `/speakers/${speaker}/proposals/${proposal}`, undefined],
      ['PATCH', `/speakers/${speaker}/proposals/${proposal}`, { title: 'x' }],
      ['POST', `/speakers/${speaker}/proposals`, { title: 'mine' }],
      // A speaker that does not exist: the same answer, so it tells nothing of which do.
      ['GET', '/speakers/999999/proposals', undefined],
    ] as const) {
      const reply = await api(method, path, body, as('rita'));
      expect([reply.status, reply.body.message], `${method} ${path}: ${reply.text}`).toEqual([403, message]);
      expect(reply.text).not.toContain('Embedded Rust');
    }
    const anonymous = await api('GET', `/speakers/${speaker}/proposals`);
    expect(anonymous.status).toBe(401);
    // Nor does the speaker's side of the link tell her: a speaker shows her no proposals.
    const shown = await api('GET', `/speakers/${speaker}`, undefined, as('rita'));
    expect([shown.status, shown.body.proposals], shown.text).toEqual([200, undefined]);
    // The proposal itself she reads, without its speaker.
    const own = await api('GET', `/proposals/${proposal}`, undefined, as('rita'));
    expect([own.status, own.body.title, 'speaker' in own.body], own.text).toEqual([200, 'Embedded Rust', false]);
  });

  it('serves an admin, and a nested route whose link the member may read', async () => {
    const admin = await api('GET', `/speakers/${speaker}/proposals`, undefined, as('root'));
    expect([admin.status, admin.body.total], admin.text).toEqual([200, 1]);
    const talks = await api('GET', `/speakers/${speaker}/talks`, undefined, as('rita'));
    expect([talks.status, talks.body.total], talks.text).toEqual([200, 1]);
  });

  it('says of a link given as text that is no key what it must be (it once quoted the pattern)', async () => {
    const reply = await api('POST', '/talks', { title: 'x', speaker: 'abc' }, as('root'));
    expect([reply.status, reply.body.errors], reply.text).toEqual([
      400,
      [{ field: 'speaker', message: 'must be the key of the object it links to: a whole number' }],
    ]);
  });

  it('is in the ACL matrix as the service answers it, which the generated acl.test.ts checks', async () => {
    const test = readFileSync(join(served.dir, 'test/acl.test.ts'), 'utf8');
    expect(test).toMatch(/\['GET', '\/speakers\/\{id\}\/proposals', 401, 403, 403, 'allowed'\]/);
    expect(test).toMatch(/\['GET', '\/speakers\/\{id\}\/talks', 401, 'allowed', 'allowed', 'allowed'\]/);
    const run = await tool(served.dir, 'vitest', ['run', 'test/acl.test.ts']);
    expect(run.exitCode, run.all).toBe(0);
  }, 300_000);
});
