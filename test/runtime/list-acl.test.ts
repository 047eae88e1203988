/**
 * Lists under item rules (issue 34): the condition `selectable` gives the database must select
 * exactly the objects that `decide` lets the caller view one by one, for random item rules of
 * fixed and `{{owner}}` principals, random callers and random objects, with SQL's three truth
 * values (a comparison with a null owner is unknown; `EXCEPT` includes it, `NOT` would not).
 * A principal without `where` leaves the objects from its line on to the collection rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

type Permission = 'view' | 'create' | 'update' | 'delete' | 'options';
type Principal = 'everyone' | 'authenticated' | { readonly group: string } | { readonly user: string };
type Rec = Record<string, unknown>;
interface Rule {
  readonly action: 'allow' | 'deny';
  readonly permissions: readonly Permission[];
  readonly model: string;
  readonly parent?: Rec;
  readonly parentModel?: string;
}
type Dynamic = ((request: Request, object: Rec | undefined, rule: Rule) => unknown) & {
  where?: (request: Request, rule: Rule) => unknown;
};
interface AclLine extends Omit<Rule, 'model' | 'parent' | 'parentModel'> {
  readonly principal: Principal | { readonly dynamic: string; readonly call: Dynamic };
  readonly text: string;
}
interface Acl {
  readonly collection: readonly AclLine[];
  readonly item: readonly AclLine[];
}
interface Caller {
  readonly id: string | null;
  readonly groups: ReadonlySet<string>;
}
interface Request {
  readonly user: { readonly username: string } | null;
}
type Selection = boolean | Rec;

// Loaded by URL: the module imports Fastify's types, which generated projects have and this repository does not.
const { decide, selectable, grant, user } = (await import(
  new URL('../../runtime/src/lib/auth/acl.ts', import.meta.url).href
)) as {
  decide: (
    acl: Acl,
    caller: Caller,
    p: Permission,
    request: Request,
    model: string,
    object?: Rec,
    parent?: { readonly object: Rec; readonly model: string | undefined },
  ) => Promise<{ allowed: boolean }>;
  selectable: (acl: Acl, caller: Caller, p: Permission, request: Request, model: string) => Promise<Selection>;
  grant: (rule: Rule, principal: Principal) => unknown;
  user: (id: string) => Principal;
};

/** `{{owner}}`: the object's owner gets the line's rule; its `where` selects the caller's objects. */
const owner: Dynamic = Object.assign(
  (_request: Request, object: Rec | undefined, rule: Rule) =>
    typeof object?.['owner'] === 'string' ? grant(rule, user(object['owner'])) : undefined,
  { where: (request: Request) => (request.user ? { owner: request.user.username } : false) },
);
/** `{{anyone}}`: everyone gets the line's rule, on every object. */
const anyone: Dynamic = Object.assign((_r: Request, _o: Rec | undefined, rule: Rule) => grant(rule, 'everyone'), {
  where: () => true,
});

const PERMISSIONS: Permission[] = ['view', 'create', 'update', 'delete', 'options'];
const principal = fc.oneof(
  fc.constant<Principal>('everyone'),
  fc.constant<Principal>('authenticated'),
  fc.constantFrom('admin', 'banned').map((g) => ({ group: g })),
  fc.constantFrom('ann', 'bob').map((u) => ({ user: u })),
  fc.constantFrom({ dynamic: 'owner', call: owner }, { dynamic: 'anyone', call: anyone }),
);
const line = fc
  .record({
    action: fc.constantFrom('allow' as const, 'deny' as const),
    principal,
    permissions: fc.oneof(fc.subarray(PERMISSIONS, { minLength: 1 }), fc.constant(PERMISSIONS)),
  })
  .map((l): AclLine => ({ ...l, text: `${l.action} …` }));
const caller = fc.oneof(
  fc.constant<Caller>({ id: null, groups: new Set() }),
  fc.record({
    id: fc.constantFrom('ann', 'bob', 'cid'),
    groups: fc.subarray(['admin', 'banned', 'user']).map((g) => new Set(g)),
  }),
);
const objects = fc.array(
  fc.record({ id: fc.nat(), owner: fc.constantFrom<string | null>('ann', 'bob', 'cid', null) }),
  { minLength: 1, maxLength: 8 },
);
/** Collection rules that let everyone list: the item rules alone decide what the list holds. */
const LIST_ALL: readonly AclLine[] = [{ action: 'allow', principal: 'everyone', permissions: ['view'], text: '' }];

/** A condition on one object, as SQL reads it: true, false or unknown (null). */
function truth(where: Selection, object: Rec): boolean | null {
  if (typeof where === 'boolean') return where;
  const parts: (boolean | null)[] = Object.entries(where).map(([key, value]) => {
    if (key === 'AND') return and((value as Selection[]).map((w) => truth(w, object)));
    if (key === 'OR') return or((value as Selection[]).map((w) => truth(w, object)));
    if (key === 'EXCEPT') return truth(value as Selection, object) !== true;
    if (value && typeof value === 'object' && 'in' in value) return (value.in as unknown[]).includes(object[key]);
    return object[key] === null ? null : object[key] === value;
  });
  return and(parts);
}

function and(values: (boolean | null)[]): boolean | null {
  return values.includes(false) ? false : values.includes(null) ? null : true;
}

function or(values: (boolean | null)[]): boolean | null {
  return values.includes(true) ? true : values.includes(null) ? null : false;
}

const requestOf = (who: Caller): Request => ({ user: who.id === null ? null : { username: who.id } });

describe('lists under item rules', () => {
  it('select exactly the objects each of which the caller may view', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 6 }), caller, objects, async (item, who, rows) => {
        const acl = { collection: LIST_ALL, item };
        const request = requestOf(who);
        const selection = await selectable(acl, who, 'view', request, 'Note');
        for (const row of rows) {
          const alone = (await decide(acl, who, 'view', request, 'Note', row)).allowed;
          expect(truth(selection, row) === true, `${JSON.stringify(row)} in ${JSON.stringify(selection)}`).toBe(alone);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('decide nothing in the database from a principal without where on: the collection rules list those objects', async () => {
    const plain: Dynamic = (_r, object, rule) =>
      typeof object?.['owner'] === 'string' ? grant(rule, user(object['owner'])) : undefined;
    const member: Caller = { id: 'ann', groups: new Set(['user']) };
    const acl = (item: AclLine[]): Acl => ({ collection: LIST_ALL, item });
    const line = (action: 'allow' | 'deny', principal: AclLine['principal']): AclLine => ({
      action,
      principal,
      permissions: ['view'],
      text: '',
    });
    // Without where, as Ramses: every object is listed, though the item itself is refused.
    const withoutWhere = acl([line('allow', { dynamic: 'plain', call: plain }), line('deny', 'everyone')]);
    expect(await selectable(withoutWhere, member, 'view', requestOf(member), 'Note')).toBe(true);
    // With where: the member's own objects only.
    const withWhere = acl([line('allow', { dynamic: 'owner', call: owner }), line('deny', 'everyone')]);
    expect(await selectable(withWhere, member, 'view', requestOf(member), 'Note')).toEqual({ owner: 'ann' });
    // A fixed principal before it still decides every object.
    const banned: Caller = { id: 'olga', groups: new Set(['banned']) };
    const bannedFirst = acl([line('deny', { group: 'banned' }), line('allow', { dynamic: 'plain', call: plain })]);
    expect(await selectable(bannedFirst, banned, 'view', requestOf(banned), 'Note')).toBe(false);
  });

  it("tell a principal which model's objects it decides on, for its function and its where alike", async () => {
    // One principal in the x-ACLs of two models, each keeping its owner in a field of its own.
    const field = (model: string) => (model === 'Venue' ? 'organiser' : 'holder');
    const shared: Dynamic = (_r, object, rule) =>
      typeof object?.[field(rule.model)] === 'string'
        ? grant(rule, user(object[field(rule.model)] as string))
        : undefined;
    shared.where = (request, rule) => ({ [field(rule.model)]: String(request.user?.['username']) });
    const member: Caller = { id: 'ann', groups: new Set(['user']) };
    const acl: Acl = {
      collection: LIST_ALL,
      item: [
        { action: 'allow', principal: { dynamic: 'shared', call: shared }, permissions: ['view'], text: '' },
        { action: 'deny', principal: 'everyone', permissions: ['view'], text: '' },
      ],
    };
    const request = requestOf(member);
    expect(await selectable(acl, member, 'view', request, 'Venue')).toEqual({ organiser: 'ann' });
    expect(await selectable(acl, member, 'view', request, 'Hold')).toEqual({ holder: 'ann' });
    expect((await decide(acl, member, 'view', request, 'Venue', { organiser: 'ann' })).allowed).toBe(true);
    expect((await decide(acl, member, 'view', request, 'Hold', { organiser: 'ann' })).allowed).toBe(false);
    expect((await decide(acl, member, 'view', request, 'Hold', { holder: 'ann' })).allowed).toBe(true);
  });

  it('give a principal of the collection rules the parent below which it decides (a create of a nested route)', async () => {
    const parentsUser: Dynamic = (_r, _object, rule) =>
      rule.parentModel === 'User' && typeof rule.parent?.['username'] === 'string'
        ? grant(rule, user(rule.parent['username']))
        : undefined;
    const acl: Acl = {
      collection: [
        {
          action: 'allow',
          principal: { dynamic: 'parents_user', call: parentsUser },
          permissions: ['create'],
          text: '',
        },
      ],
      item: [],
    };
    const ann: Caller = { id: 'ann', groups: new Set(['user']) };
    const request = requestOf(ann);
    const below = (username: string, model = 'User') => ({ object: { username }, model });
    expect((await decide(acl, ann, 'create', request, 'Profile', undefined, below('ann'))).allowed).toBe(true);
    expect((await decide(acl, ann, 'create', request, 'Profile', undefined, below('bob'))).allowed).toBe(false);
    // Told the parent's model: the same key below another model is not the user's.
    expect((await decide(acl, ann, 'create', request, 'Profile', undefined, below('ann', 'Team'))).allowed).toBe(false);
    expect((await decide(acl, ann, 'create', request, 'Profile')).allowed).toBe(false);
  });
});
