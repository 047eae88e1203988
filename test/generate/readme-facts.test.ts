/**
 * The generated README says what this API does, not what a default API would: the groups a new
 * user starts in are the user model's own `groups` default (a shelter's were `["member"]`, and the
 * README said `["user"]`).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateApiProject, generateFixture } from '../support/generated.js';
import { raml, securedRaml, writeTree } from '../support/files.js';

const userSchema = (groups: object) =>
  JSON.stringify({
    type: 'object',
    _auth_model: true,
    properties: {
      username: { _db_settings: { type: 'string', primary_key: true } },
      email: { _db_settings: { type: 'string', required: true, unique: true } },
      password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
      groups: { _db_settings: { type: 'list', item_type: 'string', ...groups } },
    },
  });

async function readmeOf(groups: object): Promise<string> {
  const dir = writeTree({
    'api.raml': securedRaml(
      'Shelter',
      { users_acl: { collection: 'allow g:admin all' } },
      `
/users:
  securedBy: [users_acl]
  get:
  post:
    body:
      application/json:
        schema: !include user.json
`,
    ),
    'user.json': userSchema(groups),
  });
  return (await generateApiProject(join(dir, 'api.raml'))).get('README.md')!.content;
}

describe('the generated README', () => {
  it('names the groups a new user starts in, as the user model says', async () => {
    expect(await readmeOf({ default: ['member'] })).toContain('`groups` default (`["member"]`)');
    expect(await readmeOf({ default: [] })).toContain('`groups` default (none: its default is `[]`)');
    expect(await readmeOf({})).toContain('`groups` default (none: its `groups` has no default)');
  });
});

/**
 * The README's curl creates an object of a collection whose sample is a whole body: a box item needs
 * its box (a required link the sample cannot give), and a probe's copy of that curl got a 400.
 */
describe("the README's create example", () => {
  it('is of a collection whose sample a create takes as it is', async () => {
    const id = { _db_settings: { type: 'id_field', primary_key: true } };
    const dir = writeTree({
      'api.raml': raml(`title: Boxes
/box_items:
  get:
  post:
    body:
      application/json:
        schema: !include box_item.json
/boxes:
  get:
  post:
    body:
      application/json:
        schema: !include box.json
`),
      'box.json': JSON.stringify({
        type: 'object',
        properties: { id, items: { _db_settings: { type: 'relationship', document: 'BoxItem', backref_name: 'box' } } },
      }),
      'box_item.json': JSON.stringify({
        type: 'object',
        required: ['box'],
        properties: { id, quantity: { type: ['integer', 'null'], _db_settings: { type: 'integer' } } },
      }),
    });
    const readme = (await generateApiProject(join(dir, 'api.raml'))).get('README.md')!.content;
    expect(readme).toMatch(/curl -X POST http:\/\/127\.0\.0\.1:3000\/boxes /);
  });

  it('lists each route by the path it is served at and openapi.json names: a parameter written twice is told apart', async () => {
    const id = { _db_settings: { type: 'id_field', primary_key: true } };
    const dir = writeTree({
      'api.raml': raml(`title: Garden
/workdays:
  get:
  post:
    body:
      application/json:
        schema: !include workday.json
  /{id}:
    get:
    /signups:
      get:
      /{id}:
        get:
/signups:
  post:
    body:
      application/json:
        schema: !include signup.json
`),
      'workday.json': JSON.stringify({
        type: 'object',
        properties: {
          id,
          signups: { _db_settings: { type: 'relationship', document: 'Signup', backref_name: 'workday' } },
        },
      }),
      'signup.json': JSON.stringify({
        type: 'object',
        properties: {
          id,
          workday_id: {
            _db_settings: {
              type: 'foreign_key',
              ref_document: 'Workday',
              ref_column: 'workday.id',
              ref_column_type: 'id_field',
            },
          },
        },
      }),
    });
    const project = await generateApiProject(join(dir, 'api.raml'));
    const paths = Object.keys((JSON.parse(project.get('openapi.json')!.content) as { paths: object }).paths);
    expect(paths).toContain('/workdays/{id}/signups/{signups_id}');
    expect(project.get('README.md')!.content).toContain('`/workdays/{id}/signups/{signups_id}`');
    expect(project.get('README.md')!.content).not.toContain('/workdays/{id}/signups/{id}');
  });
});

describe('the README’s contents', () => {
  // GitHub's anchors: lower case, punctuation dropped, spaces as hyphens.
  const anchor = (heading: string) =>
    heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} -]/gu, '')
      .replace(/ /g, '-');

  it.each(['ramses-example', 'ramses-starter', 'events', 'blog'])('link to its headings (%s)', async (fixture) => {
    const readme = (await generateFixture(fixture)).get('README.md')!.content;
    const headings = new Set([...readme.matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchor(m[1]!)));
    const contents = readme.slice(readme.indexOf('Contents:'), readme.indexOf('\n\n', readme.indexOf('Contents:')));
    const links = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((link) => !headings.has(link))).toEqual([]);
  });
});
