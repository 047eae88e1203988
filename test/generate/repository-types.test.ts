/**
 * A repository's reads are typed as they are: the relationships kept in other models' rows (an
 * author's `posts`, the key of its one-to-one `address`) are in an object only where `include`
 * names them, and the type says so. A probe's script read a partner's key that no read had given
 * (`undefined`, typed `number | null`) and billed nothing, with the typecheck green.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { generatedProject, tool } from '../support/project.js';

const SCRIPT = `import type { Database } from '../db/index.js';

export async function read(db: Database): Promise<number> {
  const [plain] = await db.author.findMany({ where: {} });
  // @ts-expect-error a read without include gives no posts
  void plain?.posts;
  // @ts-expect-error nor the key of the address, kept in the address's row
  void plain?.address;
  const one = await db.author.findUnique({ where: { name: 'ann' }, include: { posts: true } });
  const created = await db.author.create({ data: { name: 'bo', email: 'bo@example.com' } });
  // @ts-expect-error a create without include gives no posts either
  void created.posts;
  // The model's own fields, and what include names, are there.
  return (one?.posts.length ?? 0) + created.name.length + (plain?.name.length ?? 0);
}
`;

it('types a read without include as having no relationships kept in other rows, and one with it as having them', async () => {
  const dir = await generatedProject('blog', 'repository-types');
  writeFileSync(join(dir, 'src/custom/read-authors.ts'), SCRIPT);
  const checked = await tool(dir, 'tsc', ['-p', 'tsconfig.json', '--noEmit']);
  expect(checked.exitCode, checked.all).toBe(0);
}, 300_000);
