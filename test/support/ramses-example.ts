/**
 * The Python functions of ramses-example (ramses_example/__init__.py: the principals, the
 * set_item_owner handler and the lowercase processor), in TypeScript, for the user-owned stubs of
 * a project generated from it (or from a variant of its RAML).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tool } from './project.js';

/**
 * The Python functions of ramses-example (ramses_example/__init__.py), in TypeScript. The
 * principals are written as stubs of earlier svcgen versions were (\`request: FastifyRequest\`):
 * they must keep compiling against the typed \`RequestBy<User>\` of today's.
 */
export const PRINCIPALS: Record<string, string> = {
  'item-owner': `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Story } from '../../models/story.js';

/** Gives the story's owner the line's permissions (view, update). */
export function itemOwner(_request: FastifyRequest, object: Story | undefined, rule: AclRule): AclResult {
  const owner = object?.owner;
  return owner != null ? grant(rule, user(typeof owner === 'object' ? String((owner as { username: string }).username) : owner)) : undefined;
}
`,
  'user-self': `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { User } from '../../models/user.js';

/** Gives a user the line's permission (update) on themselves. */
export function userSelf(_request: FastifyRequest, object: User | undefined, rule: AclRule): AclResult {
  return object ? grant(rule, user(object.username)) : undefined;
}
`,
  'user-profile': `import type { FastifyRequest } from 'fastify';
import { grant, user, type AclResult, type AclRule } from '../../lib/auth/index.js';
import type { Profile } from '../../models/profile.js';

/**
 * Gives a user every permission on their profile: the profile's user, or, for a create below a
 * user, that user (rule.parent). Never the URL's parameters: this function also judges links
 * made from other routes (a PATCH of a user that takes a profile).
 */
export function userProfile(_request: FastifyRequest, object: Profile | undefined, rule: AclRule): AclResult {
  const owner = object ? object.user : rule.parent?.['username'];
  return typeof owner === 'string' ? grant(rule, user(owner)) : undefined;
}
`,
};

/** ramses_example's set_item_owner handler and lowercase processor. */
export const EVENTS: Record<string, string> = {
  'handlers/set-item-owner': `import type { SetItemOwnerEvent } from '../../events.js';

/** Makes the caller the owner of the story they create, unless the body names one. */
export async function setItemOwner(event: SetItemOwnerEvent): Promise<void> {
  // \`request.user\` is a User (or null): no cast, as in the Python (\`event.set_field_value('owner', user)\`).
  const user = event.view.request.user;
  if (user && !('owner' in event.fields)) event.setFieldValue('owner', user.username);
}
`,
  'processors/lowercase': `import type { LowercaseArgs } from '../../events.js';

export function lowercase({ new_value }: LowercaseArgs): LowercaseArgs['new_value'] {
  return new_value.toLowerCase().trim();
}
`,
};

/** Writes the functions into the generated project `dir` and builds it. */
export async function withRamsesFunctions(dir: string): Promise<void> {
  for (const [file, code] of Object.entries(PRINCIPALS))
    writeFileSync(join(dir, 'src/custom/principals', `${file}.ts`), code);
  for (const [module, code] of Object.entries(EVENTS)) writeFileSync(join(dir, 'src/custom', `${module}.ts`), code);
  const build = await tool(dir, 'tsc', ['-p', 'tsconfig.build.json']);
  if (build.exitCode !== 0) throw new Error(`build failed:\n${build.all}`);
}
