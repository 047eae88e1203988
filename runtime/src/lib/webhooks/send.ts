/**
 * One attempt at one delivery: a signed POST to the subscription's URL, whose answer becomes an
 * Outcome (never an exception: a failure is an ordinary result that schedules a retry). Connections
 * are kept alive, one pool per receiver origin, so a busy subscription costs a request, not a TCP
 * (and TLS) handshake, per event. Redirects are not followed: the signature covers the body only,
 * and a receiver that moved should be configured at its new address.
 */
import http from 'node:http';
import https from 'node:https';
import { retryAfterMs } from './schedule.js';
import { webhookHeaders } from './signature.js';
import type { Outcome, Subscription } from './types.js';

/** The most of a response read before the connection is dropped: receivers owe us a status, not a body. */
const MAX_BODY_BYTES = 64 * 1024;
/** What is kept of a failed response's body for `error`: enough for its first 200 characters. */
const SNIPPET_BYTES = 1024;
const SNIPPET_CHARS = 200;
/**
 * Idle kept-alive connections are closed after this: before the receiver's server closes them
 * (Node's default keep-alive timeout is 5 s), which would race with a request sent on them.
 */
const IDLE_MS = 4000;
const USER_AGENT = 'svc-webhooks/1';

const agents = new Map<string, http.Agent>();

/** A request sent on a kept-alive connection that the receiver had just closed: send it again. */
const STALE = Symbol('stale connection');

export async function sendWebhook(
  subscription: Subscription,
  eventId: string,
  body: string,
  timeoutMs: number,
  now = Date.now(),
): Promise<Outcome> {
  let url: URL;
  try {
    url = new URL(subscription.url);
  } catch {
    return { ok: false, status: null, error: `invalid URL "${subscription.url}"` };
  }
  const headers = {
    ...webhookHeaders(subscription.key, eventId, body, now),
    'content-length': String(Buffer.byteLength(body)),
    'user-agent': USER_AGENT,
  };
  const deadline = Date.now() + timeoutMs;
  const first = await attempt(url, headers, body, timeoutMs);
  if (first !== STALE) return first;
  // The receiver never saw it (it closed the connection first), so sending again is safe.
  const second = await attempt(url, headers, body, Math.max(1, deadline - Date.now()));
  return second === STALE ? { ok: false, status: null, error: `connection reset by ${url.host}` } : second;
}

/** Closes every kept-alive connection (at shutdown); later sends open new ones. */
export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

function agentFor(url: URL): http.Agent {
  let agent = agents.get(url.origin);
  if (!agent) {
    // lifo: the most recently used connection, the least likely to have been closed meanwhile.
    const options: http.AgentOptions = { keepAlive: true, scheduling: 'lifo', timeout: IDLE_MS };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(url.origin, agent);
  }
  return agent;
}

function attempt(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Outcome | typeof STALE> {
  return new Promise((resolve) => {
    let request: http.ClientRequest;
    try {
      const client = url.protocol === 'https:' ? https : http;
      // The URL's user and password, if any, become Basic authentication.
      request = client.request(url, { method: 'POST', headers, agent: agentFor(url) });
    } catch (error) {
      resolve({ ok: false, status: null, error: (error as Error).message });
      return;
    }
    let answered: Outcome | undefined;
    const finish = (outcome: Outcome | typeof STALE): void => {
      clearTimeout(timer);
      resolve(outcome);
    };
    // Past the deadline a received status still counts: the receiver answered.
    const timer = setTimeout(() => {
      finish(answered ?? { ok: false, status: null, error: `timed out after ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) finish(answered);
      else if (request.reusedSocket && error.code === 'ECONNRESET') finish(STALE);
      else finish({ ok: false, status: null, error: networkError(error, url) });
    });
    request.on('response', (response) => {
      const text = isText(response.headers['content-type']);
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let total = 0;
      const done = (): void => {
        answered = outcome(response, text ? Buffer.concat(kept) : undefined);
        finish(answered);
      };
      answered = outcome(response, undefined);
      response.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (text && keptBytes < SNIPPET_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
        // Dropping the connection is cheaper than reading megabytes nobody needs.
        if (total > MAX_BODY_BYTES) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', done);
      response.on('close', done);
    });
    request.end(body);
  });
}

/** The Outcome of an answer with this status, and `body`: the start of the response, if text. */
function outcome(response: http.IncomingMessage, body: Buffer | undefined): Outcome {
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status >= 300 && status < 400) {
    const location = response.headers.location?.slice(0, SNIPPET_CHARS);
    const to = location ? ` to ${location}` : '';
    return { ok: false, status, error: `HTTP ${status}: a redirect${to}, not followed (set the final URL)` };
  }
  const snippet = body?.toString('utf8').replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS);
  const error = snippet ? `HTTP ${status}: ${snippet}` : `HTTP ${status}`;
  const header = response.headers['retry-after'];
  const retryAfter = status === 429 || status === 503 ? retryAfterMs(header, Date.now()) : undefined;
  return retryAfter === undefined ? { ok: false, status, error } : { ok: false, status, error, retryAfter };
}

function isText(contentType: string | undefined): boolean {
  return contentType === undefined || /^text\/|[/+](json|xml)\b/i.test(contentType);
}

/** A failure before any answer, as an operator reads it in the delivery's `lastError`. */
function networkError(error: NodeJS.ErrnoException, url: URL): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${url.host}`;
    case 'ECONNRESET':
      return `connection reset by ${url.host}`;
    case 'ENOTFOUND':
      return `host not found: ${url.hostname}`;
    case 'EAI_AGAIN':
      return `DNS lookup of ${url.hostname} failed (temporarily)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${url.host} is unreachable`;
    case 'ETIMEDOUT':
      return `connecting to ${url.host} timed out`;
    default:
      return error.code ? `${error.message} (${error.code})` : error.message || String(error);
  }
}
