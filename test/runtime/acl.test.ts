/**
 * The runtime's ACL decision against an independent reading of Pyramid's ACLAuthorizationPolicy,
 * which Ramses uses: walk the lineage (the item's ACL, then its collection's); in each, the first
 * entry whose principal the caller has and whose permissions hold the one asked for decides,
 * allow or deny; when no entry anywhere matches, deny. Random ACLs, callers and permissions
 * (fast-check), so a rule-reading bug that svcgen's ACL matrix shares with the runtime shows here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// This test's own view of the runtime's ACL types: the module is loaded by URL, because it imports
// Fastify's types, which generated projects have and this repository does not.
type Permission = 'view' | 'create' | 'update' | 'delete' | 'options';
type Principal = 'everyone' | 'authenticated' | { readonly group: string } | { readonly user: string };
interface AclLine {
  readonly action: 'allow' | 'deny';
  readonly principal: Principal;
  readonly permissions: readonly Permission[];
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
interface AclModule {
  readonly ALL_PERMISSIONS: readonly Permission[];
  readonly decide: (
    acl: Acl,
    caller: Caller,
    permission: Permission,
    request: object,
    model: string,
    object?: Record<string, unknown>,
  ) => Promise<{ allowed: boolean }>;
}
const { ALL_PERMISSIONS, decide } = (await import(
  new URL('../../runtime/src/lib/auth/acl.ts', import.meta.url).href
)) as AclModule;

/** Pyramid's principals of a caller: Everyone, Authenticated and the user id when logged in, g:<group> per group. */
function principalsOf(caller: Caller): string[] {
  if (caller.id === null) return ['system.Everyone'];
  return ['system.Everyone', 'system.Authenticated', `u:${caller.id}`, ...[...caller.groups].map((g) => `g:${g}`)];
}

function pyramidName(principal: Principal): string {
  if (principal === 'everyone') return 'system.Everyone';
  if (principal === 'authenticated') return 'system.Authenticated';
  return 'group' in principal ? `g:${principal.group}` : `u:${principal.user}`;
}

/** ACLAuthorizationPolicy.permits over the lineage [item ACL, collection ACL] (Pyramid 1.x, pyramid/authorization.py). */
function pyramidPermits(lineage: readonly (readonly AclLine[])[], caller: Caller, permission: Permission): boolean {
  const principals = new Set(principalsOf(caller));
  for (const acl of lineage) {
    for (const ace of acl) {
      const permissions = ace.permissions as readonly string[] | 'all';
      if (principals.has(pyramidName(ace.principal)) && (permissions === 'all' || permissions.includes(permission)))
        return ace.action === 'allow';
    }
  }
  return false; // Pyramid's default: no ACE matched, permission denied
}

const principal = fc.oneof(
  fc.constant<Principal>('everyone'),
  fc.constant<Principal>('authenticated'),
  fc.constantFrom('admin', 'user', 'editor').map((g) => ({ group: g })),
  fc.constantFrom('ann', 'bob').map((u) => ({ user: u })),
);
const line = fc
  .record({
    action: fc.constantFrom('allow' as const, 'deny' as const),
    principal,
    permissions: fc.oneof(fc.subarray([...ALL_PERMISSIONS], { minLength: 1 }), fc.constant([...ALL_PERMISSIONS])),
  })
  .map((l): AclLine => ({ ...l, text: `${l.action} ${pyramidName(l.principal)} ${l.permissions.join(',')}` }));
const acl = fc.record({ collection: fc.array(line, { maxLength: 5 }), item: fc.array(line, { maxLength: 5 }) });
const caller = fc.oneof(
  fc.constant<Caller>({ id: null, groups: new Set() }),
  fc.record({
    id: fc.constantFrom('ann', 'bob', 'cid'),
    groups: fc.subarray(['admin', 'user', 'editor']).map((g) => new Set(g)),
  }),
);
const request = {};

describe('ACL decisions, against Pyramid', () => {
  it('decides as Pyramid does on an item (item ACL, then collection ACL) and on a collection', async () => {
    await fc.assert(
      fc.asyncProperty(acl, caller, fc.constantFrom(...ALL_PERMISSIONS), async (rules: Acl, who, permission) => {
        const onItem = await decide(rules, who, permission, request, 'Item', { id: 1 });
        expect(onItem.allowed).toBe(pyramidPermits([rules.item, rules.collection], who, permission));
        const onCollection = await decide(rules, who, permission, request, 'Item');
        expect(onCollection.allowed).toBe(pyramidPermits([rules.collection], who, permission));
      }),
      { numRuns: 2000 },
    );
  });

  it('falls back to the collection rules when the item section is blank, and narrows only by a deny', async () => {
    const line = (
      text: string,
      action: 'allow' | 'deny',
      principal: Principal,
      permissions: Permission[],
    ): AclLine => ({ action, principal, permissions, text });
    const member: Caller = { id: 'bob', groups: new Set(['user']) };
    const collection = [line('allow authenticated update', 'allow', 'authenticated', ['update'])];
    expect((await decide({ collection, item: [] }, member, 'update', request, 'Item', { id: 1 })).allowed).toBe(true);
    const narrowed = {
      collection,
      item: [
        line('allow ann update', 'allow', { user: 'ann' }, ['update']),
        line('deny everyone update', 'deny', 'everyone', ['update']),
      ],
    };
    expect((await decide(narrowed, member, 'update', request, 'Item', { id: 1 })).allowed).toBe(false);
    expect(
      (await decide(narrowed, { id: 'ann', groups: new Set() }, 'update', request, 'Item', { id: 1 })).allowed,
    ).toBe(true);
    expect((await decide({ collection: [], item: [] }, member, 'view', request, 'Item')).allowed).toBe(false);
  });
});
