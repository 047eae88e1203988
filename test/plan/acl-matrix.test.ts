/**
 * The ACL matrix (src/acl/matrix.ts), which `svcgen inspect --acl` prints and the generated
 * test/acl.test.ts checks the service against, decides a create below a parent as the runtime does:
 * where the new object becomes the parent's one-to-one partner, the caller must also be able to
 * update the parent (runtime/src/lib/http/relinks.ts); on the parent's to-many side, not.
 */
import { describe, expect, it } from 'vitest';
import { aclMatrix, type MatrixRow } from '../../src/acl/matrix.js';
import { serviceModel } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

const rows = aclMatrix(serviceModel(fixtureRaml('library')));
const row = (method: string, path: string): MatrixRow => {
  const found = rows.find((r) => r.operation.method === method && r.route.ramlPath === path);
  if (!found) throw new Error(`no row ${method} ${path}`);
  return found;
};

describe('the ACL matrix of creates below a parent', () => {
  it('asks for the parent`s update where the new object becomes its one-to-one partner', () => {
    const featured = row('POST', '/books/{id}/featured_note');
    // notes_acl lets members create; books_acl lets only a book's owner (and admins) update it.
    expect(featured.outcomes).toEqual({ anonymous: 401, member: 403, owner: 'allow', admin: 'allow' });
    expect(featured.lines.member).toBe('(linking to the parent: deny authenticated update, delete)');
  });

  it('does not where the parent has many of them, nor where there is no parent', () => {
    expect(row('POST', '/books/{id}/notes').outcomes).toEqual({
      anonymous: 401,
      member: 'allow',
      owner: 'allow',
      admin: 'allow',
    });
    expect(row('POST', '/authors/{id}/books').outcomes.member).toBe('allow');
    expect(row('POST', '/books').outcomes.member).toBe('allow');
  });
});
