/**
 * Webhook signatures as Standard Webhooks has them (https://www.standardwebhooks.com/): the
 * receiver's existing library (svix, standardwebhooks) checks what we send without custom code.
 * The signed content is `<webhook-id>.<webhook-timestamp>.<body>`, signed with HMAC-SHA256 and
 * sent base64 in `webhook-signature: v1,<signature>`. `verify` is also the receiver's side, as the
 * generated README shows it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The HMAC key of a secret: the bytes of the base64 after `whsec_` (the secrets that Standard
 * Webhooks libraries generate and expect), else the secret's UTF-8 bytes. Throws a TypeError for
 * a `whsec_` secret whose rest is not base64 or is empty: signing with a garbled key would make
 * every signature fail at the receiver.
 */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) return Buffer.from(secret, 'utf8');
  const encoded = secret.slice(PREFIX.length);
  // Buffer.from skips characters that are not base64 instead of refusing them.
  if (!BASE64.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1)
    throw new TypeError('the part after whsec_ is not base64 (A-Z, a-z, 0-9, +, / and = at the end)');
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new TypeError('the part after whsec_ is empty');
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`; `timestamp` in seconds. */
export function sign(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: a fresh timestamp (and so signature) each time, the same id. */
export function webhookHeaders(key: Buffer, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': sign(key, id, timestamp, body),
  };
}

/**
 * Whether a webhook came from the holder of `secret`, unchanged and recently: one of the
 * space-separated signatures matches, and the timestamp is within `toleranceSeconds` of now
 * (an old request replayed is refused). `headers` as Node gives them (lower-case names); `body`
 * exactly as received, before any JSON parsing.
 */
export function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  now = Date.now(),
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(signingKey(secret), id, Number(timestamp), body));
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    // timingSafeEqual needs equal lengths; a length says nothing about the key.
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
