/** A change feed client for the tests: reads `GET {base}/_events` (Server-Sent Events) as they come. */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FeedMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

export interface Feed {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly messages: FeedMessage[];
  /** The `: …` comments (heartbeats, the last word of a closed feed). */
  readonly comments: string[];
  /** Waits until `check` holds on the messages so far (or throws after `timeoutMs`). */
  until(check: (messages: readonly FeedMessage[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function openFeed(url: string, headers: Record<string, string> = {}): Promise<Feed> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (res: IncomingMessage) => {
      const messages: FeedMessage[] = [];
      const comments: string[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          parse(block, messages, comments);
        }
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        comments,
        async until(check, timeoutMs = 15_000) {
          const deadline = Date.now() + timeoutMs;
          while (!check(messages)) {
            if (Date.now() > deadline)
              throw new Error(`timed out waiting on the feed; got ${JSON.stringify(messages.map((m) => m.event))}`);
            await sleep(20);
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function parse(block: string, messages: FeedMessage[], comments: string[]): void {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  let any = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) comments.push(line.slice(1).trim());
    else if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
      any = true;
    }
  }
  if (any) messages.push({ id, event, data: data.join('\n') });
}
