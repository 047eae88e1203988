/**
 * The client a per-address count (the login brake, the rate limits, password-hashing slots, open
 * feeds) counts against: `request.ip` (which follows `http.trust_proxy`), with an IPv6 address cut
 * to its /64 network. One host is usually given a whole /64, so counting single IPv6 addresses
 * would give it 2^64 budgets of guesses; an IPv4 address (also one mapped into IPv6, in either
 * form) counts alone. A port, which some proxies write into X-Forwarded-For (`10.0.0.3:1234`,
 * `[2001:db8::1]:443`), is no part of the client: each source port would be a new one.
 */
import type { FastifyRequest } from 'fastify';
import { isIPv4, isIPv6 } from 'node:net';

/** The client `request` counts against. */
export function clientOf(request: FastifyRequest): string {
  return clientNetwork(request.ip);
}

/** `ip` without its port, or its /64 network (`2001:db8:0:1::/64`) for an IPv6 address. */
export function clientNetwork(ip: string): string {
  const address = withoutPort(ip).replace(/%.*$/, ''); // a zone (`fe80::1%eth0`) names an interface
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return ip;
  const groups = groupsOf(address);
  // An IPv4 client written in IPv6, however written: each is its own client, not one /64 for all.
  if (embedsIPv4(groups)) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/**
 * The prefixes whose last 32 bits are an IPv4 client: mapped (`::ffff:0:0/96`), translated (SIIT,
 * `::ffff:0:0:0/96`), IPv4-compatible (`::/96`) and NAT64's (`64:ff9b::/96`, and `64:ff9b:1::/96` of the
 * local-use /48): behind NAT64 every IPv4 client would otherwise be one /64.
 */
function embedsIPv4(groups: readonly number[]): boolean {
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return true;
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return true;
  if (zeros(0, 6) && (groups[6] !== 0 || groups[7]! > 1)) return true; // not :: nor ::1
  // Of 64:ff9b:1::/48, its /96s only: a shorter NAT64 prefix puts the IPv4 bits elsewhere (RFC 6052).
  if (groups[0] === 0x64 && groups[1] === 0xff9b) return zeros(2, 6) || (groups[2] === 1 && zeros(3, 6));
  return false;
}

/** `a.b.c.d:port` and `[v6]:port` (or `[v6]`) without the port and brackets; anything else as it is. */
function withoutPort(ip: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(ip);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(ip);
  return v4 ? v4[1]! : ip;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` and a dotted IPv4 tail written out. */
function groupsOf(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const tail = dotted
    ? [(Number(dotted[1]) << 8) | Number(dotted[2]), (Number(dotted[3]) << 8) | Number(dotted[4])]
    : [];
  if (dotted) {
    text = text.slice(0, -dotted[0].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const [head, rest] = text.split('::');
  const left = parse(head);
  if (rest === undefined) return [...left, ...tail];
  const right = [...parse(rest), ...tail];
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
