/**
 * The generated client's types hold the API to what the RAML enables: a method a route does not
 * serve, an operator a field's type does not take, a field a model does not have, a body without
 * its required fields are compile errors (`@ts-expect-error` fails the check when the line
 * compiles). The client package also builds on its own (ESM + .d.ts, browser and Node alike) with
 * no dependency but `fetch`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedProject, tool } from '../support/project.js';

/** Calls on the blog API's client: each allowed one compiles, each marked one must not. */
const CALLS = `import { ApiError, createClient, etagOf, type PostField } from './client/src/index.js';

const api = createClient({ baseUrl: 'http://localhost:3000/api' });

export async function allowed(): Promise<void> {
  const page = await api.posts.list({
    where: { title: { contains: 'fastify' }, score: { gt: 3 }, status: ['draft', 'published'], tags: 'ts' },
    sort: ['-published_at', 'title'],
    limit: 20,
    fields: ['title', 'slug'],
  });
  const first: string | undefined = page.data[0]?.title;
  // Every caller sees every field of a Post (no privacy lists): without fields, each is there.
  const title: string = (await api.posts.get('hello')).title;
  const picked: string = (await api.posts.get('hello', { fields: ['title'] })).title;
  const kept: string | null | undefined = (await api.posts.list({ fields: ['-title'] })).data[0]?.body;
  for await (const post of api.posts.all({ where: { author: 1 } })) void post.slug;
  const post = await api.posts.get('hello');
  await api.posts.update('hello', { title: 'Hello' }, { ifMatch: etagOf(post) ?? '*' });
  await api.posts.replace('hello', { slug: 'hello', title: 'Hello' }, { ifMatch: post });
  await api.posts.comments('hello').create({ text: 'first' });
  await api.posts.tags('hello').merge({ typescript: true });
  await api.authors.updateMany({ karma: { gte: 10 } }, { bio: null });
  await api.authors.address(1).update({ city: 'Berlin' });
  const found: number = await api.comments.count({ where: { spam: false } });
  await api.comments.search('fastify', { in: ['text'], limit: 5 });
  await api.auth.claimToken({ login: 'ann', password: 'secret' });
  try {
    await api.addresses.delete(1);
  } catch (error) {
    if (error instanceof ApiError) void [error.status, error.body?.message, first, found, title, picked, kept];
  }
}

export async function refused(): Promise<void> {
  // @ts-expect-error /addresses/{id} has no PATCH
  await api.addresses.update(1, { city: 'x' });
  // @ts-expect-error /posts has no bulk update (no PUT or PATCH on the collection)
  await api.posts.updateMany({}, { title: 'x' });
  // @ts-expect-error /comments/{id} has no PUT
  await api.comments.replace(1, { text: 'x' });
  // @ts-expect-error /posts/{slug}/comments/{id} has no PATCH
  await api.posts.comments('hello').update(1, { text: 'x' });
  // @ts-expect-error there is no /users route
  await api.users.list();
  // @ts-expect-error the blog's authentication is API tokens: no login route
  await api.auth.login({ login: 'ann', password: 'secret' });
  // @ts-expect-error contains is a text operator, karma a number
  await api.authors.list({ where: { karma: { contains: '1' } } });
  // @ts-expect-error a dict field takes isnull only
  await api.authors.list({ where: { links: { gt: 'a' } } });
  // @ts-expect-error a list field takes no comparison
  await api.posts.list({ where: { tags: { gt: 'a' } } });
  // @ts-expect-error title is text: it is compared with text, not a number
  await api.posts.list({ where: { title: { gt: 1 } } });
  // @ts-expect-error status is one of its choices
  await api.posts.list({ where: { status: 'archived' } });
  // @ts-expect-error Post has no field "nope"
  await api.posts.list({ where: { nope: 1 } });
  // @ts-expect-error nor can it be sorted by one
  await api.posts.list({ sort: ['-nope'] });
  // @ts-expect-error a Post needs its slug and title
  await api.posts.create({ title: 'x' });
  // @ts-expect-error score is not a text field: search does not look in it
  await api.posts.search('x', { in: ['score'] });
  // @ts-expect-error fields: ['title'] answers no body
  void (await api.posts.get('hello', { fields: ['title'] })).body;
  // @ts-expect-error fields: ['-body'] leaves the body out
  void (await api.posts.search('x', { fields: ['-body'] })).data[0]?.body;
  // @ts-expect-error with fields chosen, a filter on no field of a Post is still refused
  await api.posts.list({ fields: ['title'], where: { titel: 'x' } });
  // @ts-expect-error nor can the fields mix names and -names
  await api.posts.list({ fields: ['title', '-body'] });
  const chosen: readonly PostField[] = ['title'];
  for await (const post of api.posts.all({ fields: chosen }))
    // @ts-expect-error fields chosen at run time (a variable) may leave any field out
    void (post.slug satisfies string);
}
`;

describe('the generated client (blog)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await generatedProject('blog', 'client-types');
    writeFileSync(join(dir, 'client-calls.ts'), CALLS);
    // The README's example, as a user would paste it beside `client/` once `npm run build` made client/dist.
    const built = await tool(dir, 'tsc', ['-p', 'client/tsconfig.json']);
    expect(built.exitCode, built.all).toBe(0);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    writeFileSync(join(dir, 'readme-example.ts'), /## The typed client[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!);
    const config = { extends: './client/tsconfig.json', compilerOptions: { rootDir: '.', noEmit: true } };
    writeFileSync(
      join(dir, 'tsconfig.calls.json'),
      JSON.stringify({ ...config, include: ['client/src', 'client-calls.ts', 'readme-example.ts'] }),
    );
  }, 300_000);

  it('refuses at compile time what the RAML does not enable, and accepts what it does (and the README example)', async () => {
    const result = await tool(dir, 'tsc', ['-p', 'tsconfig.calls.json']);
    expect(result.all).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it('fails the check when a refused call is not an error (the check can fail)', async () => {
    writeFileSync(
      join(dir, 'client-calls.ts'),
      CALLS.replace(
        '// @ts-expect-error /addresses/{id} has no PATCH',
        '// @ts-expect-error (wrong)\n  await api.addresses.delete(1);\n  // @ts-expect-error /addresses/{id} has no PATCH',
      ),
    );
    const result = await tool(dir, 'tsc', ['-p', 'tsconfig.calls.json']);
    expect(result.all).toContain("Unused '@ts-expect-error' directive");
    writeFileSync(join(dir, 'client-calls.ts'), CALLS);
  });

  it('builds as a package of its own: ESM and declarations, no dependencies', async () => {
    const result = await tool(dir, 'tsc', ['-p', 'client/tsconfig.json']);
    expect(result.all).toBe('');
    for (const file of ['index.js', 'index.d.ts', 'http.js', 'resources.d.ts'])
      expect(existsSync(join(dir, 'client/dist', file)), file).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, 'client/package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg).toMatchObject({ name: 'blog-api-client', type: 'module' });
    expect(pkg['exports']).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    expect(pkg).not.toHaveProperty('dependencies');
  });
});
