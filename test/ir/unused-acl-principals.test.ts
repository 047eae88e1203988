/**
 * An x-ACL that guards no route (SVC2071) keeps its `{{principals}}`: where no x-ACL in use names
 * them too, their stubs take objects of no model, and code written for the model that was there
 * stops building. A new-user probe removed the model of `{{subscriber}}` and met that in `npm run
 * typecheck`, with nothing said; the warning's hint says it now.
 */
import { describe, expect, it } from 'vitest';
import { invalidFixtureDiagnostics } from '../support/invalid-fixture.js';

const hintOf = (collection: string, guarded = 'allow everyone view') =>
  invalidFixtureDiagnostics('SVC2071-unused-acl', {
    'api.raml': (text) =>
      text
        .replace('collection: allow everyone view', `collection: ${collection}`)
        .replace(
          'securitySchemes:\n',
          `securitySchemes:\n  - guard:\n      type: x-ACL\n      settings:\n        collection: ${guarded}\n`,
        )
        .replace('/items:\n', '/items:\n  securedBy: [guard]\n'),
  }).find((d) => d.code === 'SVC2071')?.hint;

describe('an x-ACL that guards no route', () => {
  it('names the stubs of the principals it alone names, which then take objects of no model', () => {
    expect(hintOf('allow {{subscriber}} view')).toBe(
      "add it to a resource: securedBy: [acl], or delete it; until then src/custom/principals/subscriber.ts takes objects of no model (a record), and code written for a model's objects there does not build",
    );
  });

  it('says nothing of a principal that an x-ACL in use names too', () => {
    expect(hintOf('allow {{subscriber}} view', 'allow {{subscriber}} view')).toBe(
      'add it to a resource: securedBy: [acl]',
    );
    expect(hintOf('allow everyone view')).toBe('add it to a resource: securedBy: [acl]');
  });
});
