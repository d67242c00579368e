/**
 * POST /analyze/file: accepted formats, switches, details, multipart rules,
 * the byte limit while the upload is still arriving, and client aborts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { childFfmpegCount } from '../helpers/media.js';
import { makeAudio } from './helpers/audio.js';
import { multipart, postFile, problemOf, startHarness, type Harness } from './helpers/harness.js';

const cleanups: (() => unknown)[] = [];
const suite = { after: (fn: () => unknown) => cleanups.push(fn) };
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

let h: Harness;
let mp3: Buffer;
before(async () => {
  h = await startHarness(suite, { env: { TRACKSCAN_MAX_UPLOAD_BYTES: '2M' } });
  mp3 = await makeAudio(suite, 'mp3', 4);
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(25);
  }
}

describe('formats', () => {
  for (const format of ['mp3', 'm4a', 'm4a-moov-last', 'aac', 'wav', 'flac', 'ogg', 'ogg-opus', 'opus', 'webm']) {
    test(`${format} gives the full analysis object`, async (t) => {
      const bytes = await makeAudio(t, format, 3);
      const res = await postFile(h, bytes);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.cached, false);
      assert.match(String(body.analyzer_version), /^\d+\.\d+\.\d+$/);
      assert.equal(typeof body.lufs, 'number');
      // The test music sits well below full scale: loudness in a plausible band.
      assert.ok((body.lufs as number) < -5 && (body.lufs as number) > -40, `lufs ${body.lufs}`);
      assert.equal('details' in body, false);
    });
  }
});

describe('switches', () => {
  test('a false switch nulls its value and confidence; details only when asked', async () => {
    const res = await postFile(h, mp3, { detect_bpm: 'false', detect_key: 'false', detect_hz: 'false', details: 'true' });
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 200, JSON.stringify(body));
    for (const field of ['bpm', 'bpm_confidence', 'key', 'key_confidence', 'hz', 'hz_confidence']) assert.equal(body[field], null, field);
    assert.equal(typeof body.lufs, 'number');
    const details = body.details as Record<string, unknown>;
    assert.ok(details, 'details present');
    assert.ok(Math.abs((details.duration_s as number) - 4) < 0.2, `duration ${details.duration_s}`);
    assert.equal(details.channels, 2);
  });
  test('fields after the file part are refused', async () => {
    const { body, contentType } = multipart([
      { name: 'file', filename: 'a.mp3', body: mp3 },
      { name: 'detect_bpm', body: 'false' },
    ]);
    const res = await h.call('/analyze/file', { method: 'POST', body, headers: { 'content-type': contentType } });
    assert.equal(res.status, 400);
    assert.match((await problemOf(res)).detail, /after the file/);
  });
  test('unknown fields, two files and a wrongly named part are refused', async () => {
    const cases = [
      multipart([{ name: 'detect_bmp', body: 'false' }, { name: 'file', filename: 'a.mp3', body: mp3 }]),
      multipart([{ name: 'file', filename: 'a.mp3', body: mp3 }, { name: 'file', filename: 'b.mp3', body: mp3 }]),
      multipart([{ name: 'audio', filename: 'a.mp3', body: mp3 }]),
    ];
    for (const { body, contentType } of cases) {
      const res = await h.call('/analyze/file', { method: 'POST', body, headers: { 'content-type': contentType } });
      const problem = await problemOf(res);
      assert.equal(res.status, 400, problem.detail);
      assert.equal(problem.code, 'invalid_request');
    }
  });
  test('hostile multipart: wrong boundary, huge field, too many parts, no boundary', async () => {
    const wrong = multipart([{ name: 'file', filename: 'a.mp3', body: mp3 }], 'the-real-boundary');
    const huge = multipart([{ name: 'detect_bpm', body: 'true'.padEnd(100_000, ' ') }, { name: 'file', filename: 'a.mp3', body: mp3 }]);
    const many = multipart([...Array.from({ length: 20 }, () => ({ name: 'details', body: 'false' })), { name: 'file', filename: 'a.mp3', body: mp3 }]);
    const cases: [Buffer, string][] = [
      [wrong.body, 'multipart/form-data; boundary=some-other-boundary'],
      [huge.body, huge.contentType],
      [many.body, many.contentType],
      [wrong.body, 'multipart/form-data'],
    ];
    for (const [body, contentType] of cases) {
      const res = await h.call('/analyze/file', { method: 'POST', body, headers: { 'content-type': contentType } });
      const problem = await problemOf(res);
      assert.equal(res.status, 400, `${contentType}: ${problem.detail}`);
      assert.equal(problem.code, 'invalid_request');
    }
    // The server is still fine.
    assert.equal((await postFile(h, mp3, { detect_key: 'false' })).status, 200);
  });
  test('a body cut off in the middle of the file part', async () => {
    const { body, contentType } = multipart([{ name: 'file', filename: 'a.mp3', body: mp3 }]);
    const cut = body.subarray(0, body.length - 2000);
    const res = await h.call('/analyze/file', { method: 'POST', body: cut, headers: { 'content-type': contentType } });
    const problem = await problemOf(res);
    assert.equal(res.status, 400, problem.detail);
    assert.equal(problem.code, 'invalid_request');
  });
});

/** A request body that sends `head` at once, then `more()` chunks slowly until stopped. */
function slowBody(head: Uint8Array, more: () => Uint8Array | null, everyMs: number): ReadableStream<Uint8Array> {
  let sentHead = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
        return;
      }
      await sleep(everyMs);
      const next = more();
      if (next === null) controller.close();
      else controller.enqueue(next);
    },
  });
}

describe('limits while the upload arrives', () => {
  test('413 comes as soon as the limit is crossed, before the client has sent everything', async () => {
    const boundary = 'slow-boundary';
    const head = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`),
      mp3,
    ]);
    let sent = head.length;
    let stopped = false;
    // An endless file part: 256 KiB every 20 ms, far beyond the 2 MiB limit if nobody stops it.
    const body = slowBody(head, () => {
      if (stopped) return null;
      sent += 256 * 1024;
      return Buffer.alloc(256 * 1024, 1);
    }, 20);
    const res = await h.call('/analyze/file', {
      method: 'POST',
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      duplex: 'half',
    } as RequestInit);
    stopped = true;
    const problem = await problemOf(res);
    assert.equal(res.status, 413);
    assert.equal(problem.code, 'payload_too_large');
    // The body never ends, so any answer at all came before the upload did. What the
    // client had produced by then includes what loopback socket buffers hold (several MiB).
    assert.ok(sent < 32 * 1024 * 1024, `the answer came after ${sent} bytes`);
    await waitFor(async () => (await childFfmpegCount()) === 0);
  });
  test('an honest Content-Length over the limit is refused before reading', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 1);
    const res = await postFile(h, big);
    assert.equal(res.status, 413);
  });
});

describe('stalled senders', () => {
  test('an upload that stops sending is refused after the idle limit and frees its slot', async (t) => {
    const quick = await startHarness(t, { env: { TRACKSCAN_UPLOAD_IDLE_TIMEOUT_MS: '400' } });
    const boundary = 'stall-boundary';
    const head = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\n`), mp3.subarray(0, 32 * 1024)]);
    let step = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        step += 1;
        if (step === 1) controller.enqueue(head);
        // Then nothing for far longer than the limit.
        else await new Promise((r) => setTimeout(r, 20_000).unref());
      },
    });
    const started = performance.now();
    const res = await quick.call('/analyze/file', {
      method: 'POST',
      body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      duplex: 'half',
    } as RequestInit);
    const problem = await problemOf(res);
    assert.equal(res.status, 400, problem.detail);
    assert.match(problem.detail, /stalled/);
    assert.ok(performance.now() - started < 5000);
    const pool = (quick.running.app.locals.context as { pool: { stats(): { active: number } } }).pool;
    await waitFor(() => pool.stats().active === 0);
    await waitFor(async () => (await childFfmpegCount()) === 0);
  });
});

describe('client abort', () => {
  test('a client that goes away mid-upload ends the analysis and its ffmpeg', async () => {
    const analysesBefore = ((await (await h.call('/usage')).json()) as { analyses_this_month: number }).analyses_this_month;
    const boundary = 'abort-boundary';
    const head = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp3"\r\n\r\n`),
      mp3.subarray(0, 64 * 1024),
    ]);
    let at = 64 * 1024;
    const controller = new AbortController();
    const body = slowBody(head, () => {
      // The client side stops producing once it has given up.
      if (controller.signal.aborted) return null;
      const next = mp3.subarray(at, at + 1024);
      at += 1024;
      return next.length > 0 ? next : Buffer.alloc(1024);
    }, 50);
    const pending = h
      .call('/analyze/file', {
        method: 'POST',
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        duplex: 'half',
        signal: controller.signal,
      } as RequestInit)
      .catch((err: unknown) => err);
    await waitFor(async () => (await childFfmpegCount()) > 0);
    const pool = () => (h.running.app.locals.context as { pool: { stats(): { active: number } } }).pool.stats();
    assert.equal(pool().active, 1);
    controller.abort();
    assert.ok((await pending) instanceof Error);
    await waitFor(async () => (await childFfmpegCount()) === 0);
    await waitFor(() => pool().active === 0);
    // The abandoned analysis did not count.
    const usage = (await (await h.call('/usage')).json()) as { analyses_this_month: number };
    assert.equal(usage.analyses_this_month, analysesBefore);
  });
});
