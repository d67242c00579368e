/** Cache keys (pure): everything the answer depends on is in the key, nothing else. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import fc from 'fast-check';

import type { AnalysisSwitches } from '../../src/analysis/types.js';
import { normaliseUrl, uploadCacheKey, urlCacheKey } from '../../src/http/cache-key.js';

const switches = fc.record({ detectBpm: fc.boolean(), detectKey: fc.boolean(), detectHz: fc.boolean(), details: fc.boolean() });
const version = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map((v) => v.join('.'));
const digest = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => createHash('sha256').update(b).digest('hex'));

test('upload keys differ exactly when bytes, switches or version differ', () => {
  fc.assert(
    fc.property(digest, switches, version, digest, switches, version, (d1, s1, v1, d2, s2, v2) => {
      const same = d1 === d2 && v1 === v2 && JSON.stringify(s1) === JSON.stringify(s2);
      assert.equal(uploadCacheKey(d1, s1, v1) === uploadCacheKey(d2, s2, v2), same);
    }),
  );
});

test('all 16 switch combinations are distinct keys', () => {
  const keys = new Set<string>();
  for (let bits = 0; bits < 16; bits++) {
    const s: AnalysisSwitches = { detectBpm: !!(bits & 1), detectKey: !!(bits & 2), detectHz: !!(bits & 4), details: !!(bits & 8) };
    keys.add(urlCacheKey('https://a.example/x.mp3', s, '1.0.0'));
  }
  assert.equal(keys.size, 16);
});

test('URL keys ignore what never reaches the server or does not change the address', () => {
  const s = { detectBpm: true, detectKey: true, detectHz: true, details: false };
  const key = (u: string): string => urlCacheKey(u, s, '1.0.0');
  assert.equal(key('HTTPS://Music.Example:443/a/../song.mp3?x=1#t=30'), key('https://music.example/song.mp3?x=1'));
  assert.equal(key('http://music.example:80/song.mp3?'), key('http://music.example/song.mp3'));
  assert.notEqual(key('https://music.example/song.mp3?x=1'), key('https://music.example/song.mp3?x=2'));
  assert.notEqual(key('https://music.example/song.mp3?a=1&b=2'), key('https://music.example/song.mp3?b=2&a=1'));
  assert.notEqual(key('http://music.example/song.mp3'), key('https://music.example/song.mp3'));
  assert.notEqual(urlCacheKey('https://a.example/x.mp3', s, '1.0.0'), urlCacheKey('https://a.example/x.mp3', s, '1.0.1'));
});

test('a URL key does not carry the URL in clear (signed URLs hold tokens)', () => {
  const k = urlCacheKey('https://cdn.example/x.mp3?token=SECRET123', { detectBpm: true, detectKey: true, detectHz: true, details: false }, '1.0.0');
  assert.doesNotMatch(k, /SECRET123|cdn\.example/);
});

test('normaliseUrl is idempotent', () => {
  fc.assert(
    fc.property(fc.webUrl({ withFragments: true, withQueryParameters: true }), (url) => {
      const once = normaliseUrl(url);
      assert.equal(normaliseUrl(once), once);
    }),
  );
});

test('a malformed digest is a programming error', () => {
  assert.throws(() => uploadCacheKey('abc', { detectBpm: true, detectKey: true, detectHz: true, details: false }, '1.0.0'), RangeError);
});
