/** Page resolution (pure): which media a page names, and that hostile markup cannot hurt. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import fc from 'fast-check';

import { decodeEntities, findMediaUrls, looksLikeHtml, MAX_CANDIDATES } from '../../src/sources/resolve-page.js';

const PAGE = 'https://music.example/artist/track?id=7';

describe('findMediaUrls', () => {
  test('audio sources come before video, each resolved against the page', () => {
    const html = `<!doctype html><html><head>
      <meta property="og:video" content="https://cdn.example/v.mp4">
      <meta property="og:audio" content="/a/og.mp3">
      <meta name="og:audio:secure_url" content="https://cdn.example/og-secure.mp3">
      <script type="application/ld+json">[{"@type":"VideoObject","contentUrl":"/v/ld.webm"},{"@type":"AudioObject","contentUrl":["ld1.ogg","ld2.ogg"]}]</script>
      </head><body>
      <video src="/v/tag.mp4"><source src="/v/src.webm"></video>
      <audio controls><source src='rel/one.flac' type="audio/flac"><source src=two.wav></audio>
      </body></html>`;
    assert.deepEqual(findMediaUrls(html, PAGE), [
      'https://music.example/a/og.mp3',
      'https://cdn.example/og-secure.mp3',
      'https://music.example/artist/rel/one.flac',
      'https://music.example/artist/two.wav',
      'https://music.example/artist/ld1.ogg',
      'https://music.example/artist/ld2.ogg',
      'https://music.example/v/ld.webm',
      'https://cdn.example/v.mp4',
      'https://music.example/v/tag.mp4',
      'https://music.example/v/src.webm',
    ]);
  });
  test('<base href>, entities, comments, scripts and non-http links', () => {
    const html = `<base href="https://files.example/dir/">
      <!-- <audio src="/commented.mp3"></audio> -->
      <script>document.write('<audio src="/scripted.mp3">')</script>
      <audio src="javascript:alert(1)"></audio><audio src="data:audio/wav;base64,AAAA"></audio>
      <audio src="x.mp3?a=1&amp;b=2#t=10"></audio>`;
    assert.deepEqual(findMediaUrls(html, PAGE), ['https://files.example/dir/x.mp3?a=1&b=2']);
  });
  test('nothing to find', () => {
    assert.deepEqual(findMediaUrls('<html><body><img src="a.png"><a href="song.mp3">song</a></body></html>', PAGE), []);
    assert.deepEqual(findMediaUrls('<script type="application/ld+json">{not json</script>', PAGE), []);
  });
  test('thousands of media tags: bounded answer, quickly', () => {
    const html = `<html><body>${Array.from({ length: 20000 }, (_, i) => `<audio><source src="/m/${i}.mp3"></audio>`).join('\n')}</body></html>`;
    const started = performance.now();
    const found = findMediaUrls(html, PAGE);
    assert.equal(found.length, MAX_CANDIDATES);
    assert.equal(found[0], 'https://music.example/m/0.mp3');
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  });
  test('unclosed quotes and tags at the end do not hang', () => {
    assert.deepEqual(findMediaUrls('<audio src="unterminated', PAGE), ['https://music.example/artist/unterminated']);
    assert.deepEqual(findMediaUrls('<meta property="og:audio" content=', PAGE), []);
    assert.deepEqual(findMediaUrls('<<<<<<>>>>><audio', PAGE), []);
  });
  test('property: any input gives at most MAX_CANDIDATES unique absolute http(s) URLs', () => {
    const tagish = fc.constantFrom('<audio src="', '<source src=', '<meta property="og:audio" content="', '">', '<video>', '</audio>', '<script type="application/ld+json">', '</script>', '{"contentUrl":"', '"}', '&amp;', '<!--', '-->', '/', 'a.mp3', ' ', '<base href="');
    const text = fc.oneof(fc.string(), fc.array(tagish, { maxLength: 40 }).map((parts) => parts.join('')));
    fc.assert(
      fc.property(text, (html) => {
        const found = findMediaUrls(html, PAGE);
        assert.ok(found.length <= MAX_CANDIDATES);
        assert.equal(new Set(found).size, found.length);
        for (const url of found) assert.match(new URL(url).protocol, /^https?:$/);
      }),
      { numRuns: 2000 },
    );
  });
  test('property: a relative og:audio link resolves like the browser would', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,12}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.boolean(), (parts, rooted) => {
        const link = `${rooted ? '/' : ''}${parts.join('/')}`;
        const expected = new URL(link, PAGE);
        expected.hash = '';
        assert.deepEqual(findMediaUrls(`<meta property="og:audio" content="${link}">`, PAGE), [expected.toString()]);
      }),
    );
  });
});

describe('helpers', () => {
  test('decodeEntities', () => {
    assert.equal(decodeEntities('a&amp;b&lt;&#x41;&#66;&quot;&unknown;&#0;'), 'a&b<AB"&unknown;&#0;');
  });
  test('looksLikeHtml by type or by bytes', () => {
    assert.equal(looksLikeHtml('text/html; charset=utf-8', Buffer.alloc(0)), true);
    assert.equal(looksLikeHtml('application/octet-stream', Buffer.from('\n  <!DOCTYPE html><html>')), true);
    assert.equal(looksLikeHtml('audio/mpeg', Buffer.from('ID3\x04\x00')), false);
    assert.equal(looksLikeHtml(undefined, Buffer.from('fLaC')), false);
  });
});
