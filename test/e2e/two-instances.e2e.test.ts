/**
 * Two instances of one service on one database (issue 16), on PostgreSQL, one SQLite file and
 * MongoDB (svcgen's test server, or MONGO_URL): concurrent writes through both stay consistent — a
 * unique value is taken once, changes of different fields of one object both land, every
 * acknowledged create is there, and two bulk changes of one batch leave it all one or all the
 * other. The login throttle is shared.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, testDatabase, type TestDatabase } from '../support/databases.js';
import { apiClient, type Api } from '../support/http.js';
import { builtProject, openProjectDatabase } from '../support/project.js';
import { startService, type RunningService } from '../support/server.js';

const BASE = '/api/v2';

interface ThrottleDatabase {
  repository(model: string): {
    count(args: object): Promise<number>;
    countInWindows(fields: unknown, counters: unknown[], now: Date): Promise<unknown>;
  };
  close(): Promise<void>;
}
interface Budget {
  limit: number;
  windowMs: number;
}
interface Guesser {
  address: string;
  device: string | null;
}
type ThrottleClass = new (
  db: ThrottleDatabase,
  model: string,
  now: () => number,
  perClient?: Budget,
  perAccount?: Budget,
) => {
  attempt(account: string, login: string, guesser: Guesser): Promise<boolean>;
  succeeded(account: string, login: string, guesser: Guesser): Promise<void>;
  readonly purging: Promise<void>;
};

/** The fields of the login brake's counts (AuthLoginFailure). */
const FIELDS = { count: 'failures', ends: 'window_ends' };

/** A client at `address` the account never logged in from. */
const stranger = (address: string): Guesser => ({ address, device: null });

describe.each(ENGINES)('two instances on one %s database', (engine) => {
  let database: TestDatabase;
  const services: RunningService[] = [];
  let a: Api;
  let b: Api;

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-two-instances');
    database = await testDatabase(engine, dir, 'two_instances');
    // One after the other: the first creates the schema, the second finds it migrated.
    for (let i = 0; i < 2; i++) services.push(await startService(dir, database.env, BASE));
    [a, b] = services.map((s) => apiClient(s.origin, BASE)) as [Api, Api];
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await database?.drop();
  });

  const author = (api: Api, name: string, extra: Record<string, unknown> = {}) =>
    api('POST', '/authors', { name, email: `${name}@example.com`, ...extra });

  it('a unique value is taken once: 20 registrations of one email through both, one 201 and 19 409s', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b)('POST', '/authors', { name: `same ${i}`, email: 'same@example.com' }),
      ),
    );
    const statuses = replies.map((r) => r.status).sort((a, b) => a - b);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });

  it('changes of different fields of one object through both instances both land, for 25 objects at once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 25; i++) ids.push((await author(a, `fields-${i}`, { karma: 0 })).body.id);
    await Promise.all(
      ids.flatMap((id) => [
        a('PATCH', `/authors/${id}`, { bio: `bio ${id}` }),
        b('PATCH', `/authors/${id}`, { karma: id }),
      ]),
    );
    for (const id of ids)
      expect((await b('GET', `/authors/${id}`)).body).toMatchObject({ bio: `bio ${id}`, karma: id });
  });

  it('every create acknowledged by either instance is there, each with its own key', async () => {
    const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => author(i % 2 ? a : b, `many-${i}`)));
    expect(replies.every((r) => r.status === 201)).toBe(true);
    const ids = replies.map((r) => r.body.id);
    expect(new Set(ids).size).toBe(60);
    const listed = (await a('GET', '/authors?name__startswith=many-&_limit=100&_fields=id')).body.data.map(
      (o: { id: number }) => o.id,
    );
    expect(listed.sort((x: number, y: number) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  it('two bulk changes of one batch at once leave it all one value or all the other', async () => {
    for (let i = 0; i < 30; i++) await author(a, `batch-${i}`, { karma: 0 });
    for (let round = 1; round <= 5; round++) {
      const [one, two] = await Promise.all([
        a('PATCH', '/authors?name__startswith=batch-', { karma: round * 10 + 1 }),
        b('PATCH', '/authors?name__startswith=batch-', { karma: round * 10 + 2 }),
      ]);
      expect([one.status, two.status]).toEqual([200, 200]);
      const karmas = new Set(
        (await b('GET', '/authors?name__startswith=batch-&_limit=100&_fields=karma')).body.data.map(
          (o: { karma: number }) => o.karma,
        ),
      );
      expect(karmas.size, `round ${round}: ${[...karmas].join(', ')}`).toBe(1);
    }
  });
});

/**
 * The brute-force brake counts failed logins in the database (issue 16): failures through either
 * instance add up, the lockout holds on both, and a rotating X-Forwarded-For (not believed:
 * `http.trust_proxy` is off) does not make a new client.
 */
describe.each(ENGINES)('the login throttle of two instances on one %s database', (engine) => {
  let database: TestDatabase;
  const services: RunningService[] = [];
  let a: Api;
  let b: Api;
  const AUTH = {
    SVC_AUTH: 'true',
    SVC_SYSTEM_USER: 'root',
    SVC_SYSTEM_PASSWORD: 'root-password',
    SVC_SYSTEM_EMAIL: 'root@example.com',
  };

  beforeAll(async () => {
    const dir = await builtProject('blog', 'e2e-two-instances');
    database = await testDatabase(engine, dir, 'two_instances_throttle');
    for (let i = 0; i < 2; i++) services.push(await startService(dir, { ...database.env, ...AUTH }, BASE));
    [a, b] = services.map((s) => apiClient(s.origin, BASE)) as [Api, Api];
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await service.stop();
    await database?.drop();
  });

  const token = (api: Api, login: string, password: string, forwardedFor: string) =>
    api('POST', '/auth/token', { login, password }, { headers: { 'x-forwarded-for': forwardedFor } });

  it('five failures through either instance lock the login out on both, whatever X-Forwarded-For says', async () => {
    for (let i = 0; i < 5; i++)
      expect((await token(i % 2 ? a : b, 'root', 'wrong-password', `203.0.113.${i}`)).status).toBe(401);
    for (const api of [a, b]) {
      const locked = await token(api, 'root', 'root-password', '198.51.100.1');
      expect(locked.status).toBe(429);
      expect(locked.body).toMatchObject({ status_code: 429 });
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The count is per login: another one from the same address is not locked out.
    expect((await token(a, 'nobody', 'wrong-password', '203.0.113.1')).status).toBe(401);
  });

  it('a restart forgets nothing: a new instance still refuses the locked-out login', async () => {
    const dir = await builtProject('blog', 'e2e-two-instances');
    const third = await startService(dir, { ...database.env, ...AUTH }, BASE);
    try {
      expect((await token(apiClient(third.origin, BASE), 'root', 'root-password', '192.0.2.1')).status).toBe(429);
    } finally {
      await third.stop();
    }
  });

  it('starts counting again once the window is over, and deletes the rows of windows that are over', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      let now = Date.parse('2030-01-01T00:00:00Z');
      // Only the count per address here (a login that names no account has no other): the strangers' is the next test's.
      const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now);
      for (let i = 0; i < 5; i++) await throttle.attempt('login:mallory', 'login:mallory', stranger('192.0.2.7'));
      await expect(throttle.attempt('login:mallory', 'login:mallory', stranger('192.0.2.7'))).rejects.toMatchObject({
        statusCode: 429,
      });
      now += 61_000;
      await expect(throttle.attempt('login:mallory', 'login:mallory', stranger('192.0.2.7'))).resolves.toBe(true);
      // A guess at another login clears the rows whose window ended a window ago or more (Mallory's,
      // and the HTTP test's): left are its own four (its count per address, and three that make up
      // for the counts a login that names no account has not).
      now += 121_000;
      await throttle.attempt('login:eve', 'login:eve', stranger('192.0.2.8'));
      await throttle.purging;
      expect(await db.repository('AuthLoginFailure').count({})).toBe(4);
    });
  });

  it('counts the guesses at an account from every address it never logged in from together, and a device it did apart', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      let now = Date.parse('2031-01-01T00:00:00Z');
      const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now, undefined, {
        limit: 3,
        windowMs: 3_600_000,
      });
      const [account, username, email] = ['user:ada', 'login:ada', 'login:ada@example.com'];
      // Three strangers, each from an address of its own, by either login: the account's three checks.
      expect(await throttle.attempt(account, username, stranger('192.0.2.21'))).toBe(true);
      expect(await throttle.attempt(account, email, stranger('192.0.2.22'))).toBe(true);
      expect(await throttle.attempt(account, username, stranger('192.0.2.23'))).toBe(true);
      // A fourth, from yet another address: the login as written had two, so no 429, but no check.
      expect(await throttle.attempt(account, email, stranger('192.0.2.24'))).toBe(false);
      // Its username had two too; a third is a check no more, and a fourth its 429.
      expect(await throttle.attempt(account, username, stranger('192.0.2.25'))).toBe(false);
      await expect(throttle.attempt(account, username, stranger('192.0.2.26'))).rejects.toMatchObject({
        statusCode: 429,
        message: expect.stringMatching(/from a device you have logged in from/),
      });
      // The owner's device, from any address, has checks of its own, and a session of the account too.
      const device = { address: '198.51.100.9', device: 'cookie:owners-laptop' };
      expect(await throttle.attempt(account, username, device)).toBe(true);
      expect(await throttle.attempt(account, email, { address: '198.51.100.10', device: 'session' })).toBe(true);
      // Its successful login clears its own counts, not the strangers'.
      await throttle.succeeded(account, username, device);
      expect(await throttle.attempt(account, email, stranger('192.0.2.27'))).toBe(false);
      // The window over, strangers get their checks back.
      now += 3_600_001;
      expect(await throttle.attempt(account, email, stranger('192.0.2.28'))).toBe(true);
    });
  });

  it('counts a login across addresses alike whichever account it names: no oracle of whose an email is', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      const now = Date.parse('2033-01-01T00:00:00Z');
      const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now, undefined, {
        limit: 5,
        windowMs: 3_600_000,
      });
      // Five guesses at a username from one address use up its account there; five more at an email
      // from the same address: whether the email is that account's or another's, it is counted
      // across addresses the same, and a guess at it from elsewhere answers the same.
      const answers = [];
      for (const [n, emailAccount] of [
        [1, 'user:ben1'],
        [2, 'user:eve2'],
      ] as const) {
        const [account, username, email] = [`user:ben${n}`, `login:ben${n}`, `login:ben${n}@example.com`];
        for (let i = 0; i < 5; i++) await throttle.attempt(account, username, stranger('192.0.2.60'));
        for (let i = 0; i < 5; i++) await throttle.attempt(emailAccount, email, stranger('192.0.2.60'));
        answers.push(
          await throttle
            .attempt(emailAccount, email, stranger('192.0.2.61'))
            .catch((e: { statusCode: number }) => e.statusCode),
        );
      }
      expect(answers).toEqual([429, 429]);
    });
  });

  it('adds one row for each made-up login, and forgets thousands of rows long over in steps of their own', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      let now = Date.parse('2035-01-01T00:00:00Z');
      const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now);
      const rows = () => db.repository('AuthLoginFailure').count({});
      await throttle.attempt('login:first', 'login:first', stranger('192.0.2.100'));
      await throttle.purging;
      const before = await rows();
      for (let i = 0; i < 10; i++)
        await throttle.attempt(`login:made-up-${i}`, `login:made-up-${i}`, stranger('192.0.2.100'));
      expect(await rows()).toBe(before + 10);
      // 1,200 windows that a flood left, over a minute ago: one guess starts their forgetting.
      const planted = Array.from({ length: 1200 }, (_, i) => ({ key: `flood-${i}`, ends: new Date(now + 1000) }));
      await db.repository('AuthLoginFailure').countInWindows(FIELDS, planted, new Date(now));
      now += 180_000;
      await throttle.attempt('login:last', 'login:last', stranger('192.0.2.101'));
      await throttle.purging;
      expect(await rows()).toBe(4);
    });
  });

  it('never reads the counts that only even the work: guesses at made-up logins lock no one else out', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      const now = Date.parse('2036-01-01T00:00:00Z');
      const shared = '192.0.2.120';
      // With strangers counted (a ticket API) and without (an x-ApiKey API's default).
      for (const perAccount of [undefined, { limit: 0, windowMs: 86_400_000 }]) {
        const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now, undefined, perAccount);
        for (let i = 0; i < 6; i++)
          expect(await throttle.attempt(`login:junk${i}`, `login:junk${i}`, stranger(shared))).toBe(true);
        // Others behind the address, with their device cookie or without, logging in again and again.
        for (let i = 0; i < 8; i++) {
          for (const guesser of [stranger(shared), { address: shared, device: 'cookie:owners-laptop' }]) {
            expect(await throttle.attempt('user:owner', 'login:owner', guesser), `login ${i}`).toBe(true);
            await throttle.succeeded('user:owner', 'login:owner', guesser);
          }
        }
      }
    });
  });

  it('does the same work whoever guesses and whatever the login names: time tells neither', async () => {
    await withThrottle(async (db, LoginThrottle) => {
      const now = Date.parse('2034-01-01T00:00:00Z');
      const steps: number[][] = [];
      const throttle = new LoginThrottle(countingSteps(db, steps), 'AuthLoginFailure', () => now);
      const work = async (account: string, login: string, guesser: { address: string; device: string | null }) => {
        steps.length = 0;
        await throttle.attempt(account, login, guesser);
        return steps.map((counters) => counters.length);
      };
      const address = '192.0.2.90';
      const seen = [
        await work('login:nobody', 'login:nobody', stranger(address)),
        await work('login:nobody@example.com', 'login:nobody@example.com', stranger(address)),
        await work('user:ada', 'login:ada', stranger(address)),
        await work('user:ada', 'login:ada@example.com', stranger(address)),
        await work('user:ada', 'login:ada', { address, device: 'cookie:adas-laptop' }),
        await work('user:ada', 'login:ada', { address, device: 'session' }),
      ];
      expect(seen).toEqual(Array(seen.length).fill([2, 2]));
    });
  });

  it("takes a stranger's successful login off the strangers' count: only failures use it up", async () => {
    await withThrottle(async (db, LoginThrottle) => {
      const now = Date.parse('2032-01-01T00:00:00Z');
      const throttle = new LoginThrottle(db, 'AuthLoginFailure', () => now, undefined, {
        limit: 2,
        windowMs: 3_600_000,
      });
      const [account, login] = ['user:bea', 'login:bea'];
      // The owner, by a script that keeps no cookie, logs in again and again from new addresses.
      for (let i = 0; i < 5; i++) {
        const from = stranger(`192.0.2.${40 + i}`);
        expect(await throttle.attempt(account, login, from), `login ${i}`).toBe(true);
        await throttle.succeeded(account, login, from);
      }
      expect(await throttle.attempt(account, login, stranger('192.0.2.50'))).toBe(true);
      expect(await throttle.attempt(account, login, stranger('192.0.2.51'))).toBe(true);
      await expect(throttle.attempt(account, login, stranger('192.0.2.52'))).rejects.toMatchObject({ statusCode: 429 });
    });
  });

  /** `db`, where each step of counts (`countInWindows`) adds its counters to `steps`. */
  function countingSteps(db: ThrottleDatabase, steps: unknown[][]): ThrottleDatabase {
    const repository = (model: string) =>
      new Proxy(db.repository(model), {
        get(target, name) {
          const value = Reflect.get(target, name, target) as unknown;
          if (name === 'countInWindows')
            return (fields: unknown, counters: unknown[], now: Date) => {
              steps.push(counters);
              return target.countInWindows(fields, counters, now);
            };
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    return new Proxy(db, {
      get: (target, name) => (name === 'repository' ? repository : (Reflect.get(target, name, target) as unknown)),
    });
  }

  /** The login brake of a built blog project, over its database. */
  async function withThrottle(
    use: (db: ThrottleDatabase, LoginThrottle: ThrottleClass) => Promise<void>,
  ): Promise<void> {
    const dir = await builtProject('blog', 'e2e-two-instances');
    const db = await openProjectDatabase<ThrottleDatabase>(dir, database.env);
    const { LoginThrottle } = (await import(pathToFileURL(join(dir, 'dist/lib/auth/throttle.js')).href)) as {
      LoginThrottle: ThrottleClass;
    };
    try {
      await use(db, LoginThrottle);
    } finally {
      await db.close();
    }
  }
});
