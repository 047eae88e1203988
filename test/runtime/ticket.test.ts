/**
 * The login ticket of generated services (runtime/src/lib/auth/ticket.ts):
 * golden vectors, so a change of format (which would log every user out) cannot slip in, and the
 * tampering cases of docs/reliability.md (rows 1–2 of its table).
 */
import { describe, expect, it } from 'vitest';
import { fingerprint, issueTicket, splitSecrets, ticketKeys, verifyTicket } from '../../runtime/src/lib/auth/ticket.js';
import { readApiKeyHeader, sameDigest, tokenDigest } from '../../runtime/src/lib/auth/tokens.js';

const SECRET = 's3cr3t-0123456789abcdef0123456789abcdef';
const TICKET = {
  userKey: 'alice',
  issuedAt: 1700000000,
  epoch: 3,
  fingerprint: fingerprint('$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA'),
};

describe('x-Ticket', () => {
  it('has stable golden values for sha256, sha384 and sha512', () => {
    expect(issueTicket(ticketKeys([SECRET], 'sha256'), TICKET)).toMatchInlineSnapshot(
      `"YWxpY2U.6553f100.3.dd0e830325d138ca.2eac112a48d69b8f74792f3e1eb96f6ec09bc69d31d986d7330f5f8abcbd827f"`,
    );
    expect(issueTicket(ticketKeys([SECRET], 'sha384'), TICKET)).toMatchInlineSnapshot(
      `"YWxpY2U.6553f100.3.dd0e830325d138ca.ce454a2a21d21e6e70e9a5deb25a159c4618215e1ddd8ce9b5f5bb72bda190d90c1222ebfccb180c185904fc1965417b"`,
    );
    expect(issueTicket(ticketKeys([SECRET], 'sha512'), TICKET)).toMatchInlineSnapshot(
      `"YWxpY2U.6553f100.3.dd0e830325d138ca.547e7eba60e2e11c161f8a45ae59c834fc5e16610339fc0c37f1a1b767337b2b6f8cd142c7262b29a454aaf70ac23762232a617c1b2eae2c449348204c5dd470"`,
    );
  });

  it.each(['sha256', 'sha384', 'sha512'] as const)('reads back what it issued with %s, for any user key', (hashalg) => {
    const keys = ticketKeys([SECRET], hashalg);
    for (const userKey of ['alice', '42', 'ünïcode', 'a/b+c=d', 'x'.repeat(250)]) {
      const verified = verifyTicket(keys, issueTicket(keys, { ...TICKET, userKey }));
      expect(verified).toEqual({ ...TICKET, userKey, oldKey: false });
    }
  });

  it('refuses every changed character, case change, truncation or extension', () => {
    const keys = ticketKeys([SECRET], 'sha256');
    const good = issueTicket(keys, TICKET);
    for (let i = 0; i < good.length; i++) {
      const c = good[i]!;
      const other = c === '0' ? '1' : c === '.' ? '!' : '0';
      expect(verifyTicket(keys, good.slice(0, i) + other + good.slice(i + 1)), `position ${i}`).toBeNull();
      if (c.toUpperCase() !== c)
        expect(verifyTicket(keys, good.slice(0, i) + c.toUpperCase() + good.slice(i + 1))).toBeNull();
    }
    for (const bad of [good.slice(0, -1), `${good}0`, `${good}!`, '', '.', 'x'.repeat(5000), good.replace('.', '..')]) {
      expect(verifyTicket(keys, bad)).toBeNull();
    }
  });

  it('refuses another secret, another algorithm, and a swapped user', () => {
    const keys = ticketKeys([SECRET], 'sha256');
    const good = issueTicket(keys, TICKET);
    expect(verifyTicket(ticketKeys([`${SECRET}x`], 'sha256'), good)).toBeNull();
    expect(verifyTicket(ticketKeys([SECRET], 'sha512'), good)).toBeNull();
    const swapped = good.replace(
      Buffer.from('alice').toString('base64url'),
      Buffer.from('admin').toString('base64url'),
    );
    expect(verifyTicket(keys, swapped)).toBeNull();
  });

  it('verifies with an older secret while a new one signs, and says so (to reissue)', () => {
    const old = issueTicket(ticketKeys(['old-secret-old-secret-old-secret-0'], 'sha512'), TICKET);
    const rotated = ticketKeys(
      splitSecrets('new-secret-new-secret-new-secret-0, old-secret-old-secret-old-secret-0'),
      'sha512',
    );
    expect(verifyTicket(rotated, old)).toMatchObject({ userKey: 'alice', oldKey: true });
    expect(verifyTicket(ticketKeys(['new-secret-new-secret-new-secret-0'], 'sha512'), old)).toBeNull();
  });

  it('derives its key from the secret (HKDF): a plain HMAC with the secret is not a ticket', async () => {
    const { createHmac } = await import('node:crypto');
    const good = issueTicket(ticketKeys([SECRET], 'sha256'), TICKET);
    const payload = good.slice(0, good.lastIndexOf('.'));
    const forged = `${payload}.${createHmac('sha256', SECRET).update(payload).digest('hex')}`;
    expect(verifyTicket(ticketKeys([SECRET], 'sha256'), forged)).toBeNull();
  });
});

describe('x-ApiKey tokens', () => {
  it('reads only `ApiKey user:<64 hex>` from the header', () => {
    const token = 'ab'.repeat(32);
    expect(readApiKeyHeader(`ApiKey alice:${token}`)).toEqual({ user: 'alice', token });
    expect(readApiKeyHeader(`apikey alice:${token}`)).toEqual({ user: 'alice', token });
    // A `:` in the name, and letters beyond ASCII as UTF-8 (a header's bytes, one character each) or
    // percent-encoded: a probe's `a:b` and `josé` were 401s.
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    for (const [written, user] of [
      ['a:b', 'a:b'],
      ['a%3Ab', 'a:b'],
      [bytes('josé'), 'josé'],
      ['jos%C3%A9', 'josé'],
      [bytes('à'), 'à'],
      [bytes('аdmin:x'), 'аdmin:x'],
      ['50%25', '50%'],
    ])
      expect(readApiKeyHeader(`ApiKey ${written}:${token}`), user).toEqual({ user, token });
    for (const bad of [
      undefined,
      '',
      `Bearer ${token}`,
      `ApiKey alice:${token.slice(1)}`,
      `ApiKey alice ${token}`,
      `ApiKey :${token}`,
      // A control character, percent-encoded, names no user (a NUL was a 500 on PostgreSQL).
      `ApiKey a%00:${token}`,
      `ApiKey a%0A:${token}`,
      `ApiKey a%C2%85:${token}`,
      // Bytes that are no UTF-8 (Latin-1's é), a broken percent-encoding, a control character.
      `ApiKey jos\xe9:${token}`,
      `ApiKey 50%:${token}`,
      `ApiKey a\x7f:${token}`,
      `ApiKey a\x85:${token}`,
    ]) {
      expect(readApiKeyHeader(bad)).toBeNull();
    }
  });

  it('stores a digest that changes with the password', () => {
    const token = 'cd'.repeat(32);
    const digest = tokenDigest(token, fingerprint('hash-1'));
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(token);
    expect(sameDigest(digest, tokenDigest(token, fingerprint('hash-1')))).toBe(true);
    expect(sameDigest(digest, tokenDigest(token, fingerprint('hash-2')))).toBe(false);
    expect(sameDigest(digest, digest.slice(1))).toBe(false);
  });
});
