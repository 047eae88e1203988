/**
 * A principal still as svcgen wrote it (issue 29): the ACL lines that name it match no one, and the
 * service says so at start-up, naming the file to fill in. A function with anything in it is not
 * one, nor is one that returns a value on one line.
 */
import { describe, expect, it } from 'vitest';
import {
  dynamicPrincipal,
  grant,
  unwrittenPrincipals,
  user,
  type Acl,
  type AclLine,
  type AclRule,
  type AclResult,
} from '../../runtime/src/lib/auth/acl.js';

type Story = { readonly owner: string | null };

// As the stub is written (src/custom/principals/*.ts), but for the unused parameters' names.
export function itemOwner(_request: unknown, _object: Story | undefined, _rule: AclRule): AclResult {
  return undefined;
}

export function storyOwner(request: unknown, object: Story | undefined, rule: AclRule): AclResult {
  return object?.owner !== null && object?.owner !== undefined ? grant(rule, user(object.owner)) : undefined;
}

function nobody(): AclResult {
  return undefined;
}
const line = (principal: AclLine['principal']): AclLine => ({
  action: 'allow',
  permissions: ['view'],
  principal,
  text: 'allow {{…}} view',
});

describe('unwrittenPrincipals', () => {
  it('finds the principals whose function is still the stub, once each, with their file', () => {
    const stub = dynamicPrincipal<Story>('item_owner', itemOwner, 'src/custom/principals/item-owner.ts');
    const written = dynamicPrincipal<Story>('story_owner', storyOwner, 'src/custom/principals/story-owner.ts');
    const acls: Record<string, Acl> = {
      stories: { collection: [line('everyone')], item: [line(stub), line(written)] },
      notes: { collection: [line(stub)], item: [line(dynamicPrincipal('nobody', nobody))] },
    };
    expect(unwrittenPrincipals(acls).map((p) => [p.dynamic, p.file])).toEqual([
      ['item_owner', 'src/custom/principals/item-owner.ts'],
      ['nobody', undefined],
    ]);
  });

  it('finds none in ACLs of fixed principals only', () => {
    expect(unwrittenPrincipals({ a: { collection: [line('everyone')], item: [line({ group: 'admin' })] } })).toEqual(
      [],
    );
  });
});
