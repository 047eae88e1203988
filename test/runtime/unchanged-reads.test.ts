/**
 * What identification keeps between requests (runtime/src/lib/auth/unchanged-reads.ts): a value is
 * given again only while the user and credential tables' version is the one it was read at; a
 * write while it was being read keeps it from being kept; a refusal is never kept; each caller
 * gets a copy of its own; without a version (none at all, or none now) nothing is kept.
 * test/runtime/table-versions.test.ts checks the version on SQLite, test/e2e/api-key.e2e.test.ts
 * the service with changes behind its back.
 */
import { describe, expect, it } from 'vitest';
import { UnchangedReads } from '../../runtime/src/lib/auth/unchanged-reads.js';

function counted<T>(value: () => T | undefined) {
  let loads = 0;
  return {
    load: () => {
      loads++;
      return Promise.resolve(value());
    },
    loads: () => loads,
  };
}

describe('unchanged reads', () => {
  it('give the value again while the version stays, and read again once it moved', async () => {
    let version = '1';
    const reads = new UnchangedReads(() => version);
    const user = counted(() => ({ name: 'ann', groups: ['admin'] }));
    expect(await reads.read(() => 'k', user.load)).toEqual({ name: 'ann', groups: ['admin'] });
    expect(await reads.read(() => 'k', user.load)).toEqual({ name: 'ann', groups: ['admin'] });
    expect(user.loads()).toBe(1);
    version = '2';
    await reads.read(() => 'k', user.load);
    expect(user.loads()).toBe(2);
  });

  it('give every caller a copy: changing one changes nothing kept', async () => {
    const reads = new UnchangedReads(() => '1');
    const user = counted(() => ({ name: 'ann', groups: ['member'], settings: { theme: 'dark' } }));
    const first = await reads.read(() => 'k', user.load);
    first!.groups.push('admin');
    first!.settings.theme = 'light';
    const second = await reads.read(() => 'k', user.load);
    second!.groups.push('admin');
    expect(await reads.read(() => 'k', user.load)).toEqual({
      name: 'ann',
      groups: ['member'],
      settings: { theme: 'dark' },
    });
    expect(user.loads()).toBe(1);
  });

  it("copy a JSON object's `__proto__` key as a key, never as the copy's prototype", async () => {
    const reads = new UnchangedReads(() => '1');
    const row = JSON.parse('{"name": "ann", "settings": {"__proto__": {"role": "admin"}}}') as {
      settings: Record<string, unknown>;
    };
    const user = counted(() => row);
    await reads.read(() => 'k', user.load);
    const kept = (await reads.read(() => 'k', user.load))!;
    expect(user.loads()).toBe(1);
    expect(kept.settings['role']).toBeUndefined();
    expect(Object.getPrototypeOf(kept.settings)).toBe(Object.prototype);
    expect(Object.keys(kept.settings)).toEqual(['__proto__']);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(row));
  });

  it('keep nothing read while a commit happened, nor a refusal, nor anything without a version', async () => {
    let version = '1';
    const reads = new UnchangedReads(() => version);
    const during = counted(() => {
      version += '+';
      return { name: 'ann' };
    });
    await reads.read(() => 'k', during.load);
    await reads.read(() => 'k', during.load);
    expect(during.loads()).toBe(2);

    const refused = counted(() => undefined);
    await reads.read(() => 'nobody', refused.load);
    await reads.read(() => 'nobody', refused.load);
    expect(refused.loads()).toBe(2);

    const unversioned = new UnchangedReads(undefined);
    const user = counted(() => ({ name: 'ann' }));
    // Nor is its key made (a token's digest): nothing will be looked up by it.
    let keysMade = 0;
    const key = () => {
      keysMade++;
      return 'k';
    };
    await unversioned.read(key, user.load);
    await unversioned.read(key, user.load);
    expect(user.loads()).toBe(2);
    expect(keysMade).toBe(0);
  });

  it('read again while there is no version now, and keep nothing read then', async () => {
    let version: string | undefined = '1';
    const reads = new UnchangedReads(() => version);
    const user = counted(() => ({ name: 'ann' }));
    await reads.read(() => 'k', user.load);
    version = undefined;
    await reads.read(() => 'k', user.load);
    await reads.read(() => 'k', user.load);
    expect(user.loads()).toBe(3);
    // The same version again (nothing was written meanwhile): what was kept at it.
    version = '1';
    await reads.read(() => 'k', user.load);
    expect(user.loads()).toBe(3);
    // Gone while it was read: not kept.
    version = '2';
    const vanishing = counted(() => {
      version = undefined;
      return { name: 'ann' };
    });
    await reads.read(() => 'k', vanishing.load);
    version = '2';
    await reads.read(() => 'k', user.load);
    expect(user.loads()).toBe(4);
  });
});
