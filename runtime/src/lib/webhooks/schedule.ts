/**
 * When a failed delivery is tried again: after the failure's delay in `webhooks.retry_delays`
 * (the last one repeats), shortened at random, or later when the receiver asks so with
 * Retry-After; never once `webhooks.max_attempts` failures are reached (the delivery is dead).
 */
import type { WebhookSettings } from './types.js';

/** The longest wait a Retry-After may impose: a receiver cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER = 24 * 60 * 60 * 1000;

/**
 * Epoch ms of the next attempt after `attempts` failures (this one included), or null when the
 * delivery is dead. `retryAfter`: the ms a 429 or 503 asked to wait.
 */
export function nextAttemptAt(
  settings: Pick<WebhookSettings, 'maxAttempts' | 'retryDelays'>,
  attempts: number,
  now: number,
  retryAfter?: number,
  random: () => number = Math.random,
): number | null {
  if (attempts >= settings.maxAttempts) return null;
  const delays = settings.retryDelays;
  const delay = delays[Math.min(Math.max(attempts, 1), delays.length) - 1] ?? 0;
  // Between half and all of the delay: deliveries that failed together (a receiver's outage)
  // spread out instead of all coming back at the same moment, and never later than the schedule.
  const jittered = delay * (0.5 + random() / 2);
  const asked = retryAfter === undefined ? 0 : Math.min(retryAfter, MAX_RETRY_AFTER);
  return Math.round(now + Math.max(jittered, asked));
}

/**
 * The ms a Retry-After header asks to wait: delta-seconds (`120`) or an HTTP date; undefined when
 * there is none or it cannot be read. A date in the past is 0.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // A date has letters (the day and month names); a bare negative or decimal number is invalid.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
