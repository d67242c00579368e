/** The SSRF guard's pure parts: address classification, URL checks and the guarded lookup (unit and fast-check properties). */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';

import fc from 'fast-check';

import { AppError } from '../../src/errors.js';
import { checkUrl, guardedLookup, parseIPv6, refusalReason, type LookupFunction } from '../../src/sources/address-guard.js';

const dotted = (n: number): string => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
const ipv4 = fc.integer({ min: 0, max: 0xffffffff });

/** Refused IPv4 blocks, written independently of the implementation's table. */
const REFUSED_V4: [number, number][] = [
  [0x00000000, 8], [0x0a000000, 8], [0x64400000, 10], [0x7f000000, 8], [0xa9fe0000, 16], [0xac100000, 12],
  [0xc0000000, 24], [0xc0000200, 24], [0xc0586300, 24], [0xc0a80000, 16], [0xc6120000, 15], [0xc6336400, 24],
  [0xcb007100, 24], [0xe0000000, 4], [0xf0000000, 4], [0xa83f8110, 32],
];
const inRefused = (n: number): boolean => REFUSED_V4.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)));

function verdictOfUrl(url: string): 'refused' | 'allowed' {
  try {
    checkUrl(url, refusalReason);
    return 'allowed';
  } catch (err) {
    assert.ok(err instanceof AppError && err.code === 'url_not_allowed', String(err));
    return 'refused';
  }
}

describe('IPv4', () => {
  test('refused exactly inside the special-purpose blocks', () => {
    fc.assert(fc.property(ipv4, (n) => (refusalReason(dotted(n)) !== null) === inRefused(n)), { numRuns: 5000 });
  });
  test('every block edge', () => {
    for (const [base, bits] of REFUSED_V4) {
      const last = base + 2 ** (32 - bits) - 1;
      assert.notEqual(refusalReason(dotted(base)), null, dotted(base));
      assert.notEqual(refusalReason(dotted(last)), null, dotted(last));
      if (base > 0 && !inRefused(base - 1)) assert.equal(refusalReason(dotted(base - 1)), null, dotted(base - 1));
      if (last < 0xffffffff && !inRefused(last + 1)) assert.equal(refusalReason(dotted(last + 1)), null, dotted(last + 1));
    }
  });
  test('decimal, hex, octal and dotted forms of one address get one verdict', () => {
    fc.assert(
      fc.property(ipv4, (n) => {
        const expected = inRefused(n) ? 'refused' : 'allowed';
        const octets = [24, 16, 8, 0].map((s) => (n >>> s) & 255);
        for (const host of [String(n), `0x${n.toString(16)}`, `0${n.toString(8)}`, octets.map((o) => `0x${o.toString(16)}`).join('.'), dotted(n)]) {
          assert.equal(verdictOfUrl(`http://${host}/a.mp3`), expected, host);
        }
      }),
      { numRuns: 1000 },
    );
  });
  test('IPv4-mapped, NAT64 and 6to4 forms inherit the IPv4 verdict', () => {
    fc.assert(
      fc.property(ipv4, (n) => {
        const hi = (n >>> 16).toString(16);
        const lo = (n & 0xffff).toString(16);
        const v4 = inRefused(n);
        assert.equal(refusalReason(`::ffff:${dotted(n)}`) !== null, v4);
        assert.equal(refusalReason(`::ffff:${hi}:${lo}`) !== null, v4);
        assert.equal(refusalReason(`64:ff9b::${hi}:${lo}`) !== null, v4);
        assert.equal(refusalReason(`2002:${hi}:${lo}::1`) !== null, v4);
        assert.equal(verdictOfUrl(`http://[::ffff:${dotted(n)}]/`), v4 ? 'refused' : 'allowed');
      }),
      { numRuns: 2000 },
    );
  });
});

describe('IPv6', () => {
  const group = fc.integer({ min: 0, max: 0xffff });
  test('full and compressed (WHATWG) text parse to the same groups', () => {
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((g) => g.toString(16)).join(':');
        const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1);
        assert.deepEqual(parseIPv6(full), groups);
        assert.deepEqual(parseIPv6(compressed), groups);
      }),
    );
  });
  test('only global unicast outside the special blocks passes', () => {
    for (const ip of ['::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1', '2001::1', '100::1', 'fec0::1', '::1.2.3.4', '3fff::1', '5f00::1']) {
      assert.notEqual(refusalReason(ip), null, ip);
    }
    for (const ip of ['2a00:1450:4001:81b::200e', '2606:4700::6810:84e5', '2002:808:808::1', '64:ff9b::808:808', '::ffff:8.8.8.8']) {
      assert.equal(refusalReason(ip), null, ip);
    }
  });
  test('zone ids and garbage are refused', () => {
    for (const ip of ['fe80::1%eth0', '1::2::3', '12345::', 'not-an-ip', '1.2.3', '256.1.1.1', '01.2.3.4', '']) {
      assert.notEqual(refusalReason(ip), null, ip);
    }
  });
});

describe('checkUrl', () => {
  test('only http(s), no credentials', () => {
    for (const url of ['ftp://8.8.8.8/', 'file:///etc/passwd', 'gopher://8.8.8.8/', 'http://u:p@8.8.8.8/', 'http://u@8.8.8.8/']) {
      assert.throws(() => checkUrl(url, refusalReason), (err: unknown) => err instanceof AppError && err.code === 'invalid_request', url);
    }
    assert.equal(checkUrl('https://example.com/a.mp3', refusalReason).hostname, 'example.com');
  });
  test('a redirect in a wrong form is url_not_allowed, not a bad request', () => {
    assert.throws(() => checkUrl('file:///etc/passwd', refusalReason, { redirect: true }), (err: unknown) => err instanceof AppError && err.code === 'url_not_allowed');
  });
});

describe('guardedLookup', () => {
  const publicV4 = ipv4.filter((n) => !inRefused(n)).map((n) => ({ address: dotted(n), family: 4 }));
  const refusedV4 = ipv4.filter(inRefused).map((n) => ({ address: dotted(n), family: 4 }));
  const lookupWith = (answer: LookupAddress[]): LookupFunction => (_host, _options, callback) => callback(null, answer);
  const run = (answer: LookupAddress[], all: boolean) =>
    new Promise<{ err: unknown; result: unknown }>((resolve) => {
      guardedLookup(refusalReason, lookupWith(answer))('name.test', { all } as never, (err, result) => resolve({ err, result }));
    });

  test('any refused address refuses the whole name', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(publicV4, { maxLength: 4 }), refusedV4, fc.nat(), async (good, bad, at) => {
        const answer = [...good];
        answer.splice(at % (good.length + 1), 0, bad);
        const { err } = await run(answer, true);
        assert.ok(err instanceof AppError && err.code === 'url_not_allowed');
      }),
      { numRuns: 300 },
    );
  });
  test('public answers pass through, in both lookup shapes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(publicV4, { minLength: 1, maxLength: 4 }), async (answer) => {
        const all = await run(answer, true);
        assert.equal(all.err, null);
        assert.deepEqual(all.result, answer);
        const one = await run(answer, false);
        assert.equal(one.err, null);
        assert.equal(one.result, answer[0]!.address);
      }),
      { numRuns: 200 },
    );
  });
});
