/** Property tests (fast-check) for the pure parts that face strangers' input. */
import assert from 'node:assert/strict';
import { test } from 'node:test';

import fc from 'fast-check';

import type { AnalysisSwitches } from '../../src/analysis/types.js';
import { AppError } from '../../src/errors.js';
import { normaliseUrl, uploadCacheKey, urlCacheKey } from '../../src/http/cache-key.js';
import { addressPolicy, checkUrl, refusalReason } from '../../src/sources/address-guard.js';
import { findMediaUrls, MAX_CANDIDATES } from '../../src/sources/resolve-page.js';

const octets = (n: number): number[] => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const dotted = (n: number): string => octets(n).join('.');
/** Refused IPv4 blocks: [base, prefix bits]. */
const REFUSED_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const toInt = (ip: string): number => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);
const refusedV4 = fc
  .tuple(fc.constantFrom(...REFUSED_V4), fc.integer({ min: 0, max: 2 ** 32 - 1 }))
  .map(([[base, bits], r]) => toInt(base) + (bits === 32 ? 0 : r % 2 ** (32 - bits)));

test('every address inside a refused IPv4 block is refused, in every notation', () => {
  const policy = addressPolicy(false);
  fc.assert(
    fc.property(refusedV4, (n) => {
      assert.ok(refusalReason(dotted(n)), dotted(n));
      const [a, b, c, d] = octets(n) as [number, number, number, number];
      const hex4 = `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
      assert.ok(refusalReason(`::ffff:${dotted(n)}`), `mapped ${dotted(n)}`);
      assert.ok(refusalReason(`::ffff:${hex4}`), `mapped hex ${hex4}`);
      // Decimal, hex and octal host forms: the URL parser canonicalises, the guard refuses.
      for (const host of [String(n), `0x${n.toString(16)}`, octets(n).map((o) => `0${o.toString(8)}`).join('.')]) {
        assert.throws(() => checkUrl(`http://${host}/a.mp3`, policy), (err: unknown) => err instanceof AppError && err.code === 'url_not_allowed', host);
      }
    }),
  );
});

test('the guard never throws on arbitrary text, and refuses what is not an address', () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      const reason = refusalReason(s);
      assert.ok(reason === null || typeof reason === 'string');
    }),
  );
  assert.ok(refusalReason('example.com'));
  assert.equal(refusalReason('8.8.8.8'), null);
  assert.equal(refusalReason('2606:4700:4700::1111'), null);
  assert.ok(refusalReason('::1'));
  assert.ok(refusalReason('fd00::1'));
  assert.ok(refusalReason('fe80::1'));
});

test('checkUrl: only http(s), no credentials; errors are typed', () => {
  const policy = addressPolicy(false);
  fc.assert(
    fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (raw) => {
      try {
        const url = checkUrl(raw, policy);
        assert.ok(url.protocol === 'http:' || url.protocol === 'https:');
        assert.equal(url.username, '');
      } catch (err) {
        assert.ok(err instanceof AppError, String(err));
      }
    }),
  );
  for (const raw of ['ftp://example.com/a.mp3', 'file:///etc/passwd', 'gopher://x/', 'http://user:pw@example.com/a.mp3']) {
    assert.throws(() => checkUrl(raw, policy), (err: unknown) => err instanceof AppError && err.code === 'invalid_request', raw);
  }
});

test('page resolution never throws, returns few absolute http(s) URLs without duplicates', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 2000 }), fc.array(fc.constantFrom('<audio src="a.mp3">', '<source src="/b.ogg">', '<meta property="og:audio" content="https://cdn.example/c.mp3">', '<video src="//x.example/v.mp4">', '<base href="https://other.example/dir/">', '<script type="application/ld+json">{"contentUrl":"d.flac"}</script>'), { maxLength: 30 }), (noise, tags) => {
      const urls = findMediaUrls(noise + tags.join(noise.slice(0, 20)), 'https://site.example/page/index.html');
      assert.ok(urls.length <= MAX_CANDIDATES);
      assert.equal(new Set(urls).size, urls.length);
      for (const u of urls) assert.match(new URL(u).protocol, /^https?:$/);
    }),
  );
  assert.deepEqual(findMediaUrls('<html><audio controls src="song.mp3"></audio>', 'https://site.example/a/page'), ['https://site.example/a/song.mp3']);
});

const switches = fc.record({ detectBpm: fc.boolean(), detectKey: fc.boolean(), detectHz: fc.boolean(), details: fc.boolean() });
const tag = (s: AnalysisSwitches): string => JSON.stringify([s.detectBpm, s.detectKey, s.detectHz, s.details]);

test('cache keys differ whenever the answer could differ, and only then', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')), switches, switches, fc.constantFrom('0.1.0', '0.2.0'), (hash, a, b, version) => {
      assert.equal(uploadCacheKey(hash, a, version) === uploadCacheKey(hash, b, version), tag(a) === tag(b));
      assert.notEqual(uploadCacheKey(hash, a, version), uploadCacheKey(hash, a, version === '0.1.0' ? '0.1.1' : '0.1.0'));
    }),
  );
  fc.assert(
    fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), switches, (url, s) => {
      assert.equal(normaliseUrl(normaliseUrl(url)), normaliseUrl(url));
      assert.equal(urlCacheKey(url, s, '1.0.0'), urlCacheKey(normaliseUrl(url), s, '1.0.0'));
    }),
  );
  assert.equal(urlCacheKey('HTTP://Example.COM:80/a.mp3#t=1', { detectBpm: true, detectKey: true, detectHz: true, details: false }, '1.0.0'),
    urlCacheKey('http://example.com/a.mp3', { detectBpm: true, detectKey: true, detectHz: true, details: false }, '1.0.0'));
});
