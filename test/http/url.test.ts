/**
 * POST /analyze/url against local origins (TRACKSCAN_ALLOW_PRIVATE_URLS=1):
 * direct links, pages resolved through their media tags and metadata,
 * redirects, and the result cache (a URL hit does not download).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';

import { childFfmpegCount } from '../helpers/media.js';
import { makeAudio } from './helpers/audio.js';
import { postFile, postUrl, problemOf, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let mp3: Buffer;
let origin: Awaited<ReturnType<typeof startOrigin>>;
const pages = new Map<string, string>();

function page(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

before(async () => {
  h = await startHarness(suite, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_MAX_REDIRECTS: '3' } });
  mp3 = await makeAudio(suite, 'mp3', 4);
  origin = await startOrigin(suite, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/media/')) {
      // No audio content type on purpose: the format comes from the bytes.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(mp3.length) }).end(mp3);
    } else if (url.pathname === '/redirect') {
      const left = Number(url.searchParams.get('n') ?? '0');
      res.writeHead(302, { location: left > 0 ? `/redirect?n=${left - 1}` : '/media/after-redirect.mp3' }).end();
    } else if (url.pathname === '/loop') {
      res.writeHead(301, { location: '/loop' }).end();
    } else if (pages.has(url.pathname)) {
      page(res, pages.get(url.pathname)!);
    } else {
      res.writeHead(404).end();
    }
  });
});

type Analysis = Record<string, unknown>;

async function analysisOf(res: Response): Promise<Analysis> {
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return JSON.parse(text) as Analysis;
}

describe('direct links', () => {
  test('a media link gives the same values as uploading the same bytes', async () => {
    const fromUrl = await analysisOf(await postUrl(h, { url: `${origin.url}/media/direct.mp3` }));
    const fromFile = await analysisOf(await postFile(h, mp3));
    for (const field of ['bpm', 'bpm_confidence', 'key', 'key_confidence', 'hz', 'hz_confidence', 'lufs', 'loudness_detail', 'analyzer_version']) {
      assert.deepEqual(fromUrl[field], fromFile[field], field);
    }
    assert.deepEqual(Object.keys(fromUrl).sort(), Object.keys(fromFile).sort());
  });
  test('switches and details work as for uploads', async () => {
    const body = await analysisOf(await postUrl(h, { url: `${origin.url}/media/switches.mp3`, detect_bpm: false, detect_hz: false, details: true }));
    assert.equal(body.bpm, null);
    assert.equal(body.bpm_confidence, null);
    assert.equal(body.hz, null);
    assert.equal(body.hz_confidence, null);
    assert.ok(body.details);
  });
});

describe('redirects', () => {
  test('followed up to the limit', async () => {
    await analysisOf(await postUrl(h, { url: `${origin.url}/redirect?n=2` }));
  });
  test('one too many, or a loop, is 502', async () => {
    for (const path of ['/redirect?n=3', '/loop']) {
      const res = await postUrl(h, { url: `${origin.url}${path}` });
      const problem = await problemOf(res);
      assert.equal(res.status, 502, problem.detail);
      assert.equal(problem.code, 'upstream_failed');
      assert.match(problem.detail, /redirect/);
    }
  });
});

describe('pages', () => {
  const cases: [string, string][] = [
    ['og:audio with a relative URL', `<html><head><meta property="og:audio" content="/media/og.mp3"></head><body></body></html>`],
    ['<audio> with <source> children', `<!DOCTYPE html><html><body><audio controls><source src="../media/source.mp3" type="audio/mpeg"></audio></body></html>`],
    ['JSON-LD contentUrl', `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"MusicRecording","audio":{"@type":"AudioObject","contentUrl":"/media/ld.mp3"}}</script></head></html>`],
    ['og:video when nothing else', `<html><head><meta property="og:video:url" content="${'/media/video.mp3'}"></head></html>`],
    ['<base href> and entities', `<html><head><base href="/media/"></head><body><audio src="base.mp3?a=1&amp;b=2"></audio></body></html>`],
    ['a dead first candidate, then a good one', `<html><head><meta property="og:audio" content="/nothing-here.mp3"><meta property="og:video" content="/media/second.mp3"></head></html>`],
  ];
  for (const [name, html] of cases) {
    test(name, async () => {
      const path = `/pages/${encodeURIComponent(name)}`;
      pages.set(path, html);
      const body = await analysisOf(await postUrl(h, { url: `${origin.url}${path}` }));
      assert.equal(body.cached, false);
      assert.equal(typeof body.lufs, 'number');
    });
  }
  test('the media the page names is what gets fetched', async () => {
    pages.set('/pages/which', '<html><head><meta property="og:audio" content="/media/which-one.mp3"></head></html>');
    await analysisOf(await postUrl(h, { url: `${origin.url}/pages/which` }));
    assert.equal(origin.hits.get('/media/which-one.mp3'), 1);
  });
});

describe('cache', () => {
  test('a URL hit answers without downloading and does not count as an analysis', async () => {
    const url = `${origin.url}/media/cached.mp3`;
    const first = await analysisOf(await postUrl(h, { url }));
    assert.equal(first.cached, false);
    const usage1 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    const second = await analysisOf(await postUrl(h, { url: `${url}#fragment-ignored` }));
    assert.equal(second.cached, true);
    assert.equal(origin.hits.get('/media/cached.mp3'), 1, 'no second download');
    const usage2 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    assert.equal(usage2.analyses_this_month, usage1.analyses_this_month);
    for (const field of ['bpm', 'key', 'hz', 'lufs', 'loudness_detail', 'analyzer_version']) assert.deepEqual(second[field], first[field], field);
  });
  test('identical requests at once share one download and one analysis', async () => {
    const url = `${origin.url}/media/together.mp3`;
    const usage1 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    const answers = await Promise.all(Array.from({ length: 5 }, () => postUrl(h, { url }).then(analysisOf)));
    assert.equal(origin.hits.get('/media/together.mp3'), 1);
    assert.equal(answers.filter((a) => a.cached === false).length, 1);
    assert.equal(answers.filter((a) => a.cached === true).length, 4);
    for (const a of answers) assert.deepEqual(a.loudness_detail, answers[0]!.loudness_detail);
    const usage2 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    assert.equal(usage2.analyses_this_month, usage1.analyses_this_month + 1);
  });
  test('other switches are another entry', async () => {
    const url = `${origin.url}/media/switch-cache.mp3`;
    assert.equal((await analysisOf(await postUrl(h, { url }))).cached, false);
    const other = await analysisOf(await postUrl(h, { url, detect_key: false }));
    assert.equal(other.cached, false);
    assert.equal(other.key, null);
    assert.equal(origin.hits.get('/media/switch-cache.mp3'), 2);
  });
  test('an upload hit says cached and does not count', async (t) => {
    const bytes = await makeAudio(t, 'wav', 2);
    assert.equal((await analysisOf(await postFile(h, bytes))).cached, false);
    const usage1 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    const again = await analysisOf(await postFile(h, bytes));
    assert.equal(again.cached, true);
    const usage2 = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    assert.equal(usage2.analyses_this_month, usage1.analyses_this_month);
    // One sample bit different is a different file (a WAV stays decodable whatever its samples).
    const changed = Buffer.from(bytes);
    changed.writeUInt8(changed.readUInt8(changed.length - 1) ^ 1, changed.length - 1);
    assert.equal((await analysisOf(await postFile(h, changed))).cached, false);
  });
  test('a new analyzer version never serves an old result', async (t) => {
    let version = '0.1.0';
    const versioned = await startHarness(t, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1' }, deps: { analyzerVersion: () => version } });
    const url = `${origin.url}/media/versioned.mp3`;
    assert.equal((await analysisOf(await postUrl(versioned, { url }))).cached, false);
    assert.equal((await analysisOf(await postUrl(versioned, { url }))).cached, true);
    version = '0.2.0';
    assert.equal((await analysisOf(await postUrl(versioned, { url }))).cached, false);
    assert.equal(origin.hits.get('/media/versioned.mp3'), 2);
  });
});

test('no ffmpeg is left behind by the URL analyses above', async () => {
  const end = Date.now() + 5000;
  while ((await childFfmpegCount()) > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await childFfmpegCount(), 0);
});
