import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Writes `files` (relative path → content) into a fresh temporary folder and returns its path. */
export function writeTree(files: Record<string, string | Uint8Array>, parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'svcgen-test-'));
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return dir;
}

/** A RAML 0.8 document: the header plus `body`. */
export function raml(body: string): string {
  return `#%RAML 0.8\n${body.replace(/^\n/, '')}`;
}

/** The rules of one x-ACL: its collection lines and its item lines, one per line. */
export interface AclRules {
  readonly collection: string;
  readonly item?: string;
}

/**
 * An API with auth, as the end-to-end tests write them: login cookies (x-Ticket) and API keys
 * (x-ApiKey) on every route, the x-ACLs `acls` names, and `resources` (RAML, from the first
 * resource on) below `/v1`.
 */
export function securedRaml(title: string, acls: Readonly<Record<string, AclRules>>, resources: string): string {
  const indent = (lines: string) =>
    lines
      .trim()
      .split('\n')
      .map((line) => `          ${line.trim()}`)
      .join('\n');
  const schemes = Object.entries(acls).map(
    ([name, rules]) =>
      `  - ${name}:\n      type: x-ACL\n      settings:\n        collection: |\n${indent(rules.collection)}\n` +
      (rules.item === undefined ? '' : `        item: |\n${indent(rules.item)}\n`),
  );
  return raml(`title: ${title}
baseUri: http://{host}/{version}
version: v1
securitySchemes:
  - ticket:
      type: x-Ticket
      settings:
        secret: auth_tkt_secret
  - key:
      type: x-ApiKey
${schemes.join('')}securedBy: [ticket, key]
${resources.replace(/^\n/, '')}`);
}

/**
 * The schema of a plain user model (`_auth_model`): a username as its key, an email, a password
 * and `groups` (new users in `user`), plus `more` properties, and `root` keys (`_hidden_fields`…).
 */
export function userSchema(more: Record<string, unknown> = {}, root: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'object',
    _auth_model: true,
    ...root,
    properties: {
      username: { type: 'string', _db_settings: { type: 'string', primary_key: true, required: true } },
      email: { _db_settings: { type: 'string', required: true, unique: true } },
      password: { _db_settings: { type: 'string', required: true, min_length: 8 } },
      groups: { _db_settings: { type: 'list', item_type: 'string', default: ['user'] } },
      ...more,
    },
  });
}

/**
 * The users' resource of the end-to-end tests' APIs, guarded by the x-ACL `users_acl`: listed,
 * created with `user.json`, and each user at `/users/{username}` with `itemMethods`.
 */
export function usersRaml(itemMethods: readonly string[] = ['get']): string {
  const item = itemMethods.map((method) => `    ${method}:\n`).join('');
  return `/users:\n  securedBy: [users_acl]\n  get:\n  post:\n    body:\n      application/json:\n        schema: !include user.json\n  /{username}:\n${item}`;
}
