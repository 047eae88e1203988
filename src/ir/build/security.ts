/**
 * The `x-Ticket` / `x-ApiKey` schemes that authenticate, and the `x-ACL`
 * schemes, parsed into entries (`allow|deny <principal> <permissions>`).
 */
import type { DiagnosticBag } from '../../diagnostics/diagnostic.js';
import { span, type Span } from '../../diagnostics/source.js';
import { isScalar, type YEntry, type YScalar } from '../../load/ynode.js';
import type { RamlApi, SecurityScheme } from '../../raml/model.js';
import { closest, didYouMean } from '../../util/suggest.js';
import { isSafeIdentifier, reservedWordHint } from '../naming.js';
import {
  TICKET_HASHES,
  type Acl,
  type AclEntry,
  type Permission,
  type Principal,
  type TicketHash,
  type TicketScheme,
} from '../types.js';

export const PERMISSIONS: readonly Permission[] = ['view', 'create', 'update', 'delete', 'options'];
const TICKET_SETTINGS = ['secret', 'hashalg', 'cookie_name', 'http_only'];
/** Pyramid ticket options that svcgen takes from service.ini instead. */
const TICKET_INI_SETTINGS: Readonly<Record<string, string>> = {
  timeout: 'auth.timeout',
  reissue_time: 'auth.reissue_time',
};

const HOST_ONLY = 'the cookie is always host-only (no Domain), so that no other host of the domain receives it';

/**
 * Pyramid's cookie settings that svcgen decides by itself, and how: a Ramses user's `secure: true`
 * was asked whether it meant `secret`.
 */
const TICKET_DECIDED: Readonly<Record<string, string>> = {
  secure:
    'svcgen sets the cookie Secure on requests that came over HTTPS (behind a proxy, with http.trust_proxy), and always with auth.cookie_host_prefix',
  samesite: 'the cookie is always SameSite=Lax, and writes from other sites are refused (403)',
  path: 'the cookie is always Path=/ and host-only',
  domain: HOST_ONLY,
  wild_domain: HOST_ONLY,
  parent_domain: HOST_ONLY,
  max_age: 'the cookie lives as long as its ticket: set auth.timeout in service.ini',
};

export interface AuthSchemes {
  readonly ticket: TicketScheme | null;
  readonly apiKey: { readonly scheme: string } | null;
  /** Where auth is configured (for messages about the user model). */
  readonly span: Span | null;
}

/** The security scheme types svcgen implements, as RAML names them (case and all). */
const KNOWN_SCHEME_TYPES = ['x-Ticket', 'x-ApiKey', 'x-ACL'] as const;

function schemeTypeHint(type: string): string {
  const known = KNOWN_SCHEME_TYPES.find((k) => k.toLowerCase() === type.toLowerCase());
  return known
    ? `did you mean ${known}? Scheme types are written with their capitals`
    : 'svcgen implements x-Ticket (cookie), x-ApiKey (token) and x-ACL';
}

export function readAuthSchemes(diagnostics: DiagnosticBag, api: RamlApi): AuthSchemes {
  const rootSecuredBy = new Set((api.securedBy ?? []).flatMap((r) => (r ? [r.name] : [])));
  let ticket: TicketScheme | null = null;
  let apiKey: { scheme: string } | null = null;
  let at: Span | null = null;
  for (const scheme of api.securitySchemes) {
    if (scheme.type !== 'x-Ticket' && scheme.type !== 'x-ApiKey') {
      if (scheme.type !== 'x-ACL' && scheme.type !== undefined) {
        diagnostics.report(
          'SVC2024',
          `security scheme "${scheme.name}" (${scheme.type}) is not implemented by svcgen and is ignored`,
          {
            span: scheme.nameNode.span,
            hint: schemeTypeHint(scheme.type),
          },
        );
      }
      continue;
    }
    if (!rootSecuredBy.has(scheme.name)) {
      diagnostics.report(
        'SVC2024',
        `security scheme "${scheme.name}" is declared but not in the root securedBy, so it is not used`,
        {
          span: scheme.nameNode.span,
          // The whole list: read literally, a hint naming only this scheme would drop the others.
          hint: `add it to the list at the root: securedBy: [${[...rootSecuredBy, scheme.name].join(', ')}]`,
        },
      );
      continue;
    }
    if (scheme.type === 'x-Ticket') ticket ??= readTicket(diagnostics, scheme);
    else apiKey ??= readApiKey(diagnostics, scheme);
    if (ticket || apiKey) at ??= scheme.nameNode.span;
  }
  return { ticket, apiKey, span: at };
}

function setting(scheme: SecurityScheme, key: string): YEntry | undefined {
  return scheme.settings?.entries.find((e) => e.key.text === key);
}

function readTicket(diagnostics: DiagnosticBag, scheme: SecurityScheme): TicketScheme | null {
  const secret = setting(scheme, 'secret');
  const secretName = secret && isScalar(secret.value) ? secret.value.text : '';
  if (!/^[A-Za-z0-9_.-]+$/.test(secretName)) {
    diagnostics.report(
      'SVC2025',
      `x-Ticket scheme "${scheme.name}" needs "secret": the name of the service.ini setting that holds the signing secret`,
      {
        span: secret?.value.span ?? scheme.nameNode.span,
        hint: 'write `secret: auth_tkt_secret` and put `auth_tkt_secret = <32+ random bytes>` in service.ini',
      },
    );
    return null;
  }
  const hashalgEntry = setting(scheme, 'hashalg');
  const hashalg = hashalgEntry && isScalar(hashalgEntry.value) ? hashalgEntry.value.text.toLowerCase() : 'sha256';
  if (!isTicketHash(hashalg)) {
    diagnostics.report('SVC2025', `x-Ticket "hashalg" must be sha256, sha384 or sha512, not "${hashalg}"`, {
      span: hashalgEntry?.value.span ?? scheme.nameNode.span,
      hint: ['md5', 'sha1'].includes(hashalg) ? `${hashalg} is too weak to sign tickets` : undefined,
    });
  }
  const cookie = setting(scheme, 'cookie_name');
  const cookieName = cookie && isScalar(cookie.value) ? cookie.value.text : 'auth_tkt';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(cookieName)) {
    diagnostics.report('SVC2025', `"${cookieName}" is not a valid cookie name`, {
      span: cookie?.value.span ?? scheme.nameNode.span,
    });
  }
  const httpOnlyEntry = setting(scheme, 'http_only');
  const httpOnly = !(
    httpOnlyEntry &&
    isScalar(httpOnlyEntry.value) &&
    String(httpOnlyEntry.value.value).toLowerCase() === 'false'
  );
  for (const e of scheme.settings?.entries ?? []) {
    if (TICKET_SETTINGS.includes(e.key.text)) continue;
    // Own keys alone: a setting named `constructor` or `toString` is no entry of these tables.
    const ini = Object.hasOwn(TICKET_INI_SETTINGS, e.key.text) ? TICKET_INI_SETTINGS[e.key.text] : undefined;
    const decided = Object.hasOwn(TICKET_DECIDED, e.key.text) ? TICKET_DECIDED[e.key.text] : undefined;
    diagnostics.report(
      'SVC2026',
      `x-Ticket setting "${e.key.text}" is ${ini ? 'read from service.ini' : decided ? 'decided by svcgen' : 'not used by svcgen'}`,
      {
        span: e.key.span,
        hint: ini
          ? `set \`${ini}\` in service.ini`
          : (decided ?? didYouMean(e.key.text, TICKET_SETTINGS) ?? `svcgen reads ${TICKET_SETTINGS.join(', ')}`),
      },
    );
  }
  return {
    scheme: scheme.name,
    secretSetting: secretName,
    hashalg: isTicketHash(hashalg) ? hashalg : 'sha256',
    cookieName,
    httpOnly,
  };
}

function readApiKey(diagnostics: DiagnosticBag, scheme: SecurityScheme): { scheme: string } {
  for (const e of scheme.settings?.entries ?? []) {
    diagnostics.report('SVC2026', `x-ApiKey takes no settings; "${e.key.text}" is ignored`, { span: e.key.span });
  }
  return { scheme: scheme.name };
}

// --- x-ACL --------------------------------------------------------------------------------------

export interface AclSource {
  readonly acl: Acl;
  /** Where each entry is written (same order as collection then item). */
  readonly entrySpans: ReadonlyMap<AclEntry, Span>;
  readonly span: Span;
}

export function readAcls(diagnostics: DiagnosticBag, api: RamlApi): AclSource[] {
  const out: AclSource[] = [];
  for (const scheme of api.securitySchemes) {
    if (scheme.type !== 'x-ACL') continue;
    const spans = new Map<AclEntry, Span>();
    const section = (key: 'collection' | 'item') => readSection(diagnostics, scheme, key, spans);
    const collection = section('collection');
    const item = section('item');
    for (const e of scheme.settings?.entries ?? []) {
      if (e.key.text !== 'collection' && e.key.text !== 'item') {
        diagnostics.report('SVC2026', `x-ACL setting "${e.key.text}" is not used`, {
          span: e.key.span,
          hint: didYouMean(e.key.text, ['collection', 'item']) ?? 'an x-ACL has `collection` and `item` rules',
        });
      }
    }
    out.push({ acl: { name: scheme.name, collection, item }, entrySpans: spans, span: scheme.nameNode.span });
  }
  return out;
}

function readSection(
  diagnostics: DiagnosticBag,
  scheme: SecurityScheme,
  key: 'collection' | 'item',
  spans: Map<AclEntry, Span>,
): AclEntry[] {
  const e = setting(scheme, key);
  if (!e || !isScalar(e.value) || e.value.value === null || String(e.value.value).trim() === '') {
    if (key === 'collection') {
      diagnostics.report(
        'SVC2033',
        `x-ACL "${scheme.name}" has no collection rules, so no one may use its collection routes`,
        {
          span: e?.key.span ?? scheme.nameNode.span,
          hint: 'Ramses allowed everything here; svcgen denies. Add rules such as `allow everyone view`',
        },
      );
    }
    return [];
  }
  const entries: AclEntry[] = [];
  for (const { text, at } of lines(e.value)) {
    const entry = readEntry(diagnostics, text, at);
    if (entry) {
      entries.push(entry);
      spans.set(entry, at);
    }
  }
  return entries;
}

/**
 * The rules of a section: one per line or `;`, with where each is written. A `#` starts a comment
 * to the end of its line, as in YAML (`allow {{on_display}} view  # svcgen: ignore SVC2086`).
 */
function lines(node: YScalar): { text: string; at: Span }[] {
  const source = node.span.source;
  const written = source.text.slice(node.span.start, node.span.end);
  let cursor = 0;
  const out: { text: string; at: Span }[] = [];
  const rules = String(node.value)
    .split('\n')
    .flatMap((line) => line.replace(/#.*$/, '').split(';'));
  for (const raw of rules) {
    const text = raw.trim();
    if (text === '') continue;
    const found = written.indexOf(text, cursor);
    const at = found >= 0 ? span(source, node.span.start + found, node.span.start + found + text.length) : node.span;
    if (found >= 0) cursor = found + text.length;
    out.push({ text, at });
  }
  return out;
}

/** Where `part` is in the text `at` covers (from `from` characters on); `at` where it is not written verbatim. */
function partOf(at: Span, part: string, from = 0): Span {
  const found = at.source.text.slice(at.start, at.end).indexOf(part, from);
  return found < 0 ? at : span(at.source, at.start + found, at.start + found + part.length);
}

/** The permissions of a rule as written (`view, update`, `all`): what follows its action and principal. */
export function permissionTextOf(text: string): string {
  return text.split(/\s+/).slice(2).join(' ');
}

function readEntry(diagnostics: DiagnosticBag, text: string, at: Span): AclEntry | undefined {
  const words = text.split(/\s+/);
  const action = words[0]!.toLowerCase();
  if (action !== 'allow' && action !== 'deny') {
    diagnostics.report('SVC2030', `ACL rules start with allow or deny, not "${words[0]}"`, {
      span: at,
      hint: didYouMean(action, ['allow', 'deny']) ?? 'write `allow <principal> <permissions>`',
    });
    return undefined;
  }
  const principalText = words[1];
  const permissionText = permissionTextOf(text);
  if (!principalText || permissionText.trim() === '') {
    diagnostics.report('SVC2030', `incomplete ACL rule "${text}"`, {
      span: at,
      hint: 'write `allow <principal> <permission>[, <permission>…]`',
    });
    return undefined;
  }
  // Problems are shown under the words they are about, where the rule is written verbatim.
  const principalAt = partOf(at, principalText, words[0]!.length);
  const permissionsAt = principalAt === at ? at : span(at.source, principalAt.end, at.end);
  const principal = readPrincipal(diagnostics, principalText, principalAt);
  const permissions = readPermissions(diagnostics, permissionText, permissionsAt);
  if (!principal || !permissions) return undefined;
  return { action, principal, permissions, text };
}

function readPrincipal(diagnostics: DiagnosticBag, written: string, at: Span): Principal | undefined {
  const lower = written.toLowerCase();
  if (lower === 'everyone' || lower === 'system.everyone') return { kind: 'everyone' };
  if (lower === 'authenticated' || lower === 'system.authenticated') return { kind: 'authenticated' };
  if (lower.startsWith('g:') && lower.length > 2) return { kind: 'group', group: lower.slice(2) };
  // A principal written half right would otherwise be a user id, and match no one.
  if (lower === 'g:') {
    diagnostics.report('SVC2030', `the group principal "${written}" names no group`, {
      span: at,
      hint: 'write g:<group>, e.g. g:admin',
    });
    return undefined;
  }
  const dynamic = /^\{\{\s*(.+?)\s*\}\}$/.exec(written)?.[1];
  if (dynamic === undefined && (written.includes('{') || written.includes('}'))) {
    diagnostics.report('SVC2030', `"${written}" is not a dynamic principal: its name goes between {{ and }}`, {
      span: at,
      hint: 'write {{name}}, e.g. {{item_owner}}, with no space inside the name',
    });
    return undefined;
  }
  if (dynamic !== undefined) {
    const name = dynamic.toLowerCase();
    if (!isSafeIdentifier(name)) {
      diagnostics.report('SVC2007', `"${dynamic}" is not a valid function name for a dynamic principal`, {
        span: at,
        hint: reservedWordHint(name, `{{${name}_owner}}`) ?? 'use letters, digits and "_", e.g. {{item_owner}}',
      });
      return undefined;
    }
    return { kind: 'dynamic', name };
  }
  if (lower === 'admin' || lower === 'admins') {
    diagnostics.report('SVC2032', `principal "${written}" means the user whose id is "${lower}", not the admin group`, {
      span: at,
      hint: 'write g:admin for everyone in the admin group',
    });
  }
  const keyword = closest(lower, ['everyone', 'authenticated']);
  if (keyword) {
    diagnostics.report('SVC2032', `principal "${written}" means the user whose id is "${lower}", not ${keyword}`, {
      span: at,
      hint: `did you mean \`${keyword}\`? A principal that is not a keyword, g:<group> or {{function}} is a user id`,
    });
  }
  return { kind: 'user', id: lower };
}

function readPermissions(diagnostics: DiagnosticBag, written: string, at: Span): Permission[] | undefined {
  const out = new Set<Permission>();
  let ok = true;
  for (const raw of written.split(',')) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    if (name === 'all') {
      PERMISSIONS.forEach((p) => out.add(p));
      continue;
    }
    if ((PERMISSIONS as readonly string[]).includes(name)) {
      out.add(name as Permission);
      continue;
    }
    ok = false;
    const legacy: Readonly<Record<string, string>> = {
      get: 'view',
      post: 'create',
      put: 'update',
      patch: 'update',
      head: 'view',
    };
    // `collection:` without `|`: YAML folds the rules into one line, the next rule's words read as permissions.
    const folded = /\s(allow|deny)\s/i.test(` ${raw} `);
    diagnostics.report('SVC2031', `unknown ACL permission "${raw.trim()}"`, {
      span: partOf(at, raw.trim()),
      hint: folded
        ? 'the rules were read as one line: write `collection: |` (and `item: |`) so that each line is a rule of its own'
        : spaced(raw)
          ? `separate permissions with commas: ${raw.trim().split(/\s+/).join(', ')}`
          : legacy[name]
            ? `permissions are named by action since Ramses 0.5: use ${legacy[name]}`
            : (didYouMean(name, [...PERMISSIONS, 'all']) ?? `use ${PERMISSIONS.join(', ')} or all`),
    });
  }
  return ok ? PERMISSIONS.filter((p) => out.has(p)) : undefined;
}

/** Whether `raw` is permissions written with spaces for commas (`update delete`). */
function spaced(raw: string): boolean {
  const words = raw.trim().split(/\s+/);
  return (
    words.length > 1 &&
    words.every(
      (word) => (PERMISSIONS as readonly string[]).includes(word.toLowerCase()) || word.toLowerCase() === 'all',
    )
  );
}

/** The digests a ticket is signed with: sha256, the contract's minimum, and the stronger two of its family. */
function isTicketHash(name: string): name is TicketHash {
  return (TICKET_HASHES as readonly string[]).includes(name);
}
