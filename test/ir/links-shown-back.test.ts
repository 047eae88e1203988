/** SVC2112 (src/check/links-shown-back.ts): a link list hidden from callers to whom its link back is shown. */
import { describe, expect, it } from 'vitest';
import { invalidFixtureDiagnostics } from '../support/invalid-fixture.js';

const FIXTURE = 'SVC2112-link-list-hidden-while-shown-back';

/** The fixture's codes, with its files changed as `edit` says. */
function codes(
  edit: {
    speaker?: (text: string) => string;
    proposal?: (text: string) => string;
    raml?: (text: string) => string;
  } = {},
): string[] {
  const edits: Record<string, (text: string) => string> = {};
  if (edit.raml) edits['api.raml'] = edit.raml;
  if (edit.speaker) edits['speaker.json'] = edit.speaker;
  if (edit.proposal) edits['proposal.json'] = edit.proposal;
  return invalidFixtureDiagnostics(FIXTURE, edits).map((d) => d.code);
}

describe('a link list hidden while its link back is shown (SVC2112)', () => {
  it('is said where members may view every proposal, whose speaker tells them the speaker’s proposals', () => {
    expect(codes()).toEqual(['SVC2112']);
  });

  it('is not said where both links are shown to members, or both hidden from them', () => {
    expect(codes({ speaker: (t) => t.replace('["id", "name"]', '["id", "name", "proposals"]') })).toEqual([]);
    expect(
      codes({
        proposal: (t) => t.replace('"type": "object",', '"type": "object",\n  "_auth_fields": ["id", "title"],'),
      }),
    ).toEqual([]);
  });

  it('is said for anonymous callers too, where the x-ACL lets everyone view proposals', () => {
    const everyone = (t: string) => t.replaceAll('allow authenticated view', 'allow everyone view');
    const hidden = (t: string) =>
      t.replace(
        '"_auth_fields": ["id", "name"],',
        '"_auth_fields": ["id", "name"],\n  "_public_fields": ["id", "name"],',
      );
    const said = invalidFixtureDiagnostics(FIXTURE, { 'api.raml': everyone, 'speaker.json': hidden }).filter(
      (d) => d.code === 'SVC2112',
    );
    expect(said.map((d) => d.message)).toEqual([
      'Speaker hides "proposals" from anonymous callers and members, but Proposal shows them "speaker": each Proposal\'s "speaker" tells them what "proposals" would, and a filter on it lists it',
    ]);
  });

  it('is not said where members view proposals only by a {{principal}} (each their own)', () => {
    const own = (t: string) =>
      t
        .replaceAll('allow authenticated view, create', 'allow {{proposal_owner}} view')
        .replaceAll('allow authenticated view', 'allow {{proposal_owner}} view');
    expect(codes({ raml: own }).filter((c) => c === 'SVC2112')).toEqual([]);
  });
});
