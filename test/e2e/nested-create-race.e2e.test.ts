/**
 * A nested create racing the delete of the parent its URL names (`POST /posts/7/comments` while
 * `DELETE /posts/7` commits). The create reads the parent before its write; when the delete commits
 * in between, the insert breaks the foreign key. An attacker probe saw PostgreSQL answer that with
 * a 400 naming the link ("post: no Post 7"), and SQLite answers a 409 ("other objects still refer
 * to this one"), a delete's refusal: neither is what the client would be told a moment later, a
 * 404 for the parent. The pairs are sent at once, many times; every answer must be one the client
 * could get from some order of the two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../support/databases.js';
import { raml } from '../support/files.js';
import { servedApi, type ServedApi } from '../support/served.js';

const API = raml(`title: Posts
baseUri: http://{host}/{version}
version: v1
/posts:
  post:
    body:
      application/json:
        schema: !include post.json
  /{id}:
    get:
    delete:
    /comments:
      get:
      post:
        body:
          application/json:
            schema: !include comment.json
`);

const id = { _db_settings: { type: 'id_field', primary_key: true } };

const POST = JSON.stringify({
  type: 'object',
  properties: {
    id,
    title: { _db_settings: { type: 'string', required: true } },
    comments: { _db_settings: { type: 'relationship', document: 'Comment', backref_name: 'post' } },
  },
});

const COMMENT = JSON.stringify({
  type: 'object',
  properties: {
    id,
    text: { _db_settings: { type: 'string', required: true } },
    post_id: {
      _db_settings: {
        type: 'foreign_key',
        ref_document: 'Post',
        ref_column: 'post.id',
        ref_column_type: 'id_field',
        ref_ondelete: 'CASCADE',
      },
    },
  },
});

const PAIRS = 60;

describe.each(ENGINES.filter((engine) => engine !== 'mongodb'))(
  'a nested create while its parent is deleted (%s)',
  (engine) => {
    let served: ServedApi;

    beforeAll(async () => {
      served = await servedApi(
        { 'api.raml': API, 'post.json': POST, 'comment.json': COMMENT },
        `e2e-nested-create-race-${engine}`,
        { engine },
      );
    }, 600_000);

    afterAll(() => served?.stop());

    it('answers 201 (before the delete) or 404 (after it), never a 400 or a 409', async () => {
      const answers = new Map<string, number>();
      for (let round = 0; round < PAIRS; round++) {
        const post = await served.api('POST', '/posts', { title: `post ${round}` });
        expect(post.status, post.text).toBe(201);
        const at = `/posts/${String(post.body.id)}`;
        const [created, deleted] = await Promise.all([
          served.api('POST', `${at}/comments`, { text: 'first!' }),
          served.api('DELETE', at),
        ]);
        expect(deleted.status, deleted.text).toBe(200);
        const said = `${created.status} ${created.status === 201 ? '' : String(created.body.message)}`;
        answers.set(said, (answers.get(said) ?? 0) + 1);
      }
      const seen = JSON.stringify([...answers]);
      for (const said of answers.keys()) expect(said, seen).toMatch(/^(201 |404 Post \d+ not found)$/);
      // Nothing is left below a deleted post.
      expect(await served.query('select id from comment')).toEqual([]);
    }, 120_000);
  },
);
