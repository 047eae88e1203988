/**
 * The login cookie: the user's key, the time it was issued, the user's
 * session epoch and a fingerprint of the user's password hash, signed with an HMAC (`hashalg`).
 * It is parsed strictly before anything is hashed, compared in constant time, and carries no
 * groups: those are read from the user on each request. Logging out raises the epoch and changing
 * the password changes the fingerprint, so either makes every earlier ticket worthless.
 *
 *   <base64url(user key)>.<issued at: 8 hex, seconds>.<epoch: decimal>.<fingerprint: 16 hex>.<HMAC: hex>
 *
 * The signing key is derived from the secret for this purpose alone (HKDF), so the same secret
 * reused elsewhere cannot forge tickets. Several secrets may be configured (separated by spaces or
 * commas): the first signs, every one verifies, so a secret can be rotated without logging
 * everyone out.
 */
import { createHmac, hash, hkdfSync, timingSafeEqual } from 'node:crypto';
import { text } from '../text.js';

export type HashAlgorithm = 'sha256' | 'sha384' | 'sha512';

export interface TicketKeys {
  readonly hashalg: HashAlgorithm;
  /** The first key signs; every key verifies. */
  readonly keys: readonly Buffer[];
}

export interface Ticket {
  readonly userKey: string;
  /** Seconds since 1970. */
  readonly issuedAt: number;
  readonly epoch: number;
  /** `fingerprint(password hash)` when the ticket was issued. */
  readonly fingerprint: string;
}

export interface VerifiedTicket extends Ticket {
  /** Signed with a key other than the first: reissue it with the current one. */
  readonly oldKey: boolean;
}

/** Secrets shorter than this are refused at start-up (OWASP: at least 256 bits). */
export const MIN_SECRET_BYTES = 32;
const KEY_INFO = 'svcgen x-Ticket v1';
const MAX_USER_KEY_CHARS = 400;
const DIGEST_HEX: Readonly<Record<HashAlgorithm, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** The secrets as written in service.ini (`a b` or `a,b`), newest first. */
export function splitSecrets(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function ticketKeys(secrets: readonly string[], hashalg: HashAlgorithm): TicketKeys {
  if (secrets.length === 0) throw new Error('no ticket secret');
  const size = DIGEST_HEX[hashalg] / 2;
  return {
    hashalg,
    keys: secrets.map((s) => Buffer.from(hkdfSync('sha256', Buffer.from(s, 'utf8'), Buffer.alloc(0), KEY_INFO, size))),
  };
}

export function issueTicket(keys: TicketKeys, ticket: Ticket): string {
  if (!/^[0-9a-f]{16}$/.test(ticket.fingerprint)) throw new RangeError('bad ticket fingerprint');
  const user = Buffer.from(ticket.userKey, 'utf8').toString('base64url');
  const payload = `${user}.${hex8(ticket.issuedAt)}.${ticket.epoch}.${ticket.fingerprint}`;
  return `${payload}.${mac(keys.hashalg, keys.keys[0]!, payload).toString('hex')}`;
}

/** The ticket in `value`, or null when it is malformed, forged or signed with an unknown key. */
export function verifyTicket(keys: TicketKeys, value: string): VerifiedTicket | null {
  const digits = DIGEST_HEX[keys.hashalg];
  const match = new RegExp(
    `^([A-Za-z0-9_-]{1,${MAX_USER_KEY_CHARS}})\\.([0-9a-f]{8})\\.(0|[1-9][0-9]{0,9})\\.([0-9a-f]{16})\\.([0-9a-f]{${digits}})$`,
  ).exec(value);
  if (!match) return null;
  const [, user, issued, epoch, fingerprint, digest] = match as unknown as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const payload = `${user}.${issued}.${epoch}.${fingerprint}`;
  const given = Buffer.from(digest, 'hex');
  const index = keys.keys.findIndex((key) => sameBytes(mac(keys.hashalg, key, payload), given));
  if (index === -1) return null;
  const userKey = Buffer.from(user, 'base64url').toString('utf8');
  // base64url has several spellings of some values; only the canonical one is a ticket.
  if (Buffer.from(userKey, 'utf8').toString('base64url') !== user) return null;
  return { userKey, issuedAt: parseInt(issued, 16), epoch: Number(epoch), fingerprint, oldKey: index > 0 };
}

/** 16 hex digits that change whenever the stored password hash does. */
export function fingerprint(passwordHash: unknown): string {
  // One-shot: every authenticated request takes it, and a Hash object costs several times more.
  return hash('sha256', text(passwordHash ?? ''), 'hex').slice(0, 16);
}

/** Constant-time comparison; different lengths are unequal (timingSafeEqual would throw). */
export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function mac(hashalg: HashAlgorithm, key: Buffer, payload: string): Buffer {
  return createHmac(hashalg, key).update(payload, 'utf8').digest();
}

function hex8(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 0xffffffff)
    throw new RangeError('ticket time out of range');
  return seconds.toString(16).padStart(8, '0');
}
