/** `authOffWarnings` and `isLoopback` (runtime/src/lib/auth/off.ts): an API with x-ACLs served with auth off. */
import { describe, expect, it } from 'vitest';
import { authOffWarnings, isLoopback } from '../../runtime/src/lib/auth/off.js';
import { loadConfig } from '../../runtime/src/lib/config.js';

const config = (env: Record<string, string>) =>
  loadConfig({ file: '/nonexistent/service.ini', env, defaults: { mongodbUrl: 'mongodb://127.0.0.1/x' } });

describe('a service with x-ACLs, auth off', () => {
  it('takes an address no other machine reaches for the developer’s own', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      'localhost',
      'LOCALHOST',
      'api.localhost',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ])
      expect(isLoopback(host), host).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.5',
      '192.168.1.2',
      'example.com',
      '::ffff:10.0.0.1',
      '128.0.0.1',
      '',
      '::2',
    ])
      expect(isLoopback(host), host).toBe(false);
  });

  it('refuses a public address unless auth = false is said, and warns wherever it serves', () => {
    expect(authOffWarnings(config({}))).toEqual([expect.stringMatching(/^auth is off: .*as an admin/)]);
    expect(() => authOffWarnings(config({ SVC_HOST: '0.0.0.0' }))).toThrow(/auth is off \(the default\)/);
    expect(() => authOffWarnings(config({ SVC_HOST: '0.0.0.0', SVC_AUTH: ' ' }))).toThrow(/auth is off/);
    expect(authOffWarnings(config({ SVC_HOST: '0.0.0.0', SVC_AUTH: 'false' }))).toHaveLength(1);
    expect(authOffWarnings(config({ SVC_HOST: '0.0.0.0', SVC_AUTH: 'off' }))).toHaveLength(1);
  });
});
