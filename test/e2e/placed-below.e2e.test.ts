/**
 * A link that puts an object below a parent asks what creating it there asks. Memberships are made
 * below a space (`/spaces/{id}/memberships`) by the space's owner alone (`{{space_owner}}`, decided
 * by `rule.parent`); a member owns the memberships she made, and may change them. Before, she could
 * move one of hers into another member's space, or make one there through the flat `/memberships`,
 * or hand one to another space from the space's side: a link asked only that she may view its
 * target. Tried on every engine, as a member, as the other space's owner and as an admin.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type Engine, type TestDatabase } from '../support/databases.js';
import { raml, usersRaml } from '../support/files.js';
import { apiClient, type Api, type Reply } from '../support/http.js';
import { projectOf, tool } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

type Rec = Record<string, unknown>;

const API = raml(`title: Spaces
baseUri: http://{host}/{version}
version: v1
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - spaces_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view, create
        item: |
          allow g:admin all
          allow {{owner}} delete
          allow authenticated view, update
  - space_memberships_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow {{space_owner}} create
          allow authenticated view
        item: |
          allow g:admin all
          allow {{owner}} view, update, delete
          deny everyone all
  - memberships_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view, create
        item: |
          allow g:admin all
          allow {{owner}} view, update, delete
          deny everyone all
  - notes_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view, create
        item: |
          allow g:admin all
          allow {{space_member}} view
          deny everyone all
  - users_acl:
      type: x-ACL
      settings:
        collection: |
          allow g:admin all
          allow authenticated view
        item: |
          allow g:admin all
          allow authenticated view
securedBy: [ticket]
/spaces:
  securedBy: [spaces_acl]
  get:
  post:
    body:
      application/json:
        schema: !include space.json
  /{id}:
    get:
    patch:
    put:
    /memberships:
      securedBy: [space_memberships_acl]
      get:
      post:
/memberships:
  securedBy: [memberships_acl]
  get:
  post:
    body:
      application/json:
        schema: !include membership.json
  /{id}:
    get:
    patch:
/notes:
  securedBy: [notes_acl]
  get:
  post:
    body:
      application/json:
        schema: !include note.json
  /{id}:
    get:
${usersRaml()}`);

const schemas = {
  'space.json': {
    type: 'object',
    _event_handlers: { before_create: ['set_space_owner'], before_replace: ['keep_archived'] },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      name: { type: 'string', _db_settings: { type: 'string', required: true } },
      archived: { type: 'boolean', _db_settings: { type: 'boolean', default: false } },
      owner: { readOnly: true, _db_settings: { type: 'string' } },
      memberships: { _db_settings: { type: 'relationship', document: 'Membership', backref_name: 'space' } },
      notes: { _db_settings: { type: 'relationship', document: 'Note', backref_name: 'space' } },
    },
  },
  'membership.json': {
    type: 'object',
    _event_handlers: { before_create: ['set_membership_owner'] },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      member: { type: 'string', _db_settings: { type: 'string', required: true } },
      owner: { readOnly: true, _db_settings: { type: 'string' } },
      space_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Space',
          ref_column: 'space.id',
          ref_column_type: 'id_field',
        },
      },
    },
  },
  'note.json': {
    type: 'object',
    _event_handlers: { before_create: ['refuse_locked_reply'] },
    properties: {
      id: { _db_settings: { type: 'id_field', primary_key: true } },
      text: { type: 'string', _db_settings: { type: 'string', required: true } },
      reply_to_id: {
        _db_settings: { type: 'foreign_key', ref_document: 'Note', ref_column: 'note.id', ref_column_type: 'id_field' },
      },
      replies: {
        _db_settings: {
          type: 'relationship',
          document: 'Note',
          backref_name: 'reply_to',
          foreign_keys: 'Note.reply_to_id',
        },
      },
      space_id: {
        _db_settings: {
          type: 'foreign_key',
          ref_document: 'Space',
          ref_column: 'space.id',
          ref_column_type: 'id_field',
        },
      },
    },
  },
  'user.json': {
    type: 'object',
    _auth_model: true,
    _hidden_fields: ['password'],
    properties: {
      username: { _db_settings: { type: 'string', primary_key: true, required: true, min_length: 1, max_length: 50 } },
      email: { _db_settings: { type: 'string', required: true, unique: true } },
      password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
      groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
    },
  },
};

/** The user code, as the stubs' comments say to write it: by `object`, `rule.parent` and `request.user`. */
const USER_CODE: Record<string, string> = {
  'principals/owner.ts': `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Membership } from '../../models/membership.js';
import type { Space } from '../../models/space.js';

export function owner(_request: FastifyRequest, object: Space | Membership | undefined, rule: AclRule): AclResult {
  return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
}
`,
  'principals/space-owner.ts': `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Membership } from '../../models/membership.js';

/** The owner of the space a membership is made in. */
export function spaceOwner(_request: FastifyRequest, _object: Membership | undefined, rule: AclRule): AclResult {
  // Told the parent's model, as a principal used below several models would ask.
  if (rule.parentModel !== 'Space') return undefined;
  const owner = rule.parent?.['owner'];
  return typeof owner === 'string' ? grant(rule, user(owner)) : undefined;
}
`,
  // A handler that reads the note a reply names: it must never see one the caller may not view.
  'handlers/refuse-locked-reply.ts': `import { HttpError } from '../../lib/errors.js';
import type { RefuseLockedReplyEvent } from '../../events.js';

export async function refuseLockedReply(event: RefuseLockedReplyEvent): Promise<void> {
  const to = event.fields.reply_to?.new_value;
  if (to == null) return;
  const note = await event.db.note.findUnique({ where: { id: to } });
  if (note?.text === 'locked') throw new HttpError(409, 'that note is locked');
}
`,
  // A guard of what a PUT writes, the fields it leaves out (back to their defaults) among them.
  'handlers/keep-archived.ts': `import { HttpError } from '../../lib/errors.js';
import type { KeepArchivedEvent } from '../../events.js';

export async function keepArchived(event: KeepArchivedEvent): Promise<void> {
  if (event.instance?.archived && event.fields.archived?.new_value === false)
    throw new HttpError(409, 'an archived space stays archived');
}
`,
  // Access through a membership: the principal and its `where` read the caller's memberships.
  'principals/space-member.ts': `import type { FastifyRequest } from 'fastify';
import { databaseOf } from '../../db/index.js';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { Note } from '../../models/note.js';

const caller = (request: FastifyRequest) => (typeof request.user?.['username'] === 'string' ? request.user['username'] : null);

export async function spaceMember(request: FastifyRequest, object: Note | undefined, rule: AclRule): Promise<AclResult> {
  const me = caller(request);
  if (me === null || object?.space == null) return undefined;
  const member = await databaseOf(request).membership.findFirst({ where: { space: object.space, member: me } });
  return member ? grant(rule, user(me)) : undefined;
}

spaceMember.where = async (request: FastifyRequest, _rule: AclRule): Promise<PrincipalWhere<Note>> => {
  const me = caller(request);
  if (me === null) return false;
  const mine = await databaseOf(request).membership.findMany({ where: { member: me } });
  return { space: { in: mine.flatMap((m) => (m.space == null ? [] : [m.space])) } };
};
`,
  ...Object.fromEntries(
    ['Space', 'Membership'].map((model) => [
      `handlers/set-${model.toLowerCase()}-owner.ts`,
      `import type { Set${model}OwnerEvent } from '../../events.js';

export async function set${model}Owner(event: Set${model}OwnerEvent): Promise<void> {
  const user = event.view.request.user;
  if (user) event.setFieldValue('owner', String(user['username']));
}
`,
    ]),
  ),
};

let dir: string;

beforeAll(async () => {
  dir = await projectOf(
    {
      'api.raml': API,
      ...Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, JSON.stringify(schema)])),
    },
    'e2e-placed-below',
  );
  for (const [file, code] of Object.entries(USER_CODE)) writeFileSync(join(dir, 'src/custom', file), code);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  expect(build.exitCode, build.all).toBe(0);
}, 600_000);

/** A running service with auth on: root (an admin), ann and ben logged in; `as(who, …)` sends with their cookie. */
function spacesService(engine: Engine, label: string) {
  const cookies = new Map<string, string>();
  let database: TestDatabase | undefined;
  let service: RunningService | undefined;
  let api: Api | undefined;
  const as = (who: string, method: string, path: string, body?: unknown): Promise<Reply> =>
    api!(method, path, body, { headers: { cookie: cookies.get(who)! } });
  /** The key of what `who` creates at `path` (201). */
  const made = async (who: string, path: string, body: Rec) => {
    const reply = await as(who, 'POST', path, body);
    expect(reply.status, reply.text).toBe(201);
    return reply.body['id'];
  };
  const start = async () => {
    database = await testDatabase(engine, dir, label);
    service = await startService(
      dir,
      {
        ...database.env,
        SVC_AUTH: 'true',
        SVC_AUTH_TKT_SECRET: 'placed-secret-0123456789abcdef0123456789',
        SVC_SYSTEM_USER: 'root',
        SVC_SYSTEM_PASSWORD: 'root-password',
        SVC_SYSTEM_EMAIL: 'root@example.com',
        SVC_RATE_LIMIT_AUTH: '0',
      },
      '/v1',
    );
    api = apiClient(service.origin, '/v1');
    const keep = (who: string, reply: Reply) => {
      expect(reply.status, reply.text).toBeLessThan(300);
      cookies.set(who, /auth_tkt=[^;]*/.exec(reply.headers.get('set-cookie') ?? '')![0]);
    };
    keep('root', await api('POST', '/auth/login', { login: 'root', password: 'root-password' }));
    for (const name of ['ann', 'ben'])
      keep(
        name,
        await api('POST', '/auth/register', { username: name, email: `${name}@example.com`, password: 'password-123' }),
      );
  };
  const stop = async () => {
    await service?.stop();
    await database?.drop();
  };
  return { as, made, start, stop };
}

describe.each(ENGINES)('a link puts an object below a parent only where its caller may create it, on %s', (engine) => {
  const { as, made, start, stop } = spacesService(engine, 'placed');
  let annSpace: unknown;
  let benSpace: unknown;
  /** A membership ann made in her space: hers to change. */
  let annMembership: unknown;
  const spaceOf = async (membership: unknown) =>
    (await as('root', 'GET', `/memberships/${String(membership)}`)).body['space'];

  beforeAll(async () => {
    await start();
    annSpace = await made('ann', '/spaces', { name: "ann's" });
    benSpace = await made('ben', '/spaces', { name: "ben's" });
    annMembership = await made('ann', `/spaces/${String(annSpace)}/memberships`, { member: 'carl' });
  }, 120_000);

  afterAll(stop);

  it("refuses a member's create below another's space on its nested route", async () => {
    const reply = await as('ann', 'POST', `/spaces/${String(benSpace)}/memberships`, { member: 'carl' });
    expect(reply.status, reply.text).toBe(403);
  });

  it("refuses a member who moves her membership into another's space, and it stays where it was", async () => {
    const reply = await as('ann', 'PATCH', `/memberships/${String(annMembership)}`, { space: benSpace });
    expect([reply.status, reply.body['message'], reply.body['errors']], reply.text).toEqual([
      403,
      `you may not create a Membership below Space ${String(benSpace)}`,
      [{ field: 'space', message: `puts a Membership below Space ${String(benSpace)}, where you may not create one` }],
    ]);
    expect(await spaceOf(annMembership)).toEqual(annSpace);
  });

  it("refuses a create through the flat route that names another's space, and nothing is made", async () => {
    const before = (await as('root', 'GET', '/memberships?_count')).body;
    const reply = await as('ann', 'POST', '/memberships', { member: 'dan', space: benSpace });
    expect(reply.status, reply.text).toBe(403);
    expect((await as('root', 'GET', '/memberships?_count')).body).toEqual(before);
  });

  it("refuses a member who hands her membership to another's space from the space's side", async () => {
    // She may update every space and her own membership, but not create memberships in ben's space.
    const reply = await as('ann', 'PATCH', `/spaces/${String(benSpace)}`, { memberships: [annMembership] });
    expect([reply.status, reply.body['errors']], reply.text).toEqual([
      403,
      [
        {
          field: 'memberships',
          message: `puts a Membership below Space ${String(benSpace)}, where you may not create one`,
        },
      ],
    ]);
    expect(await spaceOf(annMembership)).toEqual(annSpace);
  });

  it('lets a member link what she may create there, and change what she does not move', async () => {
    const flat = await as('ann', 'POST', '/memberships', { member: 'dan', space: annSpace });
    expect(flat.status, flat.text).toBe(201);
    const renamed = await as('ann', 'PATCH', `/memberships/${String(annMembership)}`, { member: 'carla' });
    expect(renamed.status, renamed.text).toBe(200);
    const second = (await as('ann', 'POST', '/spaces', { name: "ann's second" })).body['id'];
    const moved = await as('ann', 'PATCH', `/memberships/${String(flat.body['id'])}`, { space: second });
    expect(moved.status, moved.text).toBe(200);
    expect(await spaceOf(flat.body['id'])).toEqual(second);
  });

  it('lets an admin move a membership anywhere', async () => {
    const reply = await as('root', 'PATCH', `/memberships/${String(annMembership)}`, { space: benSpace });
    expect(reply.status, reply.text).toBe(200);
    expect(await spaceOf(annMembership)).toEqual(benSpace);
  });
});

describe.each(ENGINES)('a PUT shows its before handlers every field it writes, on %s', (engine) => {
  const { as, made, start, stop } = spacesService(engine, 'replace');

  beforeAll(start, 120_000);
  afterAll(stop);

  it('lets a guard see a field the PUT leaves out go back to its default', async () => {
    const space = await made('ann', '/spaces', { name: 'old' });
    expect((await as('ann', 'PATCH', `/spaces/${String(space)}`, { archived: true })).status).toBe(200);
    // `archived` is left out: the PUT would make it false again, which the guard refuses.
    const put = await as('ann', 'PUT', `/spaces/${String(space)}`, { name: 'renamed' });
    expect([put.status, put.body.message], put.text).toEqual([409, 'an archived space stays archived']);
    expect((await as('root', 'GET', `/spaces/${String(space)}`)).body).toMatchObject({ name: 'old', archived: true });
    const kept = await as('ann', 'PUT', `/spaces/${String(space)}`, { name: 'renamed', archived: true });
    expect(kept.status, kept.text).toBe(200);
  });
});

describe.each(ENGINES)(
  "a principal that decides by the caller's memberships, read from the database, on %s",
  (engine) => {
    const { as, made, start, stop } = spacesService(engine, 'members');
    let inAnns: unknown;
    let inBens: unknown;
    let inAnnsSpace: unknown;
    let inBensSpace: unknown;

    beforeAll(async () => {
      await start();
      const annSpace = await made('ann', '/spaces', { name: "ann's" });
      const benSpace = await made('ben', '/spaces', { name: "ben's" });
      inAnnsSpace = annSpace;
      inBensSpace = benSpace;
      // Ben is a member of ann's space; nobody is a member of ben's (he owns it, which gives no note).
      await made('ann', `/spaces/${String(annSpace)}/memberships`, { member: 'ben' });
      inAnns = await made('root', '/notes', { text: "for members of ann's", space: annSpace });
      inBens = await made('root', '/notes', { text: "for members of ben's", space: benSpace });
    }, 120_000);

    afterAll(stop);

    it('lets a member read the notes of a space they are a member of, and no other', async () => {
      expect((await as('ben', 'GET', `/notes/${String(inAnns)}`)).status).toBe(200);
      expect((await as('ben', 'GET', `/notes/${String(inBens)}`)).status).toBe(403);
      // Ann owns her space but is no member of it.
      expect((await as('ann', 'GET', `/notes/${String(inAnns)}`)).status).toBe(403);
    });

    it('answers a reply to a note the caller may not view as one to none, before any handler reads it', async () => {
      const locked = await made('root', '/notes', { text: 'locked', space: inBensSpace });
      const toHidden = await as('ben', 'POST', '/notes', { text: 'a reply', space: inAnnsSpace, reply_to: locked });
      const toNone = await as('ben', 'POST', '/notes', { text: 'a reply', space: inAnnsSpace, reply_to: 999_999 });
      expect([toHidden.status, toHidden.body.errors], toHidden.text).toEqual([
        400,
        [{ field: 'reply_to', message: `Note ${String(locked)} not found` }],
      ]);
      expect([toNone.status, toNone.body.errors]).toEqual([
        400,
        [{ field: 'reply_to', message: 'Note 999999 not found' }],
      ]);
    });

    it("lists, counts and searches only what the principal's where selects", async () => {
      const listed = await as('ben', 'GET', '/notes');
      expect([listed.body['total'], (listed.body['data'] as Rec[]).map((n) => n['id'])]).toEqual([1, [inAnns]]);
      expect((await as('ben', 'GET', '/notes?_count')).body).toEqual({ count: 1 });
      expect((await as('ann', 'GET', '/notes')).body['total']).toBe(0);
    });

    it('answers 30 writes at once whose answers ask the principal, which reads through databaseOf(request)', async () => {
      // Each PUT runs in a transaction (the space's before_replace handler), and its answer hides the
      // notes ben may not view: the principal's `where` reads his memberships. Read outside the
      // transaction, that took a second connection of PostgreSQL's pool (10) while holding the
      // first: ten writes at once each waited for a second, and every request got 503 after 2 s.
      const spaces = await Promise.all(Array.from({ length: 30 }, (_, i) => made('ben', '/spaces', { name: `s${i}` })));
      await Promise.all(spaces.map((space) => made('root', '/notes', { text: 'hidden from ben', space })));
      const writes = await Promise.all(
        spaces.map((space) => as('ben', 'PUT', `/spaces/${String(space)}`, { name: 'renamed' })),
      );
      expect(writes.map((w) => w.status)).toEqual(spaces.map(() => 200));
      expect(writes.map((w) => w.body['notes'])).toEqual(spaces.map(() => []));
      expect((await as('ben', 'GET', `/spaces/${String(inAnnsSpace)}`)).body['notes']).toEqual([inAnns]);
    });
  },
);
