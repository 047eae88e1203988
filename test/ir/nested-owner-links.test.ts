/** SVC2113 (src/check/nested-owner-links.ts): a nested create that picks a read-only link, by an x-ACL blind to the parent. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/pipeline.js';
import { writeTree } from '../support/files.js';
import { repoRoot } from '../support/paths.js';

const fixture = join(repoRoot, 'fixtures', 'invalid', 'SVC2113-nested-create-picks-read-only-link');
const original = (file: string) => readFileSync(join(fixture, file), 'utf8');

/** The fixture's warnings of SVC2113, with its RAML and proposal schema changed as given. */
function said(raml = (t: string) => t, proposal = (t: string) => t): string[] {
  const dir = writeTree({
    'api.raml': raml(original('api.raml')),
    'speaker.json': original('speaker.json'),
    'proposal.json': proposal(original('proposal.json')),
  });
  return analyze(join(dir, 'api.raml'), { cwd: dir })
    .diagnostics.filter((d) => d.code === 'SVC2113')
    .map((d) => d.message);
}

describe('a nested create that picks a read-only link (SVC2113)', () => {
  it('is said where members may create below any speaker, choosing the read-only speaker of a proposal', () => {
    expect(said()).toEqual([
      'POST /speakers/{id}/proposals gives each new Proposal the Speaker its URL names as "speaker", which is read-only, and its x-ACL lets members create below any Speaker ("allow authenticated view, create"): they choose the speaker the schema keeps from them',
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
