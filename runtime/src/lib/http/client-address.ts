/**
 * The client a per-address count (the login brake, the rate limits, password-hashing slots, open
 * feeds) counts against: `request.ip` (which follows `http.trust_proxy`), with an IPv6 address cut
 * to its /64 network. One host is usually given a whole /64, so counting single IPv6 addresses
 * would give it 2^64 budgets of guesses; an IPv4 address (also one mapped into IPv6) counts alone.
 */
import type { FastifyRequest } from 'fastify';
import { isIPv6 } from 'node:net';

/** The client `request` counts against. */
export function clientOf(request: FastifyRequest): string {
  return clientNetwork(request.ip);
}

/** `ip`, or its /64 network (`2001:db8:0:1::/64`) for an IPv6 address. */
export function clientNetwork(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone (`fe80::1%eth0`) names an interface, not a host
  if (!isIPv6(address)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.split('::');
  const written = head === '' ? [] : head.split(':');
  // Groups left of `::` come first; where fewer than four are written, `::` stands for zeros.
  const groups = tail === undefined ? written : [...written, '0', '0', '0', '0'];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
