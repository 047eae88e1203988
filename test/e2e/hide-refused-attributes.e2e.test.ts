/**
 * `auth.hide_refused` answers an item the rules refuse by the object, and that the caller may not
 * view, as one that does not exist (404): also through its dict and list fields' routes
 * (`/articles/1/tags`), which are decided on that item. An attacker told draft articles from
 * missing ones there: a 403 or 401 against a 404. Below a parent whose rules refuse the caller
 * whatever it is, the answer is the parent's own 401, for a parent that exists or not. SQLite, auth on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const API = securedRaml(
  'Newsroom',
  {
    article_acl: {
      collection: 'allow g:admin all\nallow authenticated create',
      item: 'allow g:admin all\nallow {{author}} all\ndeny everyone all',
    },
    desk_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\nallow authenticated view',
    },
    notice_acl: { collection: 'allow g:admin all\nallow everyone view' },
    memo_acl: {
      collection: 'allow g:admin all\nallow authenticated view, create',
      item: 'allow g:admin all\nallow {{holder}} all\ndeny everyone all',
    },
  },
  `
/desks:
  securedBy: [desk_acl]
  post:
    body:
      application/json:
        schema: !include desk.json
  /{id}:
    get:
    /notices:
      securedBy: [notice_acl]
      get:
      post:
        body:
          application/json:
            schema: !include notice.json
    /memo:
      securedBy: [memo_acl]
      get:
      post:
        body:
          application/json:
            schema: !include memo.json
/articles:
  securedBy: [article_acl]
  post:
    body:
      application/json:
        schema: !include article.json
  /{id}:
    get:
    /tags:
      get:
      post:
`,
);

const ARTICLE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    title: { type: 'string', _db_settings: { type: 'string', required: true } },
    author: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    tags: { type: ['array', 'null'], _db_settings: { type: 'list', item_type: 'string' } },
  },
});

/** `{{author}}`: who wrote an article may do anything with it. */
const DESK = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    notices: { _db_settings: { type: 'relationship', document: 'Notice', backref_name: 'desk' } },
    memo: { _db_settings: { type: 'relationship', document: 'Memo', backref_name: 'desk', uselist: false } },
  },
});

/** A desk's one memo (`/desks/{id}/memo`), which only its holder reads. */
const MEMO = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    holder: { type: ['string', 'null'], _db_settings: { type: 'string' } },
    desk_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Desk', ref_column: 'desk.id', ref_column_type: 'id_field' },
    },
  },
});

const HOLDER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Memo } from '../../models/memo.js';

export function holder(_request: FastifyRequest, object: Memo | undefined, rule: AclRule): AclResult {
  return object?.holder != null ? grant(rule, user(object.holder)) : undefined;
}
`;

const NOTICE = JSON.stringify({
  type: 'object',
  properties: {
    id: { _db_settings: { type: 'id_field', primary_key: true } },
    desk_id: {
      _db_settings: { type: 'foreign_key', ref_document: 'Desk', ref_column: 'desk.id', ref_column_type: 'id_field' },
    },
  },
});

const AUTHOR = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Article } from '../../models/article.js';

export function author(_request: FastifyRequest, object: Article | undefined, rule: AclRule): AclResult {
  return object?.author != null ? grant(rule, user(object.author)) : undefined;
}
`;

describe('auth.hide_refused on the routes of an item’s dict and list fields', () => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  let draft: number;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    const files = {
      'api.raml': API,
      'article.json': ARTICLE,
      'desk.json': DESK,
      'notice.json': NOTICE,
      'memo.json': MEMO,
    };
    served = await servedApi(files, 'e2e-hide-refused-attributes', {
      env: { ...rootAuthEnv(), SVC_AUTH_HIDE_REFUSED: 'true' },
      prepare: (dir) => {
        writeFileSync(join(dir, 'src/custom/principals/author.ts'), AUTHOR);
        writeFileSync(join(dir, 'src/custom/principals/holder.ts'), HOLDER);
      },
    });
    tokens = await memberTokens(api, ['ann', 'ben']);
    const made = await api('POST', '/articles', { title: 'Embargoed', author: 'ann', tags: ['scoop'] }, as('root'));
    expect(made.status, made.text).toBe(201);
    draft = made.body.id as number;
  }, 600_000);

  afterAll(() => served?.stop());

  it('answers another member’s article there as one that is not there, whatever the method', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', ['leak']],
    ] as const) {
      const hidden = await api(method, `/articles/${draft}/tags`, body, as('ben'));
      const missing = await api(method, '/articles/999999/tags', body, as('ben'));
      expect([hidden.status, missing.status], `${method}: ${hidden.text}`).toEqual([404, 404]);
      expect(hidden.body.message).toBe(`Article ${draft} not found`);
    }
    // Its author still reads it.
    const own = await api('GET', `/articles/${draft}/tags`, undefined, as('ann'));
    expect([own.status, own.body], own.text).toEqual([200, ['scoop']]);
  });

  it('answers a parent’s one-to-one object the caller may not view as one the parent does not have, word for word', async () => {
    const desk = async () => (await api('POST', '/desks', {}, as('root'))).body.id as number;
    const [held, bare] = [await desk(), await desk()];
    const memo = await api('POST', `/desks/${held}/memo`, { holder: 'ann' }, as('root'));
    expect(memo.status, memo.text).toBe(201);
    const hidden = await api('GET', `/desks/${held}/memo`, undefined, as('ben'));
    const missing = await api('GET', `/desks/${bare}/memo`, undefined, as('ben'));
    expect([hidden.status, missing.status], hidden.text).toEqual([404, 404]);
    expect(hidden.body.message).toBe(`Desk ${held} has no memo`);
    expect(missing.body.message).toBe(`Desk ${bare} has no memo`);
    const own = await api('GET', `/desks/${held}/memo`, undefined, as('ann'));
    expect([own.status, own.body.holder], own.text).toEqual([200, 'ann']);
  });

  it('answers an anonymous caller there as the item route does', async () => {
    const item = await api('GET', `/articles/${draft}`);
    const tags = await api('GET', `/articles/${draft}/tags`);
    expect([item.status, tags.status]).toEqual([404, 404]);
  });

  it('tells a logged-out caller below a desk to log in, as the desk’s own URL does, whether or not it exists', async () => {
    // Desks refuse anonymous callers whatever the desk is: nothing is read, so nothing tells which
    // exist (a probe's front end got "log in" at /campaigns/1 and "not found" below it).
    const desk = (await api('POST', '/desks', {}, as('root'))).body.id as number;
    expect((await api('GET', `/desks/${desk}`)).status).toBe(401);
    for (const key of [desk, 999999]) {
      const below = await api('GET', `/desks/${key}/notices`);
      expect([below.status, below.body.message], below.text).toEqual([401, `log in to read Desk ${key}`]);
    }
    expect((await api('GET', `/desks/${desk}/notices`, undefined, as('ben'))).status).toBe(200);
  });
});
