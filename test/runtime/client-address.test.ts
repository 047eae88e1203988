/**
 * The client a per-address count counts against (runtime/src/lib/http/client-address.ts): an IPv6
 * address by its /64, however it is written, so that one host cannot take a new budget of login
 * guesses with each of its 2^64 addresses; an IPv4 address alone, mapped into IPv6 or not.
 */
import { describe, expect, it } from 'vitest';
import { clientNetwork } from '../../runtime/src/lib/http/client-address.js';

describe('clientNetwork', () => {
  it('keeps an IPv4 address, also one mapped into IPv6, in either form', () => {
    expect(clientNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(clientNetwork('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(clientNetwork('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('leaves out a port, as some proxies write it into X-Forwarded-For', () => {
    expect(clientNetwork('10.5.0.1:4001')).toBe('10.5.0.1');
    expect(clientNetwork('[2001:db8:0:1::1]:443')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('[2001:db8:0:1::2]')).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('[::ffff:10.5.0.1]:80')).toBe('10.5.0.1');
  });

  it('cuts an IPv6 address to its /64, however it is written', () => {
    const same = [
      '2001:db8:0:1::1',
      '2001:db8:0:1::2',
      '2001:0db8:0000:0001:ffff:ffff:ffff:ffff',
      '2001:DB8:0:1:aaaa::',
      '2001:db8:0:1:1:2:3.4.5.6',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:0:1::9'),
    ];
    for (const ip of same) expect(clientNetwork(ip), ip).toBe('2001:db8:0:1::/64');
    expect(clientNetwork('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(clientNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientNetwork('::1')).toBe('0:0:0:0::/64');
    // An IPv4 client in IPv6 (NAT64, SIIT, IPv4-compatible) is its IPv4 address: each its own client.
    expect(clientNetwork('64:ff9b::198.51.100.7')).toBe('198.51.100.7');
    expect(clientNetwork('64:ff9b::c633:6408')).toBe('198.51.100.8');
    expect(clientNetwork('64:ff9b:1::198.51.100.9')).toBe('198.51.100.9');
    expect(clientNetwork('::ffff:0:198.51.100.10')).toBe('198.51.100.10');
    expect(clientNetwork('::198.51.100.11')).toBe('198.51.100.11');
    expect(clientNetwork('::')).toBe('0:0:0:0::/64');
    expect(clientNetwork('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is no address as it is', () => {
    expect(clientNetwork('')).toBe('');
    expect(clientNetwork('unknown')).toBe('unknown');
  });
});
