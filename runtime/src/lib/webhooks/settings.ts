/**
 * The webhook settings of service.ini (`[webhooks]`, `[webhooks.<name>]`, `events.retention`…)
 * and of the environment. A subscription may live in the environment alone
 * (`SVC_WEBHOOKS_<NAME>_URL`, `_EVENTS`, `_SECRET`): a deployment adds a receiver, or its secret,
 * without writing it into a file. Every wrong value stops the start with a message that names the
 * setting and its environment variable; a secret is never repeated in it.
 */
import { ConfigError, envName, STANDARD_KEYS } from '../config.js';
import { didYouMean } from '../suggest.js';
import { signingKey } from './signature.js';
import type { Subscription, WebhookSettings } from './types.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const UNITS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY };

/** The wait after the 1st…11th failure: the 12 attempts of a delivery span about a day. */
export const DEFAULT_RETRY_DELAYS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  6 * HOUR,
  10 * HOUR,
];

/** The longest wait `webhooks.retry_delays` accepts: a longer one is surely a typo. */
const MAX_RETRY_DELAY = 30 * DAY;
const MIN_SECRET_BYTES = 16;
const SECRET_HINT =
  `use whsec_ and 24 or more random bytes in base64, such as the output of ` +
  `node -e "console.log('whsec_' + require('crypto').randomBytes(24).toString('base64'))"`;
const NAME = /^[A-Za-z0-9_-]+$/;
const FIELDS = ['url', 'events', 'secret'] as const;
type Field = (typeof FIELDS)[number];
export const GLOBAL_KEYS = new Set([
  'webhooks.timeout',
  'webhooks.max_attempts',
  'webhooks.retry_delays',
  'webhooks.dispatch',
]);

/**
 * The webhook settings, from `Config.settings` and the environment (read here too: a variable
 * may name a subscription that service.ini does not have). Throws ConfigError on a wrong value.
 */
export function webhookSettings(
  settings: ReadonlyMap<string, string>,
  env: NodeJS.ProcessEnv = process.env,
  /** The events the service sends: a pattern that names none (a typo, a model dropped since) stops the start. */
  catalog?: EventCatalog,
): WebhookSettings {
  const read = (key: string): string => (env[envName(key)] ?? settings.get(key) ?? '').trim();
  return {
    subscriptions: [...drafts(settings, env).values()].flatMap((draft) => subscription(draft, catalog)),
    timeout: duration(read, 'webhooks.timeout', 10 * SECOND, 1, HOUR),
    maxAttempts: wholeNumber(read, 'webhooks.max_attempts', 12, 1, 100),
    retryDelays: retryDelays(read, 'webhooks.retry_delays'),
    dispatch: boolean(read, 'webhooks.dispatch', true),
    retention: duration(read, 'events.retention', 7 * DAY, 0),
    deadRetention: duration(read, 'events.dead_retention', 30 * DAY, 0),
  };
}

/** A subscription's settings as written, before they are checked. */
interface Draft {
  readonly name: string;
  readonly values: Partial<Record<Field, string>>;
}

/** Why `key` is refused; a setting of the service's own written below a `[webhooks.<name>]` header is said to be that. */
function notAWebhookSetting(key: string): string {
  const own = STANDARD_KEYS.find((standard) => key.endsWith(`.${standard}`) && key !== `webhooks.${standard}`);
  if (own !== undefined)
    return `${key} is not a webhook setting: ${own} is the service's own, and in service.ini a key below a [webhooks.<name>] header belongs to that section; write it above the first section`;
  return `${key} is not a webhook setting: a subscription has webhooks.<name>.url, .events and .secret; the others are ${[...GLOBAL_KEYS].join(', ')}`;
}

/**
 * The subscriptions that service.ini and the environment name, by the name the environment
 * gives them: `webhooks.My-Hook` is `SVC_WEBHOOKS_MY_HOOK_*`, so a variable of that name sets it.
 */
function drafts(settings: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): Map<string, Draft> {
  const found = new Map<string, Draft>();
  for (const [key, value] of settings) {
    if (!key.startsWith('webhooks.') || GLOBAL_KEYS.has(key)) continue;
    const match = /^webhooks\.(.+)\.(url|events|secret)$/.exec(key);
    if (!match) throw new ConfigError(notAWebhookSetting(key));
    draftFor(found, checkedName(match[1]!, key), key).values[match[2] as Field] = value;
  }
  for (const [variable, value] of Object.entries(env)) {
    if (value === undefined || !variable.startsWith('SVC_WEBHOOKS_')) continue;
    if (/^SVC_WEBHOOKS_(URL|EVENTS|SECRET)$/.test(variable))
      throw new ConfigError(`${variable} names no subscription: use SVC_WEBHOOKS_<NAME>_${variable.slice(13)}`);
    const match = /^SVC_WEBHOOKS_(.+)_(URL|EVENTS|SECRET)$/.exec(variable);
    if (!match) continue;
    const field = match[2]!.toLowerCase() as Field;
    draftFor(found, checkedName(match[1]!.toLowerCase(), variable), variable).values[field] = value;
  }
  return found;
}

function draftFor(found: Map<string, Draft>, name: string, source: string): Draft {
  const id = name.toLowerCase().replace(/-/g, '_');
  const draft = found.get(id);
  if (draft && draft.name !== name && !source.startsWith('SVC_'))
    throw new ConfigError(
      `webhooks.${draft.name} and webhooks.${name} share the environment variables ${envName(`webhooks.${name}`)}_*: rename one`,
    );
  if (draft) return draft;
  const created: Draft = { name, values: {} };
  found.set(id, created);
  return created;
}

function checkedName(name: string, source: string): string {
  if (NAME.test(name)) return name;
  throw new ConfigError(
    `${source}: a webhook subscription's name may have only letters, digits, _ and -, not "${name}"`,
  );
}

/** The subscription, or none when it has no URL (an empty `SVC_WEBHOOKS_<NAME>_URL` turns it off). */
function subscription(draft: Draft, catalog: EventCatalog | undefined): Subscription[] {
  const where = (field: Field) => `webhooks.${draft.name}.${field}`;
  const url = draft.values.url?.trim() ?? '';
  if (url === '') return [];
  return [
    {
      name: draft.name,
      url: checkedUrl(where('url'), url),
      events: events(where('events'), draft.values.events?.trim() ?? '', catalog),
      key: key(where('secret'), draft.values.secret?.trim() ?? '', where('url')),
    },
  ];
}

function checkedUrl(key: string, text: string): string {
  let valid = /^https?:\/\//i.test(text);
  try {
    new URL(text);
  } catch {
    valid = false;
  }
  if (valid) return text;
  throw new ConfigError(`${key} must be an http:// or https:// URL, not "${redact(text)}" ${from(key)}`);
}

function events(key: string, text: string, catalog: EventCatalog | undefined): string[] {
  if (text === '') return ['*'];
  const patterns = text.split(',').map((p) => p.trim());
  const wrong = patterns.find((p) => !/^(\*|[A-Za-z_][A-Za-z0-9_]*\.(\*|[A-Za-z_][A-Za-z0-9_]*))$/.test(p));
  if (wrong !== undefined)
    throw new ConfigError(
      `${key} must be event types separated by commas, each *, Model.* or Model.action (Story.create), not "${wrong}" ${from(key)}`,
    );
  // A subscription to no event this service can send would wait for ever, saying nothing.
  for (const pattern of catalog ? patterns : []) {
    const problem = eventTypeProblem(pattern, catalog!);
    if (problem) throw new ConfigError(`${key}: "${pattern}" ${problem} ${from(key)}`);
  }
  return patterns;
}

/** The actions of every model's events (outbox/types.ts `EventAction`), but `register`. */
const EVENT_ACTIONS = ['create', 'update', 'replace', 'delete'];

/** The events a service sends: the actions of each model's (`eventCatalog`). */
export type EventCatalog = ReadonlyMap<string, readonly string[]>;

/**
 * The events a service of `models` sends: every model's creates, updates, replaces and deletes,
 * and the registrations of `registering`'s objects (the user model, with auth on).
 */
export function eventCatalog(models: readonly string[], registering?: string): EventCatalog {
  return new Map(
    models.map((model) => [model, model === registering ? [...EVENT_ACTIONS, 'register'] : EVENT_ACTIONS]),
  );
}

/**
 * Why `type` (of a subscription or a feed's `?types=`) names no event of `catalog`, or undefined:
 * not `*`, `<Model>.*` or `<Model>.<action>`, or naming no model, or no action of that model's
 * (a `register` of a model no one registers as would wait for ever).
 */
export function eventTypeProblem(type: string, catalog: EventCatalog): string | undefined {
  if (type === '*') return undefined;
  const parts = /^([A-Za-z_]\w*)\.(\*|[A-Za-z_]\w*)$/.exec(type);
  if (!parts) return 'is not an event type (<Model>.<action>), <Model>.* or *';
  const [model, action] = [parts[1]!, parts[2]!];
  const actions = catalog.get(model);
  if (!actions) {
    const models = [...catalog.keys()];
    return `names no model of this service (${didYouMean(model, models) ?? `its models: ${models.join(', ')}`})`;
  }
  if (action === '*' || actions.includes(action)) return undefined;
  if (action === 'register')
    return `names no event: users register as ${[...catalog].find(([, a]) => a.includes('register'))?.[0] ?? 'no model (auth is off, or auth.registration = false)'}, not ${model}`;
  return `names no action (${didYouMean(action, actions) ?? actions.join(', ')})`;
}

/** The signing key of the secret; its text never appears in a message. */
function key(settingKey: string, secret: string, urlKey: string): Buffer {
  if (secret === '')
    throw new ConfigError(
      `${settingKey} is required with ${urlKey}: receivers check the signature with it; ${SECRET_HINT} ${from(settingKey)}`,
    );
  let bytes: Buffer;
  try {
    bytes = signingKey(secret);
  } catch (error) {
    throw new ConfigError(`${settingKey}: ${(error as Error).message} ${from(settingKey)}`);
  }
  if (bytes.length < MIN_SECRET_BYTES)
    throw new ConfigError(
      `${settingKey} is too short (${bytes.length} bytes, at least ${MIN_SECRET_BYTES}): ${SECRET_HINT} ${from(settingKey)}`,
    );
  return bytes;
}

/**
 * Milliseconds of a duration: a number and a unit (`500ms`, `10s`, `0.5m`, `2h`, `7d`), or a bare
 * number of milliseconds, as every other timeout of service.ini. Undefined when it is not one.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[(match[2] ?? 'ms').toLowerCase()]!);
}

type Read = (key: string) => string;

function duration(read: Read, key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const text = read(key);
  if (text === '') return fallback;
  const ms = parseDuration(text);
  if (ms !== undefined && ms >= min && ms <= max) return ms;
  const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} ms or more` : `from ${min} ms to ${max / HOUR} h`;
  throw new ConfigError(
    `${key} must be a duration ${range}, such as 10s, 500ms, 2m, 7d (a bare number is milliseconds), not "${text}" ${from(key)}`,
  );
}

function retryDelays(read: Read, key: string): number[] {
  const text = read(key);
  if (text === '') return [...DEFAULT_RETRY_DELAYS];
  const delays = text.split(',').map((part) => parseDuration(part));
  if (delays.every((d): d is number => d !== undefined && d <= MAX_RETRY_DELAY)) return delays;
  throw new ConfigError(
    `${key} must be durations of at most 30d separated by commas, such as 5s,30s,2m,1h (a bare number is milliseconds), not "${text}" ${from(key)}`,
  );
}

function wholeNumber(read: Read, key: string, fallback: number, min: number, max: number): number {
  const text = read(key);
  if (text === '') return fallback;
  const n = Number(text);
  if (Number.isInteger(n) && n >= min && n <= max) return n;
  throw new ConfigError(`${key} must be a whole number from ${min} to ${max}, not "${text}" ${from(key)}`);
}

function boolean(read: Read, key: string, fallback: boolean): boolean {
  const text = read(key).toLowerCase();
  if (text === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  throw new ConfigError(`${key} must be true or false, not "${text}" ${from(key)}`);
}

/**
 * Whether an event type (`Story.create`) is one a subscription wants: `*` is every type,
 * `Story.*` every action on Story, else the type itself.
 */
export function matchesEvent(patterns: readonly string[], type: string): boolean {
  return patterns.some(
    (pattern) =>
      pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))),
  );
}

function from(key: string): string {
  return `(set in service.ini or ${envName(key)})`;
}

/** A password in a receiver's URL (`https://user:pass@host`) stays out of the logs. */
function redact(text: string): string {
  return text.replace(/(\/\/[^:/@\s]+:)[^@\s]*@/g, '$1***@');
}
