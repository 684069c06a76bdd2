/**
 * The middleware's default key: the client's address, an IPv6 one as its network, since one
 * IPv6 host usually owns a whole /64 and could otherwise take a new address per request. The
 * rules are the clients' shared ones (clients/spec/keys.json).
 */

import { isIPv4, isIPv6 } from "node:net";

/** The prefix an IPv6 address is cut to by default. */
export const DEFAULT_IPV6_SUBNET = 64;

/** `ipv6Subnet` as given, once it is an integer from 1 to 128. */
export function checkSubnet(ipv6Subnet: unknown): number {
  if (typeof ipv6Subnet !== "number") throw new TypeError(`ipv6Subnet must be an integer, not ${typeof ipv6Subnet}`);
  if (!Number.isInteger(ipv6Subnet) || ipv6Subnet < 1 || ipv6Subnet > 128) {
    throw new RangeError(`ipv6Subnet must be an integer from 1 to 128, not ${ipv6Subnet}`);
  }
  return ipv6Subnet;
}

/** The key for a client's address: an IPv4 address (or an IPv4-mapped IPv6 one) itself; an
 * IPv6 address its network of `ipv6Subnet` bits in CIDR form (`2001:db8:1:2::/64`), the whole
 * address for 128; anything that is not an IP address, unchanged. */
export function ipKey(address: string, ipv6Subnet: number = DEFAULT_IPV6_SUBNET): string {
  checkSubnet(ipv6Subnet);
  const bare = address.split("%")[0]; // a zone (fe80::1%eth0) names no other host
  if (isIPv4(address) || !isIPv6(bare)) return address;
  const groups = hextets(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  }
  if (ipv6Subnet === 128) return compressed(groups);
  const masked = groups.map((g, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Subnet - 16 * i));
    return g & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${compressed(masked)}/${ipv6Subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` and a dotted IPv4 tail expanded). */
function hextets(address: string): number[] {
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const parse = (part: string | undefined): number[] =>
    !part ? [] : part.split(":").flatMap((g) => (g.includes(".") ? fromIPv4(g) : [parseInt(g, 16)]));
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function fromIPv4(dotted: string): number[] {
  const [a, b, c, d] = dotted.split(".").map(Number) as [number, number, number, number];
  return [(a << 8) | b, (c << 8) | d];
}

/** RFC 5952's text: lowercase, no leading zeros, the longest run of two or more zero groups
 * (the first of equal runs) as `::`. */
function compressed(groups: number[]): string {
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const text = (part: number[]): string => part.map((g) => g.toString(16)).join(":");
  if (best.start < 0) return text(groups);
  return `${text(groups.slice(0, best.start))}::${text(groups.slice(best.start + best.length))}`;
}

/** A middleware's default key function: `remoteAddress(request)` as `ipKey` makes it. */
export function addressKey<Req>(remoteAddress: (request: Req) => string | undefined, ipv6Subnet: number): (request: Req) => string | undefined {
  checkSubnet(ipv6Subnet);
  return (request) => {
    const address = remoteAddress(request);
    return address === undefined ? undefined : ipKey(address, ipv6Subnet);
  };
}
