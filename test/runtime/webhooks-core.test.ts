/**
 * The parts of webhooks that need no database (runtime/src/lib/webhooks/): reading the settings
 * of service.ini and the environment, Standard Webhooks signatures (against the specification's
 * published test vector), the retry schedule, and one delivery attempt against local HTTP servers
 * that answer, fail, stall, redirect, flood or refuse.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER, nextAttemptAt, retryAfterMs } from '../../runtime/src/lib/webhooks/schedule.js';
import { closeAgents, sendWebhook } from '../../runtime/src/lib/webhooks/send.js';
import { sign, signingKey, verify, webhookHeaders } from '../../runtime/src/lib/webhooks/signature.js';
import type { Outcome, Subscription, WebhookSettings } from '../../runtime/src/lib/webhooks/types.js';

// settings.ts is loaded by URL: it imports lib/config.ts, whose `ini` dependency generated
// projects have and this repository's own install does not.
interface SettingsModule {
  readonly webhookSettings: (
    settings: ReadonlyMap<string, string>,
    env?: NodeJS.ProcessEnv,
    catalog?: ReadonlyMap<string, readonly string[]>,
  ) => WebhookSettings;
  readonly eventCatalog: (models: readonly string[], registering?: string) => ReadonlyMap<string, readonly string[]>;
  readonly parseDuration: (text: string) => number | undefined;
  readonly matchesEvent: (patterns: readonly string[], type: string) => boolean;
  readonly DEFAULT_RETRY_DELAYS: readonly number[];
}
const { webhookSettings, eventCatalog, parseDuration, matchesEvent, DEFAULT_RETRY_DELAYS } = (await import(
  new URL('../../runtime/src/lib/webhooks/settings.ts', import.meta.url).href
)) as SettingsModule;
const { ConfigError } = (await import(new URL('../../runtime/src/lib/config.ts', import.meta.url).href)) as {
  ConfigError: new (message: string) => Error;
};

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;
/** 24 random bytes, as `whsec_` + base64. */
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const ini = (entries: Record<string, string>) => new Map(Object.entries(entries));

/** The ConfigError that reading these settings throws. */
function configError(settings: Record<string, string>, env: NodeJS.ProcessEnv = {}): Error {
  try {
    webhookSettings(ini(settings), env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as Error;
  }
  throw new Error('no ConfigError');
}

describe('webhook settings', () => {
  it('has defaults: no subscription, 10 s, 12 attempts over about a day, dispatch on, 7 and 30 days', () => {
    expect(webhookSettings(ini({}), {})).toEqual({
      subscriptions: [],
      timeout: 10 * SECOND,
      maxAttempts: 12,
      retryDelays: DEFAULT_RETRY_DELAYS,
      dispatch: true,
      retention: 7 * DAY,
      deadRetention: 30 * DAY,
    });
    expect(DEFAULT_RETRY_DELAYS).toHaveLength(11);
  });

  it('reads a subscription of service.ini: events trimmed, * by default, the whsec_ key decoded', () => {
    const settings = webhookSettings(
      ini({
        'webhooks.billing.url': 'https://billing.example/hooks',
        'webhooks.billing.events': 'Story.create, Invoice.*',
        'webhooks.billing.secret': SECRET,
        'webhooks.audit.url': 'http://127.0.0.1:9000/',
        'webhooks.audit.secret': 'a raw secret of some length',
      }),
      {},
    );
    expect(settings.subscriptions).toEqual([
      {
        name: 'billing',
        url: 'https://billing.example/hooks',
        events: ['Story.create', 'Invoice.*'],
        key: Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'),
      },
      { name: 'audit', url: 'http://127.0.0.1:9000/', events: ['*'], key: Buffer.from('a raw secret of some length') },
    ]);
  });

  it('takes a subscription from the environment alone, its name lower-cased', () => {
    const settings = webhookSettings(ini({}), {
      SVC_WEBHOOKS_CRM_SYNC_URL: 'https://crm.example/in',
      SVC_WEBHOOKS_CRM_SYNC_EVENTS: 'User.*',
      SVC_WEBHOOKS_CRM_SYNC_SECRET: SECRET,
      SVC_OTHER_URL: 'not ours',
    });
    expect(settings.subscriptions).toEqual([
      { name: 'crm_sync', url: 'https://crm.example/in', events: ['User.*'], key: signingKey(SECRET) },
    ]);
  });

  it('lets the environment override a subscription of service.ini, - and _ alike, any case', () => {
    const settings = webhookSettings(
      ini({
        'webhooks.My-Hook.url': 'https://old.example/',
        'webhooks.My-Hook.events': 'Story.create',
        'webhooks.My-Hook.secret': 'a secret from the file',
      }),
      { SVC_WEBHOOKS_MY_HOOK_URL: 'https://new.example/', SVC_WEBHOOKS_MY_HOOK_SECRET: SECRET },
    );
    expect(settings.subscriptions).toEqual([
      { name: 'My-Hook', url: 'https://new.example/', events: ['Story.create'], key: signingKey(SECRET) },
    ]);
  });

  it('turns a subscription off with an empty URL', () => {
    const file = { 'webhooks.billing.url': 'https://billing.example/', 'webhooks.billing.secret': SECRET };
    expect(webhookSettings(ini(file), {}).subscriptions).toHaveLength(1);
    expect(webhookSettings(ini(file), { SVC_WEBHOOKS_BILLING_URL: '' }).subscriptions).toEqual([]);
  });

  it('reads the global settings from service.ini, the environment first', () => {
    const file = ini({
      'webhooks.timeout': '2s',
      'webhooks.max_attempts': '5',
      'webhooks.retry_delays': '1s, 1m',
      'webhooks.dispatch': 'off',
      'events.retention': '1d',
      'events.dead_retention': '2d',
    });
    expect(webhookSettings(file, {})).toMatchObject({
      timeout: 2 * SECOND,
      maxAttempts: 5,
      retryDelays: [SECOND, 60 * SECOND],
      dispatch: false,
      retention: DAY,
      deadRetention: 2 * DAY,
    });
    const env = {
      SVC_WEBHOOKS_TIMEOUT: '0.05s',
      SVC_WEBHOOKS_MAX_ATTEMPTS: '3',
      SVC_WEBHOOKS_RETRY_DELAYS: '250',
      SVC_WEBHOOKS_DISPATCH: 'true',
      SVC_EVENTS_RETENTION: '12h',
      SVC_EVENTS_DEAD_RETENTION: '90d',
    };
    expect(webhookSettings(file, env)).toMatchObject({
      timeout: 50,
      maxAttempts: 3,
      retryDelays: [250],
      dispatch: true,
      retention: 12 * HOUR,
      deadRetention: 90 * DAY,
    });
  });

  const sub = (more: Record<string, string>) => ({
    'webhooks.billing.url': 'https://billing.example/',
    'webhooks.billing.secret': SECRET,
    ...more,
  });
  const wrong: [string, Record<string, string>, NodeJS.ProcessEnv, string | RegExp][] = [
    [
      'a URL of another scheme',
      sub({ 'webhooks.billing.url': 'ftp://x' }),
      {},
      'webhooks.billing.url must be an http:// or https:// URL, not "ftp://x" (set in service.ini or SVC_WEBHOOKS_BILLING_URL)',
    ],
    ['no URL', sub({ 'webhooks.billing.url': 'billing.example' }), {}, /^webhooks.billing.url must be an http/],
    [
      'a URL of the environment, its password hidden',
      {},
      { SVC_WEBHOOKS_CRM_URL: 'htp://ann:hunter2@crm.example/', SVC_WEBHOOKS_CRM_SECRET: SECRET },
      'webhooks.crm.url must be an http:// or https:// URL, not "htp://ann:***@crm.example/" (set in service.ini or SVC_WEBHOOKS_CRM_URL)',
    ],
    [
      'an event type of three parts',
      sub({ 'webhooks.billing.events': 'Story.create,Story.create.x' }),
      {},
      'webhooks.billing.events must be event types separated by commas, each *, Model.* or Model.action (Story.create), not "Story.create.x" (set in service.ini or SVC_WEBHOOKS_BILLING_EVENTS)',
    ],
    ['an empty event type', sub({ 'webhooks.billing.events': 'Story.create,' }), {}, /not ""/],
    [
      'no secret',
      { 'webhooks.billing.url': 'https://billing.example/' },
      {},
      /^webhooks.billing.secret is required with webhooks.billing.url: .*whsec_.*\(set in service.ini or SVC_WEBHOOKS_BILLING_SECRET\)$/,
    ],
    [
      'a short secret',
      sub({ 'webhooks.billing.secret': 'fifteen-bytes!!' }),
      {},
      /^webhooks.billing.secret is too short \(15 bytes, at least 16\): use whsec_ and 24 or more random bytes in base64.*SVC_WEBHOOKS_BILLING_SECRET\)$/,
    ],
    ['a short whsec_ key', sub({ 'webhooks.billing.secret': 'whsec_AAAA' }), {}, /too short \(3 bytes/],
    [
      'a whsec_ secret that is not base64',
      sub({ 'webhooks.billing.secret': 'whsec_not*base64*at*all!' }),
      {},
      'webhooks.billing.secret: the part after whsec_ is not base64 (A-Z, a-z, 0-9, +, / and = at the end) (set in service.ini or SVC_WEBHOOKS_BILLING_SECRET)',
    ],
    ['an empty whsec_ key', sub({ 'webhooks.billing.secret': 'whsec_' }), {}, /the part after whsec_ is empty/],
    [
      'a name with a space',
      { 'webhooks.bad name.url': 'https://x.example/' },
      {},
      `webhooks.bad name.url: a webhook subscription's name may have only letters, digits, _ and -, not "bad name"`,
    ],
    [
      'a setting of no subscription',
      sub({ 'webhooks.billing.uri': 'x' }),
      {},
      /^webhooks.billing.uri is not a webhook setting/,
    ],
    [
      "a setting of the service's own written below a subscription's section",
      sub({ 'webhooks.billing.public_max_limit': '50' }),
      {},
      /^webhooks.billing.public_max_limit is not a webhook setting: public_max_limit is the service's own, and in service.ini a key below a \[webhooks.<name>\] header belongs to that section/,
    ],
    [
      'a global setting that does not exist',
      { 'webhooks.retries': '3' },
      {},
      /^webhooks.retries is not a webhook setting/,
    ],
    [
      'a variable without a name',
      {},
      { SVC_WEBHOOKS_URL: 'https://x.example/' },
      'SVC_WEBHOOKS_URL names no subscription: use SVC_WEBHOOKS_<NAME>_URL',
    ],
    [
      'two names for one set of variables',
      { 'webhooks.my-hook.url': 'https://a.example/', 'webhooks.my_hook.url': 'https://b.example/' },
      {},
      'webhooks.my-hook and webhooks.my_hook share the environment variables SVC_WEBHOOKS_MY_HOOK_*: rename one',
    ],
    [
      'a timeout without a number',
      { 'webhooks.timeout': 'soon' },
      {},
      'webhooks.timeout must be a duration from 1 ms to 1 h, such as 10s, 500ms, 2m, 7d (a bare number is milliseconds), not "soon" (set in service.ini or SVC_WEBHOOKS_TIMEOUT)',
    ],
    ['a timeout too long', {}, { SVC_WEBHOOKS_TIMEOUT: '2h' }, /^webhooks.timeout must be .* not "2h"/],
    ['a timeout of 0', { 'webhooks.timeout': '0' }, {}, /^webhooks.timeout must be/],
    [
      'no attempt',
      { 'webhooks.max_attempts': '0' },
      {},
      'webhooks.max_attempts must be a whole number from 1 to 100, not "0" (set in service.ini or SVC_WEBHOOKS_MAX_ATTEMPTS)',
    ],
    ['too many attempts', { 'webhooks.max_attempts': '101' }, {}, /from 1 to 100, not "101"/],
    ['a fraction of an attempt', {}, { SVC_WEBHOOKS_MAX_ATTEMPTS: '2.5' }, /from 1 to 100, not "2.5"/],
    [
      'a missing delay',
      { 'webhooks.retry_delays': '5s,,1m' },
      {},
      'webhooks.retry_delays must be durations of at most 30d separated by commas, such as 5s,30s,2m,1h (a bare number is milliseconds), not "5s,,1m" (set in service.ini or SVC_WEBHOOKS_RETRY_DELAYS)',
    ],
    ['a delay of weeks', { 'webhooks.retry_delays': '5s,40d' }, {}, /^webhooks.retry_delays must be/],
    [
      'a dispatch neither true nor false',
      { 'webhooks.dispatch': 'maybe' },
      {},
      'webhooks.dispatch must be true or false, not "maybe" (set in service.ini or SVC_WEBHOOKS_DISPATCH)',
    ],
    [
      'a negative retention',
      { 'events.retention': '-1d' },
      {},
      'events.retention must be a duration of 0 ms or more, such as 10s, 500ms, 2m, 7d (a bare number is milliseconds), not "-1d" (set in service.ini or SVC_EVENTS_RETENTION)',
    ],
    [
      'a retention in weeks',
      {},
      { SVC_EVENTS_DEAD_RETENTION: '4w' },
      /^events.dead_retention must be .*SVC_EVENTS_DEAD_RETENTION\)$/,
    ],
  ];
  it.each(wrong)('refuses %s', (_, settings, env, message) => {
    const error = configError(settings, env);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
  });

  it("refuses, with the service's models, a pattern that names no model or action of it", () => {
    const catalog = eventCatalog(['Recipe', 'Rating', 'User'], 'User');
    const refused = (events: string) => {
      try {
        webhookSettings(ini(sub({ 'webhooks.billing.events': events })), {}, catalog);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      return 'taken';
    };
    expect(refused('Recipie.*')).toBe(
      'webhooks.billing.events: "Recipie.*" names no model of this service (did you mean `Recipe`?) (set in service.ini or SVC_WEBHOOKS_BILLING_EVENTS)',
    );
    expect(refused('Recipe.create, Comment.*')).toBe(
      'webhooks.billing.events: "Comment.*" names no model of this service (its models: Recipe, Rating, User) (set in service.ini or SVC_WEBHOOKS_BILLING_EVENTS)',
    );
    expect(refused('Recipe.created')).toMatch(
      /^webhooks.billing.events: "Recipe.created" names no action \(did you mean `create`\?\)/,
    );
    expect(refused('Recipe.Create')).toMatch(
      /^webhooks.billing.events: "Recipe.Create" names no action \(did you mean `create`\?\)/,
    );
    expect(refused('*, Recipe.*, Rating.delete, User.register')).toBe('taken');
    // Users register as User: a Recipe's registration would never come.
    expect(refused('Recipe.register')).toBe(
      'webhooks.billing.events: "Recipe.register" names no event: users register as User, not Recipe (set in service.ini or SVC_WEBHOOKS_BILLING_EVENTS)',
    );
    expect(
      (() => {
        try {
          webhookSettings(ini(sub({ 'webhooks.billing.events': 'User.register' })), {}, eventCatalog(['User']));
          return 'taken';
        } catch (error) {
          return (error as Error).message;
        }
      })(),
    ).toMatch(
      /"User.register" names no event: users register as no model \(auth is off, or auth.registration = false\)/,
    );
    // Read without the models (a tool that has none), a well-formed pattern is taken as it is.
    expect(webhookSettings(ini(sub({ 'webhooks.billing.events': 'Recipie.*' })), {}).subscriptions[0]!.events).toEqual([
      'Recipie.*',
    ]);
  });

  it('never repeats a secret in a message', () => {
    const error = configError(sub({ 'webhooks.billing.secret': 'short-secret' }));
    expect(error.message).toMatch(/too short/);
    expect(error.message).not.toContain('short-secret');
  });
});

describe('durations', () => {
  it.each([
    ['500', 500],
    ['500ms', 500],
    ['10s', 10 * SECOND],
    ['0.05s', 50],
    ['.5m', 30 * SECOND],
    ['2h', 2 * HOUR],
    ['1.5 h', 1.5 * HOUR],
    ['7d', 7 * DAY],
    ['10S', 10 * SECOND],
    ['0', 0],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 's', '-1s', '1w', '1e3', '1,5s', '10 seconds', '1.s'])('refuses "%s"', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('event patterns', () => {
  it.each([
    [['*'], 'Story.create', true],
    [['Story.*'], 'Story.delete', true],
    [['Story.*'], 'StoryLine.create', false],
    [['Story.create'], 'Story.create', true],
    [['Story.create'], 'Story.update', false],
    [['story.create'], 'Story.create', false],
    [['User.register', 'Story.*'], 'Story.update', true],
    [['User.register', 'Story.*'], 'User.create', false],
    [[], 'Story.create', false],
  ] as const)('%j matches %s: %s', (patterns, type, matches) => {
    expect(matchesEvent(patterns, type)).toBe(matches);
  });
});

describe('Standard Webhooks signatures', () => {
  // The test vector of the specification's reference libraries: standard-webhooks/standard-webhooks,
  // libraries/javascript/src/webhook.test.ts, "sign function works" (the same in its other libraries).
  const vector = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: 1614265330,
    body: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };
  const at = vector.timestamp * 1000;
  const headers = (more: Record<string, string> = {}) => ({
    'webhook-id': vector.id,
    'webhook-timestamp': String(vector.timestamp),
    'webhook-signature': vector.signature,
    ...more,
  });

  it('signs the reference vector as the reference libraries do', () => {
    expect(sign(signingKey(vector.secret), vector.id, vector.timestamp, vector.body)).toBe(vector.signature);
  });

  it('verifies it, also among other signatures', () => {
    expect(verify(vector.secret, headers(), vector.body, at)).toBe(true);
    const several = `v1,bm9wZQ== v2,${vector.signature.slice(3)} ${vector.signature}`;
    expect(verify(vector.secret, headers({ 'webhook-signature': several }), vector.body, at)).toBe(true);
  });

  it('refuses a changed body, id, timestamp or signature, or another secret', () => {
    expect(verify(vector.secret, headers(), '{"test": 2432232315}', at)).toBe(false);
    expect(verify(vector.secret, headers({ 'webhook-id': 'msg_other' }), vector.body, at)).toBe(false);
    expect(verify(vector.secret, headers({ 'webhook-timestamp': '1614265331' }), vector.body, at)).toBe(false);
    expect(verify(vector.secret, headers({ 'webhook-signature': 'v1,bm9wZQ==' }), vector.body, at)).toBe(false);
    expect(verify(vector.secret, headers({ 'webhook-signature': vector.signature.slice(0, 8) }), vector.body, at)).toBe(
      false,
    );
    expect(verify('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', headers(), vector.body, at)).toBe(false);
  });

  it('refuses a timestamp older or newer than the tolerance, and missing headers', () => {
    expect(verify(vector.secret, headers(), vector.body, at + 299 * SECOND)).toBe(true);
    expect(verify(vector.secret, headers(), vector.body, at + 301 * SECOND)).toBe(false);
    expect(verify(vector.secret, headers(), vector.body, at - 301 * SECOND)).toBe(false);
    expect(verify(vector.secret, headers(), vector.body, at + 3000 * SECOND, 3600)).toBe(true);
    expect(verify(vector.secret, headers({ 'webhook-timestamp': 'hello' }), vector.body, at)).toBe(false);
    const { 'webhook-id': _, ...noId } = headers();
    expect(verify(vector.secret, noId, vector.body, at)).toBe(false);
  });

  it('takes a whsec_ secret as base64 and any other as its UTF-8 bytes', () => {
    const bytes = Buffer.from('0123456789abcdef0123456789abcdef');
    expect(signingKey(`whsec_${bytes.toString('base64')}`)).toEqual(bytes);
    expect(signingKey('plain text secret ü')).toEqual(Buffer.from('plain text secret ü', 'utf8'));
    // The same text with and without whsec_ are different keys.
    const raw = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(verify(raw, headers(), vector.body, at)).toBe(false);
    const signed = webhookHeaders(signingKey(raw), vector.id, vector.body, at);
    expect(verify(raw, signed, vector.body, at)).toBe(true);
    expect(verify(vector.secret, signed, vector.body, at)).toBe(false);
    expect(() => signingKey('whsec_a*b')).toThrow(/not base64/);
    expect(() => signingKey('whsec_A')).toThrow(/not base64/);
  });

  it('makes the headers of an attempt: its id, the time in seconds, the signature', () => {
    const now = 1700000000999;
    const sent = webhookHeaders(signingKey(SECRET), 'evt_1', '{"a":1}', now);
    expect(sent).toEqual({
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': sign(signingKey(SECRET), 'evt_1', 1700000000, '{"a":1}'),
    });
    expect(verify(SECRET, sent, '{"a":1}', now)).toBe(true);
  });
});

describe('the retry schedule', () => {
  const defaults = { maxAttempts: 12, retryDelays: DEFAULT_RETRY_DELAYS };
  const now = 1_700_000_000_000;

  it('tries again within 5 s after the first failure, and not at once', () => {
    for (const r of [0, 0.5, 0.999999]) {
      const at = nextAttemptAt(defaults, 1, now, undefined, () => r)!;
      expect(at - now).toBeLessThanOrEqual(5 * SECOND);
      expect(at - now).toBeGreaterThanOrEqual(2.5 * SECOND);
    }
  });

  it('spreads the default attempts over about a day', () => {
    const total = DEFAULT_RETRY_DELAYS.reduce((a, b) => a + b, 0);
    expect(Math.abs(total - DAY) / DAY).toBeLessThanOrEqual(0.2);
    // Each wait is longer than the one before.
    expect([...DEFAULT_RETRY_DELAYS].sort((a, b) => a - b)).toEqual(DEFAULT_RETRY_DELAYS);
  });

  it('gives up after max_attempts failures', () => {
    expect(nextAttemptAt(defaults, 11, now)).not.toBeNull();
    expect(nextAttemptAt(defaults, 12, now)).toBeNull();
    expect(nextAttemptAt({ maxAttempts: 1, retryDelays: [SECOND] }, 1, now)).toBeNull();
  });

  it('waits between half and all of the delay of that failure, the last one repeating', () => {
    const settings = { maxAttempts: 100, retryDelays: [SECOND, 10 * SECOND] };
    expect(nextAttemptAt(settings, 1, now, undefined, () => 0)).toBe(now + 500);
    expect(nextAttemptAt(settings, 1, now, undefined, () => 1)).toBe(now + SECOND);
    expect(nextAttemptAt(settings, 2, now, undefined, () => 1)).toBe(now + 10 * SECOND);
    expect(nextAttemptAt(settings, 50, now, undefined, () => 0)).toBe(now + 5 * SECOND);
  });

  it('waits as long as Retry-After asks when that is longer, at most a day', () => {
    const settings = { maxAttempts: 5, retryDelays: [10 * SECOND] };
    expect(nextAttemptAt(settings, 1, now, 60 * SECOND, () => 1)).toBe(now + 60 * SECOND);
    expect(nextAttemptAt(settings, 1, now, SECOND, () => 1)).toBe(now + 10 * SECOND);
    expect(nextAttemptAt(settings, 1, now, 30 * DAY, () => 1)).toBe(now + MAX_RETRY_AFTER);
    expect(MAX_RETRY_AFTER).toBe(DAY);
    expect(nextAttemptAt(settings, 5, now, SECOND)).toBeNull();
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('120', now)).toBe(120 * SECOND);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs(new Date(now + 90 * SECOND).toUTCString(), now)).toBe(90 * SECOND);
    expect(retryAfterMs(new Date(now - 90 * SECOND).toUTCString(), now)).toBe(0);
    for (const header of [undefined, '', 'soon', '-5', '1.5', 'Fri, 99 Foo 2024'])
      expect(retryAfterMs(header, now)).toBeUndefined();
  });
});

describe('sending one attempt', () => {
  interface Received {
    readonly url: string;
    readonly method: string;
    readonly headers: http.IncomingHttpHeaders;
    readonly body: string;
  }
  type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;
  const servers: http.Server[] = [];

  /** A server on 127.0.0.1 that records every request and lets `handler` answer it. */
  async function serve(handler: Handler): Promise<{
    url: string;
    received: Received[];
    connections: () => number;
    close: () => Promise<void>;
  }> {
    const received: Received[] = [];
    let connections = 0;
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const { url = '', method = '', headers } = request;
        received.push({ url, method, headers, body: Buffer.concat(chunks).toString() });
        handler(request, response);
      });
    });
    server.on('connection', () => connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
    return { url: `http://127.0.0.1:${port}`, received, connections: () => connections, close };
  }

  const subscription = (url: string): Subscription => ({ name: 'test', url, events: ['*'], key: signingKey(SECRET) });
  const body = JSON.stringify({ id: 'evt_1', type: 'Story.create', data: { pk: '1', object: { title: 'a' } } });

  afterEach(() => {
    closeAgents();
    for (const server of servers.splice(0)) server.close();
  });
  afterAll(() => closeAgents());

  it('POSTs the body with headers that verify accepts; a 2xx is ok', async () => {
    const server = await serve((_, response) => response.writeHead(204).end());
    const now = Date.now();
    const outcome = await sendWebhook(subscription(`${server.url}/hooks?x=1`), 'evt_1', body, 5000, now);
    expect(outcome).toEqual({ ok: true, status: 204 });
    const [request] = server.received;
    expect(request).toMatchObject({ url: '/hooks?x=1', method: 'POST', body });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now / 1000)),
    });
    expect(verify(SECRET, request!.headers, request!.body)).toBe(true);
    expect(verify(SECRET, request!.headers, `${request!.body} `)).toBe(false);
  });

  it('sends the user and password of the URL as Basic authentication', async () => {
    const server = await serve((_, response) => response.end());
    const url = server.url.replace('//', '//ann:s%40cret@');
    expect(await sendWebhook(subscription(url), 'evt_1', body, 5000)).toEqual({ ok: true, status: 200 });
    expect(server.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('ann:s@cret').toString('base64')}`);
  });

  it('reports another status with the start of a text body', async () => {
    const server = await serve((request, response) => {
      const long = request.url === '/long';
      response.writeHead(500, { 'content-type': 'text/plain' }).end(long ? 'x'.repeat(5000) : 'database\n  is down');
    });
    expect(await sendWebhook(subscription(server.url), 'evt_1', body, 5000)).toEqual({
      ok: false,
      status: 500,
      error: 'HTTP 500: database is down',
    });
    const long = (await sendWebhook(subscription(`${server.url}/long`), 'evt_1', body, 5000)) as { error: string };
    expect(long.error).toBe(`HTTP 500: ${'x'.repeat(200)}`);
  });

  it('leaves out a body that is not text', async () => {
    const server = await serve((_, response) =>
      response.writeHead(400, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2, 255])),
    );
    expect(await sendWebhook(subscription(server.url), 'evt_1', body, 5000)).toEqual({
      ok: false,
      status: 400,
      error: 'HTTP 400',
    });
  });

  it('passes on the Retry-After of a 429 or 503, not of a 500', async () => {
    const server = await serve((request, response) => {
      const status = Number(request.url!.slice(1));
      const after = status === 503 ? new Date(Date.now() + 120_000).toUTCString() : '30';
      response.writeHead(status, { 'retry-after': after }).end();
    });
    expect(await sendWebhook(subscription(`${server.url}/429`), 'evt_1', body, 5000)).toEqual({
      ok: false,
      status: 429,
      error: 'HTTP 429',
      retryAfter: 30_000,
    });
    const unavailable = (await sendWebhook(subscription(`${server.url}/503`), 'evt_1', body, 5000)) as {
      retryAfter: number;
    };
    expect(unavailable.retryAfter).toBeGreaterThan(100_000);
    expect(unavailable.retryAfter).toBeLessThanOrEqual(120_000);
    expect(await sendWebhook(subscription(`${server.url}/500`), 'evt_1', body, 5000)).not.toHaveProperty('retryAfter');
  });

  it('gives up on a receiver that never answers after the timeout', async () => {
    const server = await serve(() => undefined);
    const start = Date.now();
    const outcome = await sendWebhook(subscription(server.url), 'evt_1', body, 200);
    expect(outcome).toEqual({ ok: false, status: null, error: 'timed out after 200 ms' });
    expect(Date.now() - start).toBeLessThan(2000);
  });

  it('reports a refused connection', async () => {
    const server = await serve(() => undefined);
    await server.close();
    const outcome = await sendWebhook(subscription(server.url), 'evt_1', body, 5000);
    expect(outcome).toEqual({ ok: false, status: null, error: `connection refused by ${server.url.slice(7)}` });
  });

  it('reports a host that does not exist, and never throws', async () => {
    const outcome = await sendWebhook(subscription('http://no-such-host.invalid/'), 'evt_1', body, 5000);
    expect(outcome).toMatchObject({ ok: false, status: null });
    expect((outcome as { error: string }).error).toMatch(/no-such-host\.invalid/);
    expect(await sendWebhook(subscription('http://[::1/'), 'evt_1', body, 5000)).toMatchObject({ ok: false });
  });

  it('does not follow a redirect: it is a failure', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/old') response.writeHead(302, { location: '/new' }).end();
      else response.end();
    });
    const outcome = await sendWebhook(subscription(`${server.url}/old`), 'evt_1', body, 5000);
    expect(outcome).toEqual({
      ok: false,
      status: 302,
      error: 'HTTP 302: a redirect to /new, not followed (set the final URL)',
    });
    expect(server.received.map((r) => r.url)).toEqual(['/old']);
  });

  it('does not read an endless response body, 2xx or not', async () => {
    let written = 0;
    const server = await serve((request, response) => {
      response.writeHead(request.url === '/fail' ? 500 : 200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const more = (): void => {
        while (!response.destroyed && response.write(chunk)) written += chunk.length;
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    const start = Date.now();
    expect(await sendWebhook(subscription(server.url), 'evt_1', body, 3000)).toEqual({ ok: true, status: 200 });
    const failed = (await sendWebhook(subscription(`${server.url}/fail`), 'evt_1', body, 3000)) as { error: string };
    expect(failed.error).toBe(`HTTP 500: ${'y'.repeat(200)}`);
    expect(Date.now() - start).toBeLessThan(2500);
    expect(written).toBeLessThan(100 * 1024 * 1024);
  });

  it('keeps the connection open for the next attempt', async () => {
    const server = await serve((_, response) => response.end('ok'));
    for (let i = 0; i < 10; i++)
      expect((await sendWebhook(subscription(server.url), `evt_${i}`, body, 5000)).ok).toBe(true);
    expect(server.connections()).toBe(1);
  });

  it('sends again, once, on a fresh connection when a kept-alive one was closed under it', async () => {
    // The receiver drops every connection on its second request, as a server whose keep-alive
    // timeout ran out just as the request arrived.
    const server = await serve((request, response) => {
      const socket = request.socket as typeof request.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served === 2) socket.destroy();
      else response.end('ok');
    });
    expect(await sendWebhook(subscription(server.url), 'evt_1', body, 5000)).toEqual({ ok: true, status: 200 });
    expect(await sendWebhook(subscription(server.url), 'evt_2', body, 5000)).toEqual({ ok: true, status: 200 });
    expect(server.received.map((r) => r.headers['webhook-id'])).toEqual(['evt_1', 'evt_2', 'evt_2']);
    expect(server.connections()).toBe(2);
  });

  it('does not send again when a new connection is reset', async () => {
    const server = await serve((request) => request.socket.destroy());
    const outcome = await sendWebhook(subscription(server.url), 'evt_1', body, 5000);
    expect(outcome).toEqual({ ok: false, status: null, error: `connection reset by ${server.url.slice(7)}` });
    expect(server.received).toHaveLength(1);
  });

  it('sends thousands of attempts a second to a local receiver', async () => {
    const server = await serve((_, response) => response.end('ok'));
    const total = 2000;
    const outcomes: Outcome[] = [];
    let next = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < total) {
          const n = next++;
          outcomes.push(await sendWebhook(subscription(server.url), `evt_${n}`, body, 5000));
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    console.log(`${total} webhook attempts in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)}/s`);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(total);
    expect(server.received).toHaveLength(total);
    expect(server.connections()).toBeLessThanOrEqual(32);
  });
});
