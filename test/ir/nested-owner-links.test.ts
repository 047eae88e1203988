/** SVC2113 (src/check/nested-owner-links.ts): a nested create that picks a read-only link, by an x-ACL blind to the parent. */
import { describe, expect, it } from 'vitest';
import { invalidFixtureDiagnostics, invalidFixtureFile } from '../support/invalid-fixture.js';

const FIXTURE = 'SVC2113-nested-create-picks-read-only-link';
const original = (file: string) => invalidFixtureFile(FIXTURE, file);

/** The fixture's warnings of SVC2113, with its RAML and proposal schema changed as given. */
function said(raml = (t: string) => t, proposal = (t: string) => t): string[] {
  return invalidFixtureDiagnostics(FIXTURE, { 'api.raml': raml, 'proposal.json': proposal })
    .filter((d) => d.code === 'SVC2113')
    .map((d) => d.message);
}

describe('a nested create that picks a read-only link (SVC2113)', () => {
  it('is said where members may create below any speaker, choosing the read-only speaker of a proposal', () => {
    expect(said()).toEqual([
      'POST /speakers/{id}/proposals gives each new Proposal the Speaker its URL names as "speaker", which is read-only, and its x-ACL lets members create below any Speaker ("allow authenticated view, create"): they choose the speaker the schema keeps from them',
    ]);
  });

  // A probe's handler set the link as the hint said, and the warning still said members choose it.
  it('says, where a before_create handler runs, that the handler may be what sets the link, and how to say so', () => {
    const handled = (t: string) =>
      t.replace('"type": "object",', '"type": "object",\n  "_event_handlers": { "before_create": ["set_speaker"] },');
    expect(handled(original('proposal.json'))).not.toBe(original('proposal.json'));
    expect(said(undefined, handled)).toEqual([
      'POST /speakers/{id}/proposals gives each new Proposal the Speaker its URL names as "speaker", which is read-only, and its x-ACL lets members create below any Speaker ("allow authenticated view, create"): they choose the speaker the schema keeps from them, unless its before_create handler (set_speaker) sets "speaker"',
    ]);
  });

  it('is not said where the link is not read-only, or the nested route creates nothing', () => {
    expect(said(undefined, (t) => t.replace('"readOnly": true,', ''))).toEqual([]);
    const withoutPost = (t: string) =>
      t.replace(
        '      get:\n      post:\n        body:\n          application/json:\n            schema: !include proposal.json\n/proposals:',
        '      get:\n/proposals:',
      );
    expect(withoutPost(original('api.raml'))).not.toBe(original('api.raml'));
    expect(said(withoutPost)).toEqual([]);
  });

  it('is not said where a {{principal}} decides creates first (it reads rule.parent), or only admins create', () => {
    const byParent = (t: string) =>
      t.replace(
        '          allow g:admin all\n          allow authenticated view, create',
        '          allow g:admin all\n          allow {{speaker_self}} create\n          allow authenticated view, create',
      );
    expect(said(byParent)).toEqual([]);
    expect(said((t) => t.replace('allow authenticated view, create', 'allow authenticated view'))).toEqual([]);
  });
});
