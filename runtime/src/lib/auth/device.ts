/**
 * Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * logged in to an account gets a cookie saying so, signed by the service. The login brake
 * (throttle.ts) gives guesses from such a device a budget of their own, so that guesses from
 * everywhere else, which share one small budget per account, cannot lock the owner out of the
 * devices they use.
 *
 * The cookie is `<issued, 8 hex>.<random id>.<HMAC>`, the HMAC over the account's key and its
 * password's fingerprint too: it vouches for one account, until its password changes (a cookie
 * minted by someone who once knew an old password, or by an account since deleted and made again
 * under its key, vouches for nothing), and its id is the device's count. One cookie per account,
 * named by a tag of the account's key (`deviceTags`): a browser that logs in to several keeps each
 * one's, and a cookie planted under another name is never read for it. Its key is derived from the
 * login cookie's secret for this purpose alone (HKDF), and every configured secret verifies, as for
 * tickets. Without an x-Ticket secret (an x-ApiKey-only API) there are no device cookies.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { sameBytes } from './ticket.js';

export interface DeviceKeys {
  /** The first signs, every one verifies (newest first). */
  readonly keys: readonly Buffer[];
}

/** A year, less than the 400 days browsers keep a cookie at most. */
export const DEVICE_SECONDS = 365 * 86400;
const KEY_INFO = 'svcgen device cookie v1';
const SHAPE = /^([0-9a-f]{8})\.([A-Za-z0-9_-]{22})\.([0-9a-f]{64})$/;

export function deviceKeys(secrets: readonly string[]): DeviceKeys {
  return {
    keys: secrets.map((s) => Buffer.from(hkdfSync('sha256', Buffer.from(s, 'utf8'), Buffer.alloc(0), KEY_INFO, 32))),
  };
}

/** Who a device cookie vouches for: an account's key, and the fingerprint of its password (ticket.ts). */
export interface Vouched {
  readonly userKey: string;
  readonly fingerprint: string;
}

/** A new device cookie's value, vouching that this device logged in to `account` at `nowSeconds`. */
export function issueDevice(keys: DeviceKeys, account: Vouched, nowSeconds: number): string {
  const payload = `${nowSeconds.toString(16).padStart(8, '0')}.${randomBytes(16).toString('base64url')}`;
  return `${payload}.${mac(keys.keys[0]!, account, payload).toString('hex')}`;
}

/**
 * The tags that name an account's device cookie, one per configured secret (the first names new
 * cookies): 12 hex digits of an HMAC of its key, which tell nothing of whose it is.
 */
export function deviceTags(keys: DeviceKeys, userKey: string): string[] {
  return keys.keys.map((key) => createHmac('sha256', key).update(`tag\0${userKey}`, 'utf8').digest('hex').slice(0, 12));
}

/**
 * The id of the device `value` names, when it is a device cookie of `account`'s, unexpired and
 * signed with a configured secret; else null (a stranger, as a guess without one is).
 */
export function trustedDevice(
  keys: DeviceKeys,
  value: string | undefined,
  account: Vouched,
  nowSeconds: number,
): string | null {
  const match = value === undefined ? null : SHAPE.exec(value);
  if (!match) return null;
  const [, issued, id, digest] = match as unknown as [string, string, string, string];
  const age = nowSeconds - parseInt(issued, 16);
  // From the future (beyond a minute of clock skew), or older than the cookie lives.
  if (age < -60 || age > DEVICE_SECONDS) return null;
  const given = Buffer.from(digest, 'hex');
  const payload = `${issued}.${id}`;
  return keys.keys.some((key) => sameBytes(mac(key, account, payload), given)) ? id : null;
}

function mac(key: Buffer, account: Vouched, payload: string): Buffer {
  return createHmac('sha256', key).update(`${account.userKey}\0${account.fingerprint}\0${payload}`, 'utf8').digest();
}
