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

/** `Authorization: ApiKey <user>:<token>` (the scheme word in any case), or null. */
export function readApiKeyHeader(header: string | undefined): { user: string; token: string } | null {
  const match = header ? /^apikey +([^:\s]{1,255}):([0-9a-f]{64})$/i.exec(header.trim()) : null;
  return match ? { user: match[1]!, token: match[2]! } : null;
}
