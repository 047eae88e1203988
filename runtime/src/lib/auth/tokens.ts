/**
 * API tokens: 32 random bytes, shown to the user once and stored only as
 * a SHA-256 digest, compared in constant time. The digest covers the fingerprint of the user's
 * password hash too, so changing the password revokes the token. Tokens are read from the Authorization header
 * only, never from a query string (which ends up in logs).
 */
import { hash, randomBytes } from 'node:crypto';
import { sameBytes } from './ticket.js';

export function newToken(): string {
  return randomBytes(32).toString('hex');
}

export function tokenDigest(token: string, passwordFingerprint: string): string {
  return hash('sha256', `${passwordFingerprint}:${token}`, 'hex');
}

export function sameDigest(a: string, b: string): boolean {
  return sameBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * `Authorization: ApiKey <user>:<token>` (the scheme word in any case), or null. The token is the
 * last `:` and 64 hex digits, so a `:` in the name needs no encoding; nor do letters beyond ASCII
 * sent as UTF-8, as curl sends them (Node reads a header's bytes one character each). A probe's
 * `ApiKey a:b:<token>` and `ApiKey josé:<token>` were 401s, unsaid in the README.
 */
export function readApiKeyHeader(header: string | undefined): { user: string; token: string } | null {
  const match = header ? /^apikey +([\x21-\xff]{1,255}):([0-9a-f]{64})$/i.exec(header.trim()) : null;
  const user = match ? headerUserName(match[1]!) : undefined;
  return match && user !== undefined ? { user, token: match[2]! } : null;
}

/**
 * `ApiKey <user>:<token>` as a header value. A header carries bytes, not text: a username beyond
 * printable ASCII (`аbc`, `josé`), and `%` itself, are percent-encoded as UTF-8, as
 * `readApiKeyHeader` reads them back, and so is a `:` in it (`group:x`), for clients that split at
 * the first one; any other name is written as it is, as Ramses wrote it.
 */
export function apiKeyHeader(user: string, token: string): string {
  const name = user.replace(/[^\x21-\x7e]|[%:]/gu, (ch) => encodeURIComponent(ch));
  return `ApiKey ${name}:${token}`;
}

/**
 * A username as a header names it (`apiKeyHeader`); undefined when its percent-encoding is broken,
 * or names a control character no username has (`%00`: PostgreSQL refuses a NUL in text, and the
 * lookup answered an anonymous caller 500 where a wrong key is a 401).
 */
function headerUserName(written: string): string | undefined {
  let name = written;
  try {
    // Bytes beyond ASCII are the name's UTF-8 (any other encoding names no one).
    if (/[\x80-\xff]/.test(name)) name = UTF8.decode(Buffer.from(name, 'latin1'));
    if (name.includes('%')) name = decodeURIComponent(name);
  } catch {
    return undefined;
  }
  return CONTROL.test(name) ? undefined : name;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

// oxlint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\0-\x1f\x7f-\x9f]/u;
