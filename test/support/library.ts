/**
 * The user code of fixtures/library, as its users would write it: the `{{owner}}` principal with
 * its `where` (so that lists apply the item rules in the database), `{{self}}`, and the handlers
 * that make the caller the owner of what they create.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tool } from './project.js';

const OWNER = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { Book } from '../../models/book.js';
import type { Note } from '../../models/note.js';

/** A book's or note's owner gets the line's permissions on it. */
export function owner(_request: FastifyRequest, object: Book | Note | undefined, rule: AclRule): AclResult {
  return object?.owner != null ? grant(rule, user(object.owner)) : undefined;
}

/** The books and notes the caller owns. */
owner.where = (request: FastifyRequest, _rule: AclRule): PrincipalWhere<Book | Note> =>
  request.user ? { owner: String(request.user['username']) } : false;
`;

/** The same principal without \`where\`: lists show what the collection rules allow, as Ramses did. */
export const OWNER_WITHOUT_WHERE = OWNER.slice(0, OWNER.indexOf('/** The books and notes the caller owns.'));

const SELF = `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule, type PrincipalWhere } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';

export function self(_request: FastifyRequest, object: User | undefined, rule: AclRule): AclResult {
  return object ? grant(rule, user(object.username)) : undefined;
}

self.where = (request: FastifyRequest, _rule: AclRule): PrincipalWhere<User> =>
  request.user ? { username: String(request.user['username']) } : false;
`;

/** The caller owns what they create (one handler per model: each is typed by its model). */
const setOwner = (model: string) => `import type { Set${model}OwnerEvent } from '../../events.js';

export async function set${model}Owner(event: Set${model}OwnerEvent): Promise<void> {
  const user = event.view.request.user;
  if (user) event.setFieldValue('owner', String(user['username']));
}
`;

/** Writes the library's user code into the generated project `dir` and builds it. */
export async function withLibraryFunctions(dir: string, ownerCode: string = OWNER): Promise<void> {
  writeFileSync(join(dir, 'src/custom/principals/owner.ts'), ownerCode);
  writeFileSync(join(dir, 'src/custom/principals/self.ts'), SELF);
  writeFileSync(join(dir, 'src/custom/handlers/set-book-owner.ts'), setOwner('Book'));
  writeFileSync(join(dir, 'src/custom/handlers/set-note-owner.ts'), setOwner('Note'));
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}
