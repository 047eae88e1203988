/**
 * service.ini, with every key overridable from the environment: `SVC_<KEY>` with
 * dots and dashes as underscores, upper-cased (`database.url` → `SVC_DATABASE_URL`), and `PORT`.
 * Wrong values stop the service at start-up with a message that names the key.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ini from 'ini';
import { closest } from './suggest.js';
import { readIniLines, unmatchableOrigins } from './config-lines.js';

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly engine: 'svc_sqla' | 'svc_mongodb';
  readonly databaseUrl: string;
  readonly mongodbUrl: string;
  /** Milliseconds: waiting for a database connection, and for one statement or command, before a 503. */
  readonly databaseTimeouts: DatabaseTimeouts;
  readonly auth: boolean;
  /** Whether service.ini or SVC_AUTH says `auth` at all (off by default is not off on purpose: auth/off.ts). */
  readonly authChosen: boolean;
  readonly authTimeout: number;
  readonly authReissueTime: number;
  /** `auth.cookie_host_prefix`: the ticket cookie is `__Host-<name>`, always Secure (HTTPS only). */
  readonly authCookieHostPrefix: boolean;
  /** `auth.login_attempts` per account and client address in `auth.login_window` seconds: more get 429. */
  readonly loginAttempts: { readonly limit: number; readonly windowSeconds: number };
  /**
   * `auth.account_attempts` per account in `auth.account_window` seconds from devices it has not
   * logged in from, all together (0: no such count; null: not set, which is 100 where the API has
   * device cookies, an x-Ticket, and 0 where it has none: auth/index.ts).
   */
  readonly accountAttempts: { readonly limit: number | null; readonly windowSeconds: number };
  /**
   * `auth.require_current_password`: a user who changes their own password sends the current one
   * (`current_password`), so that a session taken over cannot lock its owner out.
   */
  readonly requireCurrentPassword: boolean;
  /**
   * `auth.hide_refused`: an item the x-ACL refuses by the object itself, and that the caller may
   * not view, is a 404, as a missing one is (not a 401 or 403 that says it exists).
   */
  readonly hideRefused: boolean;
  /** `auth.registration`: whether anyone may register (`POST /auth/register`); false: users are made by admins. */
  readonly registration: boolean;
  readonly system: { readonly user: string; readonly password: string; readonly email: string } | null;
  readonly publicMaxLimit: number;
  readonly maxLimit: number;
  /** `max_offset`: the furthest a page may start (`_start`, or `_page` × `_limit`); deep offsets make the database skip rows one by one. */
  readonly maxOffset: number;
  /** `bulk_max`: the most objects one collection PATCH, PUT or DELETE may change. */
  readonly bulkMax: number;
  readonly bodyLimit: number;
  /** Milliseconds a client has to send a whole request (headers and body), and an idle connection is kept open. */
  readonly httpTimeouts: HttpTimeouts;
  /** `rate_limit.*`: requests per client (by `request.ip`) and window; 0 turns a limit off. */
  readonly rateLimit: RateLimits;
  /** `feed.max_per_user`, `feed.max_per_address`: change feeds one client may keep open at once. */
  readonly feedLimits: FeedLimits;
  /**
   * `http.trust_proxy`: which proxies in front may say, in X-Forwarded-*, the client's address
   * (the login throttle counts by it), protocol (Secure cookies, `_self` URLs) and host.
   */
  readonly trustProxy: TrustProxy;
  readonly cors: {
    readonly enable: boolean;
    readonly allowOrigins: readonly string[];
    readonly allowCredentials: boolean;
  };
  readonly logLevel: string;
  /** `docs.enable`: serve the browsable API reference at `{base}/docs`. */
  readonly docs: boolean;
  /** `search.language`: PostgreSQL's text search configuration for `q` (`simple`: no stemming, no stop words). */
  readonly searchLanguage: string;
  /** Every setting as text, by key (for settings that RAML names, such as the ticket secret). */
  readonly settings: ReadonlyMap<string, string>;
  /** Where service.ini was read from, for relative paths (the SQLite file). */
  readonly root: string;
  /** What the operator should hear at start-up: keys of service.ini that nothing reads (a typo, most likely). */
  readonly warnings: readonly string[];
}

export interface DatabaseTimeouts {
  readonly connect: number;
  readonly query: number;
}

/** `database.connect_timeout` and `database.query_timeout` when service.ini says nothing. */
export const DATABASE_TIMEOUTS: DatabaseTimeouts = { connect: 2000, query: 30000 };

export interface HttpTimeouts {
  readonly request: number;
  readonly keepAlive: number;
  /** Milliseconds a request may take from arrival to answer (handlers included) before a 503. */
  readonly handler: number;
}

export interface RateLimits {
  /** Requests that change something (POST, PUT, PATCH, DELETE) outside the auth routes. */
  readonly writes: number;
  /** Requests to the auth routes (login, register, logout, token). */
  readonly auth: number;
  /** Milliseconds over which both are counted. */
  readonly window: number;
}

export interface FeedLimits {
  /** Open feeds per logged-in user (0: no limit). */
  readonly perUser: number;
  /** Open feeds per client address (`request.ip`), logged in or not (0: no limit). */
  readonly perAddress: number;
}

/** No proxy, every proxy, the number of proxies in front, or their addresses (CIDR, `loopback`…). */
export type TrustProxy = boolean | number | readonly string[];

export class ConfigError extends Error {}

export interface ConfigSource {
  /** The service.ini to read (default: `SVC_CONFIG`, else ./service.ini, else `projectFile`). */
  readonly file?: string;
  /** The project's own service.ini, read when the working folder has none. */
  readonly projectFile?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Keys the service reads besides the standard ones (e.g. the ticket secret's name). */
  readonly extraKeys?: readonly string[];
  readonly defaults: { readonly mongodbUrl: string };
}

/** The service's own settings (service.ini lists each with its default). */
export const STANDARD_KEYS = [
  'host',
  'port',
  'engine',
  'database.url',
  'mongodb.url',
  'database.connect_timeout',
  'database.query_timeout',
  'auth',
  'auth.timeout',
  'auth.reissue_time',
  'auth.cookie_host_prefix',
  'auth.login_attempts',
  'auth.login_window',
  'auth.account_attempts',
  'auth.account_window',
  'auth.require_current_password',
  'auth.hide_refused',
  'auth.registration',
  'system.user',
  'system.password',
  'system.email',
  'public_max_limit',
  'max_limit',
  'max_offset',
  'bulk_max',
  'body_limit',
  'http.request_timeout',
  'http.keep_alive_timeout',
  'http.handler_timeout',
  'rate_limit.writes',
  'rate_limit.auth',
  'rate_limit.window',
  'feed.max_per_user',
  'feed.max_per_address',
  'http.trust_proxy',
  'cors.enable',
  'cors.allow_origins',
  'cors.allow_credentials',
  'log.level',
  'docs.enable',
  'search.language',
];

/**
 * `service.ini` in the working folder (one instance's settings beside another's), else the
 * project's own: a script run from another folder reads the service's database, where it once
 * made an empty one of its own there (a relative `sqlite:` path is the ini's folder's).
 */
function defaultFile(projectFile: string | undefined): string {
  const here = resolve('service.ini');
  return projectFile === undefined || existsSync(here) ? here : projectFile;
}

export function loadConfig(source: ConfigSource): Config {
  const env = source.env ?? process.env;
  const file = resolve(source.file ?? env['SVC_CONFIG'] ?? defaultFile(source.projectFile));
  const settings = new Map<string, string>();
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  // The settings some part of the service reads: a line may be named by one, an unread key is warned of.
  const known = new Set([...STANDARD_KEYS, ...(source.extraKeys ?? []), ...OTHER_KEYS]);
  const lines = readIniLines(file, text, (name) => known.has(name));
  if (lines.problem) throw new ConfigError(lines.problem);
  flatten(ini.parse(text), '', settings);
  const warnings = [
    ...lines.repeated,
    ...unreadKeys([...settings.keys()], known).map((key) => unreadKeyWarning(file, key)),
  ];
  for (const key of new Set([...STANDARD_KEYS, ...(source.extraKeys ?? []), ...settings.keys()])) {
    const value = env[envName(key)];
    if (value !== undefined) settings.set(key, value);
  }
  // What set a setting where it is not service.ini or its SVC_ variable: a message about it names that.
  const origins = new Map<string, string>();
  if (env['PORT'] !== undefined && env['PORT'] !== '') {
    settings.set('port', env['PORT']);
    origins.set('port', 'PORT');
  }
  const read = new Reader(settings, origins);
  const system = SYSTEM_KEYS.map((k) => settings.get(k));
  const config: Config = {
    host: read.text('host', '127.0.0.1'),
    port: read.integer('port', 3000, 0, 65535),
    engine: read.choice('engine', 'svc_sqla', ['svc_sqla', 'svc_mongodb']),
    databaseUrl: read.text('database.url', 'sqlite:./data/service.db'),
    mongodbUrl: read.text('mongodb.url', source.defaults.mongodbUrl),
    databaseTimeouts: {
      connect: read.integer('database.connect_timeout', DATABASE_TIMEOUTS.connect, 1),
      query: read.integer('database.query_timeout', DATABASE_TIMEOUTS.query, 1),
    },
    auth: read.boolean('auth', false),
    authChosen: read.given('auth'),
    authTimeout: read.integer('auth.timeout', 86400, 1),
    authReissueTime: read.integer('auth.reissue_time', 3600, 0),
    authCookieHostPrefix: read.boolean('auth.cookie_host_prefix', false),
    loginAttempts: {
      limit: read.integer('auth.login_attempts', 5, 1),
      windowSeconds: read.integer('auth.login_window', 60, 1),
    },
    accountAttempts: {
      limit: read.given('auth.account_attempts') ? read.integer('auth.account_attempts', 100, 0) : null,
      windowSeconds: read.integer('auth.account_window', 86400, 1),
    },
    requireCurrentPassword: read.boolean('auth.require_current_password', true),
    hideRefused: read.boolean('auth.hide_refused', false),
    registration: read.boolean('auth.registration', true),
    system: system.every((v) => v !== undefined && v !== '')
      ? { user: system[0]!, password: system[1]!, email: system[2]! }
      : null,
    publicMaxLimit: read.integer('public_max_limit', 100, 1),
    maxLimit: read.integer('max_limit', 1000, 1),
    maxOffset: read.integer('max_offset', 100000, 0),
    bulkMax: read.integer('bulk_max', 10000, 1),
    bodyLimit: read.integer('body_limit', 1048576, 1),
    httpTimeouts: {
      request: read.integer('http.request_timeout', 30000, 1),
      keepAlive: read.integer('http.keep_alive_timeout', 72000, 1),
      handler: read.integer('http.handler_timeout', 30000, 1),
    },
    // Writes are not limited unless set: a gateway in front usually limits already, and a limit
    // that is too low refuses honest clients behind one shared address. The auth routes are: one
    // address guessing passwords or registering in bulk must not keep everyone else from logging in.
    rateLimit: {
      writes: read.integer('rate_limit.writes', 0, 0),
      auth: read.integer('rate_limit.auth', 60, 0),
      window: read.integer('rate_limit.window', 60000, 1000),
    },
    // Each open feed holds a connection and is read on at every write. A browser keeps at most six
    // connections to one origin over HTTP/1.1; many clients may share an address (NAT).
    feedLimits: {
      perUser: read.integer('feed.max_per_user', 16, 0),
      perAddress: read.integer('feed.max_per_address', 256, 0),
    },
    trustProxy: read.trustProxy('http.trust_proxy'),
    cors: {
      enable: read.boolean('cors.enable', false),
      allowOrigins: read
        .text('cors.allow_origins', '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      allowCredentials: read.boolean('cors.allow_credentials', false),
    },
    logLevel: read.choice('log.level', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    docs: read.boolean('docs.enable', true),
    searchLanguage: read.identifier('search.language', 'simple'),
    settings,
    root: resolve(file, '..'),
    warnings,
  };
  if (config.engine === 'svc_mongodb' && !/^mongodb(\+srv)?:\/\//.test(config.mongodbUrl)) {
    throw new ConfigError(
      `mongodb.url must start with mongodb:// or mongodb+srv://, not "${redact(config.mongodbUrl)}" (set in service.ini or ${envName('mongodb.url')})`,
    );
  }
  // Set in part, it was no system user, and nothing said so: the service started without its admin.
  const unset = SYSTEM_KEYS.filter((_, i) => system[i] === undefined || system[i] === '');
  if (unset.length && unset.length < SYSTEM_KEYS.length) {
    throw new ConfigError(
      `the system user needs ${SYSTEM_KEYS.join(', ')}, or none of them: ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not set (in service.ini or ${unset.map(envName).join(', ')})`,
    );
  }
  const unmatchable = unmatchableOrigins(config.cors.allowOrigins);
  if (unmatchable.length) {
    throw new ConfigError(
      `cors.allow_origins can never match ${unmatchable.join(', ')}: a browser's Origin is compared with each whole`,
    );
  }
  if (config.cors.allowCredentials && config.cors.allowOrigins.includes('*')) {
    throw new ConfigError('cors.allow_origins cannot be * when cors.allow_credentials is true: list the origins');
  }
  // `Origin: null` is what a sandboxed iframe, a data: page or a file sends: anyone's page can be one.
  if (config.cors.allowCredentials && config.cors.allowOrigins.some((o) => o.toLowerCase() === 'null')) {
    throw new ConfigError(
      'cors.allow_origins cannot name null when cors.allow_credentials is true: any page can send Origin: null (a sandboxed iframe, a data: URL); list the origins',
    );
  }
  return config;
}

const SYSTEM_KEYS = ['system.user', 'system.password', 'system.email'] as const;

/**
 * Keys read by other parts of the service than this file: the webhooks' (lib/webhooks/settings.ts,
 * which names its own typos within `webhooks.`) and the outbox's retention.
 */
const OTHER_KEYS = ['events.retention', 'events.dead_retention'];

/**
 * The keys of service.ini that no part of the service reads: `auth_timeout` for `auth.timeout`
 * would otherwise leave the default in force without a word. The service's own code may read
 * settings of its own (`Config.settings`), so these are warnings, not errors.
 */
function unreadKeys(keys: readonly string[], known: ReadonlySet<string>): string[] {
  return keys.filter((key) => !known.has(key) && !key.startsWith('webhooks.'));
}

function unreadKeyWarning(file: string, key: string): string {
  const known = [...STANDARD_KEYS, ...OTHER_KEYS];
  // `auth_timeout`, `auth-timeout`: the dots written another way are a typo too, whatever their length.
  const dotted = key.replace(/[_-]/g, '.');
  const match = known.find((k) => k.replace(/[_-]/g, '.') === dotted) ?? closest(key, known);
  const hint = match ? `: did you mean ${match}?` : ' (only your own code could read it, from Config.settings)';
  return `${file} sets ${key}, which is not a setting of the service and changes nothing${hint}`;
}

export function envName(key: string): string {
  return `SVC_${key.replace(/[.-]/g, '_').toUpperCase()}`;
}

function flatten(value: Record<string, unknown>, prefix: string, out: Map<string, string>): void {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, name, out);
    else out.set(name, String(v));
  }
}

class Reader {
  constructor(
    readonly settings: ReadonlyMap<string, string>,
    readonly origins: ReadonlyMap<string, string> = new Map(),
  ) {}

  /** Where `key` is set, for a message about its value: `(set by PORT)`, or where it can be. */
  where(key: string): string {
    const origin = this.origins.get(key);
    return origin ? `(set by ${origin})` : `(set in service.ini or ${envName(key)})`;
  }

  text(key: string, fallback: string): string {
    return this.settings.get(key)?.trim() || fallback;
  }

  integer(key: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const text = this.settings.get(key)?.trim();
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new ConfigError(`${key} must be a whole number from ${min} to ${max}, not "${text}" ${this.where(key)}`);
    return n;
  }

  given(key: string): boolean {
    return (this.settings.get(key)?.trim() ?? '') !== '';
  }

  boolean(key: string, fallback: boolean): boolean {
    const text = this.settings.get(key)?.trim().toLowerCase();
    if (text === undefined || text === '') return fallback;
    if (['true', '1', 'yes', 'on'].includes(text)) return true;
    if (['false', '0', 'no', 'off'].includes(text)) return false;
    throw new ConfigError(`${key} must be true or false, not "${text}" ${this.where(key)}`);
  }

  trustProxy(key: string): TrustProxy {
    const text = this.settings.get(key)?.trim() ?? '';
    const lower = text.toLowerCase();
    if (['', 'false', '0', 'no', 'off'].includes(lower)) return false;
    if (['true', 'yes', 'on'].includes(lower)) return true;
    if (/^[1-9][0-9]?$/.test(text)) return Number(text);
    const addresses = text.split(',').map((s) => s.trim());
    const named = ['loopback', 'linklocal', 'uniquelocal'];
    if (addresses.every((a) => named.includes(a) || /^[0-9a-f.:]+(\/[0-9]{1,3})?$/i.test(a))) return addresses;
    throw new ConfigError(
      `${key} must be false, true, a number of proxies, or their addresses separated by commas (10.0.0.0/8, loopback), not "${text}" ${this.where(key)}`,
    );
  }

  /** A name the database knows (a PostgreSQL text search configuration): letters, digits and `_`. */
  identifier(key: string, fallback: string): string {
    const text = this.text(key, fallback);
    if (/^[a-z_][a-z0-9_]{0,62}$/.test(text)) return text;
    throw new ConfigError(
      `${key} must be a lower-case name of letters, digits and _ (such as simple or english), not "${text}" ${this.where(key)}`,
    );
  }

  choice<C extends string>(key: string, fallback: C, choices: readonly C[]): C {
    const text = this.settings.get(key)?.trim();
    if (text === undefined || text === '') return fallback;
    if ((choices as readonly string[]).includes(text)) return text as C;
    throw new ConfigError(`${key} must be one of ${choices.join(', ')}, not "${text}" ${this.where(key)}`);
  }
}

/** What to tell the operator when start-up fails: the setting to fix, without secrets. */
export function startupMessage(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const e = error as { code?: string; name?: string; message?: string; stack?: string; syscall?: string };
  const message = redact(e.message ?? String(error));
  if (e.syscall === 'listen') return listenProblem(error as ListenError);
  if (e.code && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EACCES|ENOENT|SQLITE_|28|3D)/.test(e.code))
    return `cannot open the database: ${message} (check database.url)`;
  // The driver's errors when the server cannot be reached, refuses the credentials, or the URL is wrong.
  if (e.name && /^Mongo(ServerSelection|Network|Parse|Authentication|Api)/.test(e.name))
    return `cannot open the database: ${message} (check mongodb.url)`;
  return e.stack ? redact(e.stack) : message;
}

interface ListenError {
  readonly code?: string;
  readonly address?: string;
  readonly port?: number;
  readonly message?: string;
}

/** Why the service cannot listen where it was told to: another program there, or a port it may not take. */
function listenProblem(e: ListenError): string {
  const where = `${e.address ?? 'the host'} port ${e.port ?? '?'}`;
  // The system's code stays in the line: what scripts and process managers look for (and search engines know).
  const change = `choose another with PORT, SVC_PORT or port in service.ini (host for the address) [${e.code ?? 'listen'}]`;
  if (e.code === 'EADDRINUSE') return `${where} is in use (another program, or this service started twice): ${change}`;
  if (e.code === 'EACCES')
    return `${where} is not this user's to listen on (ports below 1024 need privileges): ${change}`;
  if (e.code === 'EADDRNOTAVAIL') return `${e.address ?? 'the host'} is no address of this machine: ${change}`;
  return `cannot listen on ${where}: ${e.message ?? e.code ?? 'unknown error'}`;
}

/** Passwords in connection URLs never reach the logs. */
function redact(text: string): string {
  return text.replace(/(\/\/[^:/@\s]+:)[^@\s]*@/g, '$1***@');
}
