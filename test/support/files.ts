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
