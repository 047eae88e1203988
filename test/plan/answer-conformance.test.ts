/**
 * The end-to-end tests' check of answers against the service's OpenAPI document
 * (support/conformance.ts) holds the service to what the client's types say: an object read without
 * `_fields` has every field that no privacy list hides from anyone; with `_fields`, only those named.
 */
import { describe, expect, it } from 'vitest';
import { ResponseContract } from '../support/conformance.js';
import { generateApiProject } from '../support/generated.js';
import { fixtureRaml } from '../support/project.js';

describe('the conformance check of answers', () => {
  it('requires the fields every caller is shown, unless the read names its _fields', async () => {
    // library's User: `_auth_fields` [username, books, notes]; email and groups hidden from members.
    const document = JSON.parse((await generateApiProject(fixtureRaml('library'))).get('openapi.json')!.content);
    const contract = new ResponseContract(document, '/v1');
    const problems = (query: string, body: object) =>
      contract.problems({
        method: 'GET',
        url: `http://127.0.0.1/v1/users/ann${query}`,
        requestHeaders: {},
        status: 200,
        headers: new Headers({ 'content-type': 'application/json' }),
        text: JSON.stringify({ _type: 'User', _pk: 'ann', _self: 'http://127.0.0.1/v1/users/ann', ...body }),
      });
    const member = { username: 'ann', books: [], notes: [] };
    expect(problems('', member)).toEqual([]);
    expect(problems('', { ...member, email: 'ann@example.com', groups: ['user'] })).toEqual([]);
    const [problem] = problems('', { username: 'ann', notes: [] });
    expect(problem).toContain('lacks books, which every caller is shown');
    expect(problems('?_fields=username', { username: 'ann' })).toEqual([]);
  });
});
