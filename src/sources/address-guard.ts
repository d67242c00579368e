/**
 * The SSRF guard: which addresses a URL fetch may connect to.
 *
 * Only public unicast addresses pass. Refused: loopback, private (RFC 1918,
 * IPv6 ULA), link-local, CGNAT, multicast, broadcast, documentation,
 * benchmarking, reserved and "this network" ranges, cloud metadata
 * endpoints, and IPv6 forms that carry a refused IPv4 address (mapped,
 * compatible, NAT64, 6to4). The check runs on the addresses DNS actually
 * returned, inside the connection's own lookup, so the address checked is
 * the address connected to (no time-of-check/time-of-use gap for a name that
 * answers differently the second time). IP literals never reach a lookup, so
 * `checkUrl` checks them; the WHATWG URL parser has already turned decimal,
 * octal, hex and short IPv4 forms into dotted quads by then.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';

import { AppError } from '../errors.js';

/** Returns why `address` is refused, or null when it may be reached. */
export type AddressPolicy = (address: string) => string | null;

interface Range4 {
  base: number;
  bits: number;
  reason: string;
}

const RANGES_V4: readonly Range4[] = [
  ['0.0.0.0', 8, '"this network" (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local / cloud metadata (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, '6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'reserved / broadcast (240.0.0.0/4)'],
  // Azure's wire server answers metadata-like requests on a public address.
  ['168.63.129.16', 32, 'cloud metadata (168.63.129.16)'],
].map(([ip, bits, reason]) => ({ base: parseIPv4(ip as string)!, bits: bits as number, reason: reason as string }));

/** Dotted-quad IPv4 to an unsigned 32-bit number; null if not exactly that form. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** IPv6 text (with an optional trailing dotted quad) to eight 16-bit groups; null if invalid. */
export function parseIPv6(text: string): number[] | null {
  if (text.includes('%')) return null; // zone ids only make sense for link-local, which is refused
  let head = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (lastColon >= 0 && text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (v4 === null) return null;
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  if (!left || !right) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 2) {
    if (given > 7) return null;
    return [...left, ...new Array<number>(8 - given).fill(0), ...right, ...tail];
  }
  if (given !== 8) return null;
  return [...left, ...tail];
}

function checkV4(value: number): string | null {
  for (const range of RANGES_V4) {
    const size = 2 ** (32 - range.bits);
    if (Math.floor(value / size) === Math.floor(range.base / size)) return range.reason;
  }
  return null;
}

function prefixMatches(groups: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function embeddedV4(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

function checkV6(g: number[]): string | null {
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified (::)';
  if (zeros(0, 7) && g[7] === 1) return 'loopback (::1)';
  // ::ffff:a.b.c.d and ::a.b.c.d carry an IPv4 address: judge that one.
  if (zeros(0, 5) && g[5] === 0xffff) {
    const reason = checkV4(embeddedV4(g[6]!, g[7]!));
    return reason === null ? null : `IPv4-mapped ${reason}`;
  }
  if (zeros(0, 6)) return 'IPv4-compatible (deprecated ::/96)';
  if (prefixMatches(g, [0x64, 0xff9b], 96)) {
    const reason = checkV4(embeddedV4(g[6]!, g[7]!));
    return reason === null ? null : `NAT64 ${reason}`;
  }
  if (prefixMatches(g, [0x2002], 16)) {
    const reason = checkV4(embeddedV4(g[1]!, g[2]!));
    return reason === null ? null : `6to4 ${reason}`;
  }
  if (prefixMatches(g, [0x2001, 0x0db8], 32)) return 'documentation (2001:db8::/32)';
  if (prefixMatches(g, [0x2001], 23)) return 'IETF protocol assignments / Teredo (2001::/23)';
  if (prefixMatches(g, [0x3fff], 20)) return 'documentation (3fff::/20)';
  if (prefixMatches(g, [0x5f00], 16)) return 'segment routing (5f00::/16)';
  if (prefixMatches(g, [0xfc00], 7)) return 'unique local / private (fc00::/7)';
  if (prefixMatches(g, [0xfe80], 10)) return 'link-local (fe80::/10)';
  if (prefixMatches(g, [0xfec0], 10)) return 'site-local (fec0::/10)';
  if (prefixMatches(g, [0xff00], 8)) return 'multicast (ff00::/8)';
  // Everything else outside global unicast is reserved or unassigned.
  if (!prefixMatches(g, [0x2000], 3)) return 'reserved IPv6 (outside 2000::/3)';
  return null;
}

/**
 * Why `address` (an IPv4 dotted quad or IPv6 text, brackets allowed) must not
 * be fetched, or null when it is a public unicast address. Anything that is
 * not a valid address is refused.
 */
export function refusalReason(address: string): string | null {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIPv4(text);
  if (v4 !== null) return checkV4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== null) return checkV6(v6);
  return 'not an IP address';
}

/** The policy of a running server: refuse non-public addresses unless private URLs are allowed. */
export function addressPolicy(allowPrivate: boolean): AddressPolicy {
  return allowPrivate ? (address) => (isIP(address.replace(/^\[|\]$/g, '')) ? null : 'not an IP address') : refusalReason;
}

/**
 * Parses a URL a user asked us to fetch: http(s) only, no credentials, and an
 * IP literal host must pass `policy`. Host names are checked later, on the
 * addresses DNS returns (`guardedLookup`).
 */
export function checkUrl(raw: string, policy: AddressPolicy, options: { redirect?: boolean } = {}): URL {
  const what = options.redirect ? 'A redirect' : 'The URL';
  // The user's own URL in a wrong form is a bad request; a server steering us there is a refused hop.
  const formCode = options.redirect ? 'url_not_allowed' : 'invalid_request';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError(formCode, `${what} is not a valid absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError(formCode, `${what} must use http or https, not ${url.protocol.slice(0, -1)}`);
  }
  if (url.username || url.password) throw new AppError(formCode, `${what} must not carry a user name or password`);
  if (!url.hostname) throw new AppError(formCode, `${what} has no host`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const reason = policy(host);
    if (reason) throw new AppError('url_not_allowed', `${what} points at a refused address: ${reason}`);
  }
  return url;
}

export type LookupFunction = (
  hostname: string,
  options: LookupOneOptions | LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/** The system resolver in the shape `guardedLookup` takes. */
export const systemLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => callback(err, addresses));
};

/**
 * A `lookup` for net/tls connections (undici's `connect.lookup`) that
 * resolves with `resolve` and refuses the connection with 400 url_not_allowed
 * if any returned address fails `policy`; a name with one refused address is
 * refused whole, since the connection could land on any of them.
 */
export function guardedLookup(policy: AddressPolicy, resolve: LookupFunction = systemLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, result) => {
      if (err) return callback(err, []);
      const addresses = (Array.isArray(result) ? result : [{ address: result, family: isIP(result) }]) as LookupAddress[];
      const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
      for (const { address } of addresses) {
        const reason = policy(address);
        if (reason) {
          return callback(Object.assign(new AppError('url_not_allowed', `The host ${hostname} resolves to a refused address: ${reason}`), { errno: undefined }), []);
        }
      }
      if (wanted.length === 0) {
        const notFound: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return callback(notFound, []);
      }
      if (options.all) return callback(null, wanted);
      return callback(null, wanted[0]!.address, wanted[0]!.family);
    });
  };
}
