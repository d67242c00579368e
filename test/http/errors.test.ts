/**
 * Every row of SPEC.md's error table, over real HTTP against a real server:
 * status, code, problem+json envelope, and Retry-After where the table asks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { childFfmpegCount } from '../helpers/media.js';
import { makeAudio } from './helpers/audio.js';
import { multipart, postFile, postUrl, problemOf, startHarness, startOrigin, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let mp3: Buffer;
before(async () => {
  h = await startHarness(suite, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_MAX_UPLOAD_BYTES: '300K', TRACKSCAN_MAX_DOWNLOAD_BYTES: '300K' } });
  mp3 = await makeAudio(suite, 'mp3', 3);
});

async function expectProblem(res: Response, status: number, code: string): Promise<{ detail: string }> {
  const body = await problemOf(res);
  assert.equal(res.status, status, `status of ${code}: ${JSON.stringify(body)}`);
  assert.equal(body.code, code, body.detail);
  assert.equal(body.status, status);
  assert.equal(body.type, `urn:trackscan:problem:${code}`);
  assert.equal(typeof body.title, 'string');
  assert.ok(body.detail.length > 0);
  return body;
}

describe('400 invalid_request', () => {
  test('malformed JSON', async () => {
    await expectProblem(await postUrl(h, '{"url": '), 400, 'invalid_request');
  });
  test('missing url', async () => {
    await expectProblem(await postUrl(h, { detect_bpm: true }), 400, 'invalid_request');
  });
  test('wrong field types', async () => {
    for (const body of [{ url: 42 }, { url: 'http://127.0.0.1/a.mp3', detect_bpm: 'false' }, { url: 'http://127.0.0.1/a.mp3', details: 1 }, [1, 2], 'just a string']) {
      const { detail } = await expectProblem(await postUrl(h, body), 400, 'invalid_request');
      assert.ok(detail.length > 0);
    }
  });
  test('deeply nested JSON', async () => {
    await expectProblem(await postUrl(h, `${'['.repeat(5000)}${']'.repeat(5000)}`), 400, 'invalid_request');
    await expectProblem(await postUrl(h, `{"url": ${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`), 400, 'invalid_request');
  });
  test('a JSON body far over the size limit is 413', async () => {
    await expectProblem(await postUrl(h, JSON.stringify({ url: `http://example.com/${'a'.repeat(100_000)}` })), 413, 'payload_too_large');
  });
  test('a body that is not JSON at all (no content type)', async () => {
    const res = await h.call('/analyze/url', { method: 'POST', body: 'url=http://x' });
    await expectProblem(res, 400, 'invalid_request');
  });
  test('non-http(s) URLs', async () => {
    for (const url of ['ftp://example.com/a.mp3', 'file:///etc/passwd', 'javascript:alert(1)', 'data:audio/mp3;base64,AAAA', 'not a url']) {
      await expectProblem(await postUrl(h, { url }), 400, 'invalid_request');
    }
  });
  test('a URL with credentials', async () => {
    await expectProblem(await postUrl(h, { url: 'http://user:pw@example.com/a.mp3' }), 400, 'invalid_request');
  });
  test('missing file part', async () => {
    const { body, contentType } = multipart([{ name: 'detect_bpm', body: 'true' }]);
    const res = await h.call('/analyze/file', { method: 'POST', body, headers: { 'content-type': contentType } });
    await expectProblem(res, 400, 'invalid_request');
  });
  test('a multipart field that is not "true"/"false"', async () => {
    await expectProblem(await postFile(h, mp3, { detect_key: 'yes' }), 400, 'invalid_request');
  });
  test('not multipart at all', async () => {
    const res = await h.call('/analyze/file', { method: 'POST', body: mp3, headers: { 'content-type': 'audio/mpeg' } });
    await expectProblem(res, 400, 'invalid_request');
  });
});

describe('400 url_not_allowed', () => {
  test('loopback and private addresses with the guard on', async (t) => {
    const guarded = await startHarness(t);
    for (const url of ['http://127.0.0.1/a.mp3', 'http://10.0.0.1/a.mp3', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/a.mp3', 'http://localhost:1/a.mp3']) {
      await expectProblem(await postUrl(guarded, { url }), 400, 'url_not_allowed');
    }
  });
});

describe('401', () => {
  test('missing_api_key', async () => {
    await expectProblem(await h.call('/usage', { key: null }), 401, 'missing_api_key');
    await expectProblem(await postFile(h, mp3, {}, null), 401, 'missing_api_key');
  });
  test('invalid_api_key', async () => {
    await expectProblem(await h.call('/usage', { key: 'tsk_notakey' }), 401, 'invalid_api_key');
    await expectProblem(await postUrl(h, { url: 'http://127.0.0.1/x' }, `${h.key.slice(0, -1)}x`), 401, 'invalid_api_key');
  });
  test('revoked key', async () => {
    const { record, secret } = await h.running.store.createKey({ name: 'to-revoke', rateLimit: 20, monthlyLimit: 10 });
    assert.equal((await h.call('/usage', { key: secret })).status, 200);
    assert.equal(await h.running.store.revokeKey(record.id), true);
    await expectProblem(await h.call('/usage', { key: secret }), 401, 'invalid_api_key');
  });
});

describe('413 payload_too_large', () => {
  test('an upload over the byte limit', async () => {
    const big = Buffer.concat([mp3, Buffer.alloc(400 * 1024, 7)]);
    await expectProblem(await postFile(h, big), 413, 'payload_too_large');
  });
  test('a download over the byte limit, Content-Length honest or absent', async (t) => {
    const big = Buffer.concat([mp3, Buffer.alloc(400 * 1024, 7)]);
    const origin = await startOrigin(t, (req, res) => {
      if (req.url === '/chunked') {
        // Two writes after writeHead without a length: chunked, so only counting can catch it.
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(big.subarray(0, 1000));
        res.end(big.subarray(1000));
        return;
      }
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(big.length) });
      res.end(big);
    });
    await expectProblem(await postUrl(h, { url: `${origin.url}/sized.mp3` }), 413, 'payload_too_large');
    await expectProblem(await postUrl(h, { url: `${origin.url}/chunked` }), 413, 'payload_too_large');
  });
  test('audio over the duration limit', async (t) => {
    const short = await startHarness(t, { env: { TRACKSCAN_MAX_DURATION_SECONDS: '1' } });
    await expectProblem(await postFile(short, mp3), 413, 'payload_too_large');
  });
});

describe('415 unsupported_media_type', () => {
  test('bytes of no accepted format, whatever the name says', async () => {
    const text = Buffer.from('This is not audio at all, just some text in a file called song.mp3\n'.repeat(50));
    await expectProblem(await postFile(h, text), 415, 'unsupported_media_type');
  });
});

describe('422 undecodable_audio', () => {
  test('a truncated WAV', async (t) => {
    const wav = await makeAudio(t, 'wav', 2);
    await expectProblem(await postFile(h, wav.subarray(0, Math.floor(wav.length / 2))), 422, 'undecodable_audio');
  });
});

describe('429', () => {
  test('rate_limited with Retry-After and rate-limit headers', async () => {
    const { secret } = await h.running.store.createKey({ name: 'slow', rateLimit: 2, monthlyLimit: 10 });
    assert.equal((await h.call('/usage', { key: secret })).status, 200);
    assert.equal((await h.call('/usage', { key: secret })).status, 200);
    const res = await h.call('/usage', { key: secret });
    await expectProblem(res, 429, 'rate_limited');
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
    assert.equal(res.headers.get('ratelimit-limit'), '2');
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
  });
  test('quota_exceeded with Retry-After until the next month', async () => {
    const { secret } = await h.running.store.createKey({ name: 'monthly', rateLimit: 100, monthlyLimit: 1 });
    assert.equal((await postFile(h, mp3, { detect_key: 'false' }, secret)).status, 200);
    const res = await postFile(h, mp3, { detect_hz: 'false' }, secret);
    await expectProblem(res, 429, 'quota_exceeded');
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 31 * 86400, `Retry-After ${retry}`);
  });
});

describe('502 upstream_failed', () => {
  test('the URL answers an error, or does not answer at all', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(404).end('nope');
    });
    await expectProblem(await postUrl(h, { url: `${origin.url}/missing.mp3` }), 502, 'upstream_failed');
    // A port nobody listens on: the origin's port once it is closed.
    const gone = await startOrigin({ after: () => undefined }, () => undefined);
    await new Promise<void>((resolve) => gone.server.close(() => resolve()));
    await expectProblem(await postUrl(h, { url: `${gone.url}/a.mp3` }), 502, 'upstream_failed');
  });
  test('a Content-Length that promises more than the server sends', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(mp3.length * 2) });
      res.write(mp3, () => res.socket?.destroy());
    });
    await expectProblem(await postUrl(h, { url: `${origin.url}/liar.mp3` }), 502, 'upstream_failed');
  });
  test('a page with no playable media', async (t) => {
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><head><title>x</title></head><body><p>no media here</p></body></html>');
    });
    await expectProblem(await postUrl(h, { url: `${origin.url}/page` }), 502, 'upstream_failed');
  });
});

describe('503 overloaded', () => {
  test('a full queue answers at once with Retry-After', async (t) => {
    const tight = await startHarness(t, { env: { TRACKSCAN_CONCURRENCY: '1', TRACKSCAN_QUEUE_LENGTH: '0', TRACKSCAN_ALLOW_PRIVATE_URLS: '1' } });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': String(mp3.length) });
      res.write(mp3.subarray(0, 4096));
      void released.then(() => res.end(mp3.subarray(4096)));
    });
    const slow = postUrl(tight, { url: `${origin.url}/slow.mp3` });
    // Wait until the slow analysis holds the only slot.
    for (let i = 0; i < 100 && (origin.hits.get('/slow.mp3') ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    const res = await postFile(tight, mp3);
    assert.ok(performance.now() - started < 2000, 'the refusal does not wait');
    await expectProblem(res, 503, 'overloaded');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    release();
    assert.equal((await slow).status, 200);
  });
});

describe('504 upstream_timeout', () => {
  test('a server that never answers', async (t) => {
    const quick = await startHarness(t, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_FIRST_BYTE_TIMEOUT_MS: '300' } });
    const origin = await startOrigin(t, () => {
      // Never answers.
    });
    const started = performance.now();
    await expectProblem(await postUrl(quick, { url: `${origin.url}/hang.mp3` }), 504, 'upstream_timeout');
    assert.ok(performance.now() - started < 5000);
  });
  test('a body that trickles past the whole-download limit', async (t) => {
    const quick = await startHarness(t, { env: { TRACKSCAN_ALLOW_PRIVATE_URLS: '1', TRACKSCAN_DOWNLOAD_TIMEOUT_MS: '800' } });
    const origin = await startOrigin(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= mp3.length) return clearInterval(timer);
        res.write(mp3.subarray(at, at + 512));
        at += 512;
      }, 100);
      res.once('close', () => clearInterval(timer));
    });
    await expectProblem(await postUrl(quick, { url: `${origin.url}/trickle.mp3` }), 504, 'upstream_timeout');
  });
});

describe('other failures are problem documents too', () => {
  test('unknown path and wrong method', async () => {
    await expectProblem(await h.call('/nope'), 404, 'not_found');
    const res = await h.call('/usage', { method: 'DELETE' });
    await expectProblem(res, 405, 'method_not_allowed');
    assert.equal(res.headers.get('allow'), 'GET');
  });
});

test('no ffmpeg is left behind by every failure above', async () => {
  const end = Date.now() + 5000;
  while ((await childFfmpegCount()) > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.equal(await childFfmpegCount(), 0);
});
