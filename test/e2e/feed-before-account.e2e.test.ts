/**
 * The change feed's past from before the caller's account existed is judged as a newcomer's (what
 * no object names them in: a deleted user's name taken again brings none of that user's past) and
 * as the caller's too: a deny that names them (a block) holds on it as on the rest. A dating-app
 * attacker, blocked, replayed the blocker's posts from before the attacker's account (Last-Event-ID:
 * 0), which the newcomer alone was judged for. And a principal that reads by the caller's key, as
 * the stubs show, is given one PostgreSQL takes: a newcomer's was a NUL, which PostgreSQL refuses, and
 * the replay stopped there for good. SQLite and PostgreSQL, auth on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFeed, type FeedMessage } from '../support/feed.js';
import { securedRaml } from '../support/files.js';
import type { Api } from '../support/http.js';
import { rootAuthEnv } from '../support/library.js';
import { memberTokens, servedApi, type ServedApi } from '../support/served.js';

const API = securedRaml(
  'Profiles',
  {
    post_acl: {
      collection: 'allow g:admin all\nallow authenticated view',
      item: 'allow g:admin all\ndeny {{blocked_by_author}} all\nallow authenticated view',
    },
    block_acl: { collection: 'allow g:admin all' },
  },
  `
/posts:
  securedBy: [post_acl]
  get:
  post:
    body:
      application/json:
        schema: !include post.json
  /{id}:
    get:
/blocks:
  securedBy: [block_acl]
  get:
  post:
    body:
      application/json:
        schema: !include block.json
`,
);

const id = { _db_settings: { type: 'id_field', primary_key: true } };
const text = { type: 'string', _db_settings: { type: 'string', required: true } };

const FILES = {
  'api.raml': API,
  'post.json': JSON.stringify({ type: 'object', properties: { id, author: text, body: text } }),
  'block.json': JSON.stringify({ type: 'object', properties: { id, blocker: text, blocked: text } }),
};

/** `{{blocked_by_author}}`: the users the post's author blocks. */
const BLOCKED = `import type { FastifyRequest } from 'fastify';
import { databaseOf } from '../../db/index.js';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Post } from '../../models/post.js';

export async function blockedByAuthor(request: FastifyRequest, object: Post | undefined, rule: AclRule): Promise<AclResult> {
  const caller = request.user?.['username'];
  if (!object || typeof caller !== 'string') return undefined;
  // By the caller's key, as a membership would be read.
  const blocks = await databaseOf(request).block.findMany({ where: { blocker: object.author, blocked: caller } });
  return blocks.map((b) => grant(rule, user(b.blocked)));
}
`;

describe.each(['sqlite', 'postgres'] as const)('the change feed before the caller had an account, on %s', (engine) => {
  let served: ServedApi;
  let tokens: Map<string, string>;
  const api: Api = (...args) => served.api(...args);
  const as = (name: string) => ({ headers: { authorization: tokens.get(name)! } });

  beforeAll(async () => {
    served = await servedApi(FILES, `e2e-feed-before-account-${engine}`, {
      engine,
      env: rootAuthEnv(),
      prepare: (dir) => writeFileSync(join(dir, 'src/custom/principals/blocked-by-author.ts'), BLOCKED),
    });
    tokens = await memberTokens(api, []);
    for (const [author, body] of [
      ['alice', "alice's bio"],
      ['bob', "bob's bio"],
    ])
      expect((await api('POST', '/posts', { author, body }, as('root'))).status).toBe(201);
    // Eve's account comes after both posts; then alice blocks her.
    for (const [name, token] of await memberTokens(api, ['eve'])) tokens.set(name, token);
    expect((await api('POST', '/blocks', { blocker: 'alice', blocked: 'eve' }, as('root'))).status).toBe(201);
  }, 600_000);

  afterAll(() => served?.stop());

  it("keeps what a deny of theirs hides: a blocker's past, replayed from the start", async () => {
    const feed = await openFeed(`${served.origin}/v1/_events?types=Post.*`, {
      authorization: tokens.get('eve')!,
      'last-event-id': '0',
    });
    try {
      const authors = (ms: readonly FeedMessage[]) =>
        ms.map((m) => (JSON.parse(m.data) as { data: { object: { author: string } } }).data.object.author);
      await feed.until((ms) => authors(ms).includes('bob'));
      // The last of the two posts has come (bob's): alice's, before it, was judged and kept back.
      expect(authors(feed.messages)).toEqual(['bob']);
      expect((await api('GET', '/posts/1', undefined, as('eve'))).status).toBe(403);
    } finally {
      feed.close();
    }
  });
});
