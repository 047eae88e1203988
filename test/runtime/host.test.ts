/**
 * What the service takes as a Host (runtime/src/lib/http/serialize.ts `isHost`): it becomes part of
 * `_self` and `Location` in answers, so only a host name, an IPv4 address or a bracketed IPv6 one,
 * with a port that exists, may pass; the rest is refused with 400 before any route runs.
 */
import { describe, expect, it } from 'vitest';
import { isHost } from '../../runtime/src/lib/http/serialize.js';

describe('a Host', () => {
  it('is a host name, an address or a bracketed IPv6 address, with a port', () => {
    for (const host of [
      'a',
      'localhost:80',
      'api.example.com:8080',
      'a.com.',
      'my_host.local',
      '127.0.0.1',
      '[::1]:80',
      `${'x'.repeat(63)}.com`,
      `${`${'a'.repeat(62)}.`.repeat(4)}a`,
      'a:65535',
    ])
      expect(isHost(host), host).toBe(true);
  });

  it('is nothing else: no empty label, no label longer than 63, no name longer than 253, no port above 65535', () => {
    for (const host of [
      '',
      'a..b',
      '.a',
      '-a',
      'a-',
      'a:',
      'a:65536',
      'evil.com:99999',
      'evil.example/x?',
      'a b',
      'x'.repeat(64),
      `${`${'a'.repeat(62)}.`.repeat(4)}ab`,
      `${'a.'.repeat(200)}a`,
    ])
      expect(isHost(host), host.slice(0, 40)).toBe(false);
  });

  it('is judged again for each Host that differs from the last one found valid', () => {
    // isHost remembers the last valid host: a valid one just before must not let another pass.
    const sequence: [string | undefined, boolean][] = [
      [undefined, false],
      ['api.example.com', true],
      ['api.example.com', true],
      ['api.example.com:99999', false],
      ['api.example.com.', true],
      [undefined, false],
      ['', false],
      ['api.example.com.', true],
      ['evil.example/x?', false],
    ];
    for (const [host, valid] of sequence) expect(isHost(host), String(host)).toBe(valid);
  });
});
