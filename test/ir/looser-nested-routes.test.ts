/** SVC2114 (src/check/looser-nested-routes.ts): a nested route whose x-ACL shows what the objects' own route refuses. */
import { describe, expect, it } from 'vitest';
import { invalidFixtureDiagnostics, invalidFixtureFile } from '../support/invalid-fixture.js';

const FIXTURE = 'SVC2114-nested-route-shows-what-own-route-refuses';

/** The fixture's warnings of SVC2114, with its RAML changed as `edit` says. */
function said(edit = (t: string) => t): string[] {
  return invalidFixtureDiagnostics(FIXTURE, { 'api.raml': edit })
    .filter((d) => d.code === 'SVC2114')
    .map((d) => d.message);
}

describe('a nested route that shows what the objects’ own route refuses (SVC2114)', () => {
  it('is said where everyone may view the requests below a unit, and only their owner at /requests/{id}', () => {
    expect(said()).toEqual([
      '/units/{id}/requests lets anonymous callers view every Request below a Unit (its x-ACL public_acl), which /requests/{id} does not (owner_acl): the objects their own route keeps from anonymous callers are read, listed, counted and searched here',
    ]);
  });

  it('names members where only they are shown more', () => {
    const members = (t: string) =>
      t
        .replace('  - public_acl:', '  - members_acl:')
        .replace(
          'allow everyone view\n        item: |\n          allow g:admin all\n          allow everyone view',
          'allow authenticated view\n        item: |\n          allow g:admin all\n          allow authenticated view',
        )
        .replace('/requests:\n      securedBy: [public_acl]', '/requests:\n      securedBy: [members_acl]')
        .replace('/units:\n  securedBy: [public_acl]', '/units:\n  securedBy: [members_acl]');
    expect(said(members)).toEqual([
      expect.stringMatching(/^\/units\/\{id\}\/requests lets members view every Request .*\(its x-ACL members_acl\)/),
    ]);
  });

  it('is not said where the nested route has the objects’ own x-ACL', () => {
    const same = (t: string) =>
      t.replace('/requests:\n      securedBy: [public_acl]', '/requests:\n      securedBy: [owner_acl]');
    expect(same(invalidFixtureFile(FIXTURE, 'api.raml'))).not.toBe(invalidFixtureFile(FIXTURE, 'api.raml'));
    expect(said(same)).toEqual([]);
  });
});
