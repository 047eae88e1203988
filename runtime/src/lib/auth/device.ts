/**
 * Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * logged in to an account gets a cookie saying so, signed by the service. The login brake
 * (throttle.ts) gives guesses from such a device a budget of their own, so that guesses from
 * everywhere else, which share one small budget per account, cannot lock the owner out of the
 * devices they use.
 *
 * The cookie is `<issued, 8 hex>.<random id>.<HMAC>`, the HMAC over the account's key too: it
 * vouches for one account, and its id is the device's count. Its key is derived from the login
 * cookie's secret for this purpose alone (HKDF), and every configured secret verifies, as for
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

/** A new device cookie's value, vouching that this device logged in to `userKey` at `nowSeconds`. */
export function issueDevice(keys: DeviceKeys, userKey: string, nowSeconds: number): string {
  const payload = `${nowSeconds.toString(16).padStart(8, '0')}.${randomBytes(16).toString('base64url')}`;
  return `${payload}.${mac(keys.keys[0]!, userKey, payload).toString('hex')}`;
}

/**
 * The id of the device `value` names, when it is a device cookie of `userKey`'s, unexpired and
 * signed with a configured secret; else null (a stranger, as a guess without one is).
 */
export function trustedDevice(
  keys: DeviceKeys,
  value: string | undefined,
  userKey: string,
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
  return keys.keys.some((key) => sameBytes(mac(key, userKey, payload), given)) ? id : null;
}

function mac(key: Buffer, userKey: string, payload: string): Buffer {
  return createHmac('sha256', key).update(`${userKey}\0${payload}`, 'utf8').digest();
}
